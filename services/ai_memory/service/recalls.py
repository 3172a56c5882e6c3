"""Read reinforcement: every memory a search returns is counted as read.

Counts live on the log, as ``MemoriesRecalled`` events, so replays reproduce them and
the governance score's read-frequency term ``F`` is deterministic. Appending one event
per search would double the write load of a read-heavy system, so recalls are batched:
ids accumulate per (tenant, scope) and are appended every ``interval`` seconds or once
``max_batch`` distinct ids are pending, and on close. Each tenant's batch is appended in
a unit of work, like every other write of the service layer.

A read count is the number of recall events that named the memory (both record stores
count an id once per event: ``AddReads``), so an id is kept once per batch: returning a
memory to ten searches of one second appends it once either way, and the event carries
no repeats for every consumer of the log to decode. ``max_batch`` bounds an event (2,000
ids of ≤ 200 characters stay under half of Kafka's default 1 MiB record); at 500 ids,
repeats included, a busy gateway flushed several times a second, and each flush wrote a
read-count row per memory it named (``loadtest/RESULTS.md``, "Read counts once per
second").
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from ai_memory.core.events import MemoriesRecalled
from ai_memory.telemetry import span

from .unit_of_work import UnitsOfWork

log = logging.getLogger(__name__)


class RecallRecorder:
    def __init__(self, units: UnitsOfWork, *, interval: float = 1.0, max_batch: int = 2000) -> None:
        self.units = units
        self.interval = interval
        self.max_batch = max_batch
        # (tenant, scope) → the distinct ids returned since the last flush, in order.
        self._pending: dict[tuple[str, str], dict[str, None]] = {}
        self._count = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def record(self, tenant: str, recalled: Iterable[tuple[str, str]]) -> None:
        """``recalled``: (scope, memory id) pairs returned to a caller."""
        with self._lock:
            for scope, memory_id in recalled:
                ids = self._pending.setdefault((tenant, scope), {})
                if memory_id not in ids:
                    ids[memory_id] = None
                    self._count += 1
            full = self._count >= self.max_batch
        if full:
            self._wake.set()

    def flush(self) -> int:
        """Append what is pending now; return how many ids were appended."""
        with self._lock:
            pending, self._pending, self._count = self._pending, {}, 0
        by_tenant: dict[str, list[tuple[str, list[str]]]] = {}
        for (tenant, scope), ids in pending.items():
            by_tenant.setdefault(tenant, []).append((scope, list(ids)))
        appended = 0
        for tenant, batches in by_tenant.items():
            # A trace of its own: one flush serves the searches of the last interval.
            with (
                span("aimem.recalls.append", {"aimem.tenant": tenant}),
                self.units.begin(tenant, "recall") as uow,
            ):
                uow.append([MemoriesRecalled(uow.header(), s, tuple(ids)) for s, ids in batches])
            appended += sum(len(ids) for _, ids in batches)
        return appended

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="recalls", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._safe_flush()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            self._safe_flush()

    def _safe_flush(self) -> None:
        try:
            self.flush()
        except Exception:  # counts are reinforcement, not data: never fail a reader for them
            log.exception("could not append recall events")
