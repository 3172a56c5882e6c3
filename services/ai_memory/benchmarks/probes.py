"""What the runner reads off the server and the machine between phases: projection
progress and index compaction (over HTTP), memory (``/proc``) and disk use."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from ai_memory.benchmarks.server import BenchError

# The gauge the embedded index sets while it compacts segments in the background. Older
# servers do not export it; the runner then does not wait.
COMPACTION_GAUGE = "aimem_index_compaction_running"
# The index is settled when it neither compacts nor warms conversation context up.
_SAMPLE = re.compile(
    rf"^(?:{COMPACTION_GAUGE}|aimem_index_context_warming)(?:\{{[^}}]*\}})?\s+(\S+)",
    re.MULTILINE,
)
IDLE_TIMEOUT = 3600.0
PROJECTED_TIMEOUT = 7200.0


def wait_projected(http: httpx.Client, alive: Callable[[], None]) -> None:
    """Until every projection ``/healthz`` lists has applied the log up to the head it
    reported when asked: every write acknowledged before the call is then projected.

    The head, not the writes' own positions: a write answers its tenant's token, which
    only the deployment's secret decodes (``docs/design/POSITIONS.md``), and the server a
    benchmark starts is open, so ``/healthz`` shows it heads and positions. Polled rather
    than asked of the import (``wait=true``): that wait is capped by
    ``AIMEM_WAIT_TIMEOUT`` (10 s by default), far less than a million memories take."""
    deadline = time.perf_counter() + PROJECTED_TIMEOUT
    needed: dict[tuple[str, int], int] | None = None
    while time.perf_counter() < deadline:
        alive()
        projections = http.get("/healthz").json()["projections"]
        if needed is None:
            needed = {(p["projection"], p["partition"]): p["head"] for p in projections}
        if all(
            p["position"] >= needed.get((p["projection"], p["partition"]), 0) for p in projections
        ):
            return
        time.sleep(0.05)
    raise BenchError(f"the projections did not reach the log head {needed} in time")


def wait_index_idle(http: httpx.Client, alive: Callable[[], None]) -> float | None:
    """Seconds until the index reports no compaction running and conversation context
    warmed up, or None when the server exports neither gauge (nothing to wait for)."""
    began = time.perf_counter()
    while time.perf_counter() - began < IDLE_TIMEOUT:
        alive()
        values = [float(v) for v in _SAMPLE.findall(http.get("/metrics").text)]
        if not values:
            return None
        if all(v == 0 for v in values):
            return time.perf_counter() - began
        time.sleep(0.25)
    raise BenchError(f"the index was still compacting after {IDLE_TIMEOUT:.0f}s")


def _status_bytes(pid: int, first: str, second: str) -> tuple[int, int] | None:
    """Two kB fields of ``/proc/<pid>/status``, in bytes; None where there is no
    ``/proc`` (not Linux) or the kernel does not report them."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return None
    kib = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in (first, second):
            kib[name] = int(value.split()[0])
    if len(kib) != 2:
        return None
    return kib[first] * 1024, kib[second] * 1024


def memory_of(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) of a process in bytes: resident now and at its peak."""
    return _status_bytes(pid, "VmRSS", "VmHWM")


def resident_split(pid: int) -> tuple[int, int] | None:
    """(RssAnon, RssFile) of a process in bytes: its own memory, and the pages of files
    it maps (the index's segments). A file page is the OS's cache, shared and
    reclaimable, and counted once per mapping."""
    return _status_bytes(pid, "RssAnon", "RssFile")


def disk_usage(path: Path) -> int:
    """Bytes the files under ``path`` occupy on disk, as ``du`` counts them (allocated
    blocks: a sparse or preallocated file counts what it really holds)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:  # removed while walking (a compaction's old segment)
                continue
            total += st.st_blocks * 512 if hasattr(st, "st_blocks") else st.st_size
    return total
