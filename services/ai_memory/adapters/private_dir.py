"""A data directory only its owner can enter.

The directory holds the log of record, the records view (memory content in clear in the
embedded store), key digests, the vault's wrapped keys and the index. A new one is made
``0700`` whatever the umask (``mkdir``'s mode is masked by it, hence the explicit
``chmod``): files inside are then out of other users' reach even where a library creates
them ``0644``. An existing directory is the operator's — it may be ``/srv/…`` shared on
purpose, or ``/tmp`` — so it is never changed, but one that group or others may enter is
said once, with the command that fixes it (PostgreSQL refuses to start on such a
directory; a warning keeps existing deployments running).

``ai-memory`` commands also run with umask ``077`` (``entrypoints.cli.launcher``), so
every file they create is ``0600`` too.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)
PRIVATE = 0o700


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) with the directory itself ``0700``; warn when
    an existing one is open to group or others."""
    existed = path.is_dir()
    path.mkdir(mode=PRIVATE, parents=True, exist_ok=True)
    if not existed:
        os.chmod(path, PRIVATE)
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning(
            "data directory %s is open to group or others (mode %04o): it holds memory "
            "content and keys; run: chmod 700 %s",
            path,
            mode,
            path,
        )
