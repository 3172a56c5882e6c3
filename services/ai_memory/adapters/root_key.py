"""Where the vault's root key comes from.

A deployment sets ``AIMEM_ROOT_KEY`` (base64url of 32 bytes) from its secret store or a
KMS; the vault never stores it. An embedded server without it generates one into
``<data dir>/root.key`` (mode 0600) on first start and reads it on every later start,
like a development vault: convenient, but whoever copies the data directory then holds
the root key beside the wrapped keys, so only destroyed keys are safe from them. Set
AIMEM_ROOT_KEY in production. A distributed deployment must set it: gateways on
different hosts cannot share a generated file.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from ai_memory.core.data_keys import KEY_BYTES
from ai_memory.core.errors import InvalidInput

from .key_wrapping import parse_root_key

ROOT_KEY_FILE = "root.key"
# The secret of an embedded deployment's position tokens when encryption is off (there
# is no root key then): generated once, like root.key.
POSITIONS_KEY_FILE = "positions.key"


def load_root_key(configured: str, data_dir: Path, *, embedded: bool) -> bytes:
    if configured.strip():
        return parse_root_key(configured)
    if not embedded:
        raise InvalidInput(
            "AIMEM_ROOT_KEY",
            "required",
            "AIMEM_ENCRYPTION=on with a shared vault needs AIMEM_ROOT_KEY (base64url, 32 bytes)",
        )
    return generated_key(data_dir / ROOT_KEY_FILE)


def generated_key(path: Path) -> bytes:
    """The 32-byte key in ``path`` (base64url), generated there (0600) on first use."""
    data_dir = path.parent
    if not path.exists():
        text = base64.urlsafe_b64encode(os.urandom(KEY_BYTES)).decode("ascii")
        # Written whole beside it, then linked into place: link fails if the name exists,
        # so two processes starting at once never see a partial file or two keys.
        tmp = data_dir / f".{path.name}.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return parse_root_key(path.read_text(encoding="ascii"))
