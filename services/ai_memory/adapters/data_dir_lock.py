"""One process per embedded data directory.

The embedded log, the record store and the Qdrant Edge index of a data directory are
projected by the process that opens them; a second process on the same directory (a
second ``make run``, an ``ai-memory mcp`` beside a running server, a replay while it
serves) opens the same index files and corrupts both (the first server's index
projection went ``degraded`` with "Tracker journal … is shorter than expected"). So the
process that opens a data directory takes an exclusive ``flock`` on ``ai-memory.lock``
in it, and a second one is refused at once, naming the holder.

``flock`` belongs to the open file: the kernel releases it when the holder exits, killed
or not, so no stale lock outlives a crash. Child processes do not inherit it
(``subprocess`` closes descriptors), so the index compaction child holds nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

from ai_memory.core.errors import DataDirInUse

LOCK_NAME = "ai-memory.lock"


class DataDirLock:
    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, data_dir: Path) -> DataDirLock:
        """Lock ``data_dir`` for this process, or raise ``DataDirInUse`` naming the holder."""
        path = data_dir / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise DataDirInUse(
                f"data directory {data_dir} is in use by {holder}: stop it, or point "
                "AIMEM_DATA_DIR at another directory (a running server's clients talk "
                "to it over HTTP: AIMEM_URL)"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        # Who holds it, for the next one refused: the pid and the command.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {' '.join(sys.argv)[:200]}\n".encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    pid, _, command = text.partition(" ")
    if not pid.isdigit():
        return "another process"
    return f"pid {pid}" + (f" ({command})" if command else "")
