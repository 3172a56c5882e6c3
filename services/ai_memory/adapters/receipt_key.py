"""Where the server's receipt-signing key comes from (erasure receipts, Ed25519).

A deployment sets ``AIMEM_RECEIPT_KEY``: a PKCS#8 PEM private key, or the base64 of its
raw 32-byte seed. An embedded server without it generates one into
``<data dir>/receipt.key`` (mode 0600, PEM) on first start and reads it on every later
start, like ``root.key``. A distributed deployment must set it, so every gateway signs
with the key whose public half auditors were given.
"""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ai_memory.core.errors import InvalidInput

RECEIPT_KEY_FILE = "receipt.key"
_SETTING = "AIMEM_RECEIPT_KEY"


def parse_receipt_key(text: str) -> Ed25519PrivateKey:
    data = text.strip().encode("ascii", errors="replace")
    try:
        if data.startswith(b"-----BEGIN"):
            key = serialization.load_pem_private_key(data, password=None)
        else:
            key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(data, validate=True))
    except ValueError as e:
        raise InvalidInput(_SETTING, "invalid", f"not an Ed25519 private key: {e}") from e
    if not isinstance(key, Ed25519PrivateKey):
        raise InvalidInput(_SETTING, "invalid", "not an Ed25519 private key")
    return key


def load_receipt_key(configured: str, data_dir: Path, *, embedded: bool) -> Ed25519PrivateKey:
    if configured.strip():
        return parse_receipt_key(configured)
    if not embedded:
        raise InvalidInput(
            _SETTING, "required", "a shared deployment signs receipts with AIMEM_RECEIPT_KEY"
        )
    path = data_dir / RECEIPT_KEY_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        # Written whole beside it, then linked into place (as root.key): two processes
        # starting at once never see a partial file or sign with two keys. The temporary
        # name is the writer's own (not just the pid): two first requests of one process,
        # on two worker threads, would otherwise write, link and unlink the same file.
        tmp = data_dir / f".{RECEIPT_KEY_FILE}.{os.getpid()}.{secrets.token_hex(8)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return parse_receipt_key(path.read_text(encoding="ascii"))
