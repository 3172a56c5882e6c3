"""Commands that read a data directory refuse one that does not exist.

``keys list`` or ``receipt-public-key`` run from the wrong folder used to create a fresh
``./data`` and answer from it: "0 keys", or a newly generated signing key that verifies
no genuine receipt. A command that only reads (or changes what is there) now names the
directory it did not find instead; only ``serve`` (and ``keys create``, ``migrate``)
start a new one.
"""

from __future__ import annotations

from pathlib import Path

from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import CommandFailure
from ai_memory.settings import Settings

#: Schemes whose store lives in the data directory.
_IN_DATA_DIR = ("sqlite", "qdrant-edge")


class DataDirMissing(CommandFailure):
    def __init__(self, path: Path) -> None:
        shown = f"{path} ({path.resolve()})" if not path.is_absolute() else str(path)
        super().__init__(
            f"no data directory at {shown} — this command reads an existing one: run it "
            "where the server keeps its data, or pass --data-dir / set AIMEM_DATA_DIR",
            ExitCode.BAD_INPUT,
        )


def require_data_dir(settings: Settings, *urls: str) -> None:
    """Refuse when any of ``urls`` (the resolved store URLs the command opens) is a file
    of the data directory and that directory does not exist."""
    s = settings.resolved()
    if s.data_dir.is_dir():
        return
    # The scheme by hand, not through ai_memory.bootstrap: a client-only install (no
    # server extra) imports this module with the command line.
    if any(url.split(":", 1)[0] in _IN_DATA_DIR for url in urls):
        raise DataDirMissing(s.data_dir)
