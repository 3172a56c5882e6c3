"""One process per embedded data directory: refused at once, released by any death."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ai_memory.adapters.data_dir_lock import LOCK_NAME, DataDirLock
from ai_memory.core.errors import DataDirInUse

HOLD = """
import sys, time
from pathlib import Path
from ai_memory.adapters.data_dir_lock import DataDirLock
DataDirLock.acquire(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(600)
"""


def test_a_second_holder_is_refused_naming_the_first(tmp_path: Path) -> None:
    lock = DataDirLock.acquire(tmp_path)
    try:
        with pytest.raises(DataDirInUse, match=f"in use by pid {os.getpid()}"):
            DataDirLock.acquire(tmp_path)
        assert (tmp_path / LOCK_NAME).stat().st_mode & 0o777 == 0o600
    finally:
        lock.release()
    DataDirLock.acquire(tmp_path).release()  # free again once released


def test_a_holder_killed_with_sigkill_leaves_no_stale_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(DataDirInUse, match=f"pid {holder.pid}"):
            DataDirLock.acquire(tmp_path)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    deadline = time.monotonic() + 10
    while True:  # the kernel drops a dead process's flock with its descriptors
        try:
            DataDirLock.acquire(tmp_path).release()
            break
        except DataDirInUse:
            assert time.monotonic() < deadline
            time.sleep(0.05)
