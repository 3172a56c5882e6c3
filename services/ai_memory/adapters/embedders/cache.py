"""The on-disk model cache: where derived model artefacts live and how they are
written safely.

Artefacts go under ``AIMEM_MODEL_DIR`` (default ``~/.cache/ai-memory/models``), one
directory per artefact, named by the artefact's exact version. A directory is written
completely under a temporary name and then renamed into place, so a reader sees either
nothing or a finished artefact. An advisory file lock (POSIX ``flock``) makes concurrent
processes wait for the first builder instead of repeating its work; without ``fcntl``
the rename alone still keeps the cache consistent.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ai_memory.settings import Settings

ENV_VAR = "AIMEM_MODEL_DIR"


def model_cache_dir() -> Path:
    """``AIMEM_MODEL_DIR`` if set and non-empty, else ``~/.cache/ai-memory/models``."""
    return Settings.one_from_env("model_dir").model_dir.expanduser()


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # not POSIX: rely on the atomic rename only
        yield
        return
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def materialise(parent: Path, name: str, write: Callable[[Path], None]) -> Path:
    """``parent/name``, calling ``write(tmp_dir)`` to create it if it is missing.

    ``write`` fills an empty temporary directory on the same file system; it is then
    renamed to ``parent/name`` in one step. Leftovers of interrupted builds are removed."""
    final = parent / name
    if final.is_dir():
        return final
    parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(parent / f".{name}.lock"):
        if final.is_dir():
            return final
        for stale in parent.glob(f".{name}.*.tmp"):
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent))
        try:
            write(tmp)
            tmp.chmod(0o755)  # mkdtemp makes it private; the artefact is read by any user
            try:
                os.rename(tmp, final)
            except OSError:
                if not final.is_dir():  # lost a race with a lock-less writer: fine
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return final
