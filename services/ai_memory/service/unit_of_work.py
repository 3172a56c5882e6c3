"""The unit of work: the one way the service layer writes to the log.

    with units.begin(tenant, actor) as uow:
        heads = uow.heads(ids)          # the log's heads, overlaid with this uow's appends
        events = decide(…, uow.header())
        positions = uow.append(events)
    uow.wait()                          # read-your-writes, after the lock is released

A unit of work owns, for one decision:

* the **write lock** — on the embedded log, decide-then-append is serialised per
  process, so a decision sees every earlier append of this process. A partitioned log
  whose single writer checks every expected version itself (Kafka) needs no such lock:
  units run concurrently (so the writer can group-commit them), and a decision that lost
  a race is refused as ``concurrent_write`` and decided again by ``run``;
* a **head overlay** — the heads of what this unit appended, so a second decision in the
  same unit sees them even where the log's head store has not recorded them yet;
* **event headers** — a fresh event id, the tenant, the injected clock's time, the actor;
  and the ``caller`` whose use case it is (``service.access``: a key's principal or the
  deployment), which writes only to its own tenant;
* **the append** — through the append pipeline (``append_pipeline``: data keys, encode
  once, prove projectable, append, destroy the keys of what was forgotten);
* **read-your-writes** — ``wait`` / ``wait_async`` for the newest position it appended;
* the **stored-memories quota** — an append creating memories beyond the tenant's quota
  is refused (``quotas``), whichever service decided it.

Waiting is never done under the lock: a slow projection must not stall every writer.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Protocol, TypeVar

from ai_memory.core.errors import Conflict, InvalidInput, Timeout
from ai_memory.core.events import DomainEvent, EventHeader, Head
from ai_memory.core.heads import head_update
from ai_memory.core.ports import Clock, EventLog
from ai_memory.core.positions import newest_per_partition
from ai_memory.telemetry import annotate, span

from .access import Caller
from .acting import authenticated_actor
from .append_pipeline import AppendPipeline
from .quotas import MemoryQuota, new_memories

T = TypeVar("T")

#: How often ``run`` decides again after losing a race for the same memory.
DECISION_ATTEMPTS = 8


class _NoLock:
    """The lock of units that need none (see the module docstring)."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass


class PositionWaiter(Protocol):
    """Something that can wait until the projections reach a log position."""

    def wait(self, position: int, timeout: float) -> bool: ...

    async def wait_async(self, position: int, timeout: float) -> bool: ...

    def beyond_head(self, position: int) -> bool: ...

    @property
    def packed_positions(self) -> bool:
        """Whether positions pack (partition, offset): a partitioned log's."""
        ...


class UnitOfWork:
    """One decide-then-append step of one tenant; a context manager holding the lock."""

    def __init__(self, units: UnitsOfWork, tenant: str, actor: str, caller: Caller | None) -> None:
        if caller is not None and caller.tenant != tenant:
            raise InvalidInput("tenant", "caller", "a caller writes only to its tenant")
        self._units = units
        self.tenant = tenant
        self.actor = actor
        self.caller = caller
        self._overlay: dict[str, Head] = {}
        self._held = False
        self.positions: list[int] = []

    # --- the lock --------------------------------------------------------------------
    def __enter__(self) -> UnitOfWork:
        self._units.lock.acquire()
        self._held = True
        self._units.entered(+1)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._held = False
        self._units.entered(-1)
        self._units.lock.release()

    # --- deciding ----------------------------------------------------------------------
    def heads(self, memory_ids: Sequence[str]) -> dict[str, Head]:
        """The write model for ``memory_ids``: the log's heads, and over them the heads of
        what this unit appended (with the positions the log gave them)."""
        self._require_lock()
        wanted = list(dict.fromkeys(memory_ids))
        missing = [m for m in wanted if m not in self._overlay]
        found = self._units.log.heads(self.tenant, missing) if missing else {}
        for memory_id in wanted:
            if memory_id in self._overlay:
                found[memory_id] = self._overlay[memory_id]
        return found

    def header(self, actor: str | None = None) -> EventHeader:
        """A header for one new event: fresh id, this tenant, the clock's time, and as
        actor the authenticated key if the request has one (``acting``), else the
        caller's."""
        return EventHeader(
            str(uuid.uuid4()),
            self.tenant,
            self._units.clock.now(),
            authenticated_actor() or actor or self.actor,
        )

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        """Append ``events`` at once; returns their positions, in order."""
        self._require_lock()
        if not events:
            return []
        quota = self._units.quota
        created = new_memories(events) if quota is not None else 0
        if quota is not None and created:
            quota.admit(self.tenant, created)  # every door's writes pass here (quotas.py)
        positions = self._units.pipeline.append(list(events))
        if quota is not None and created:
            quota.created(self.tenant, created)
        for event, position in zip(events, positions, strict=True):
            update = head_update(event)
            if update is not None:
                head = update.head
                self._overlay[head.memory_id] = Head(
                    head.memory_id,
                    head.scope,
                    head.version,
                    head.content_sha256,
                    head.deleted,
                    position,
                    head.created_at,
                )
        self.positions += positions
        self._units.appended(max(positions))
        return positions

    # --- read-your-writes --------------------------------------------------------------
    @property
    def last_position(self) -> int:
        """The newest position this unit appended (0: nothing)."""
        return max(self.positions, default=0)

    def wait(self, timeout: float | None = None) -> None:
        """Until every projection applied what this unit appended, in every partition it
        appended to (not under the lock)."""
        for position in self._units.newest(self.positions):
            self._units.wait_for(position, timeout)

    async def wait_async(self, timeout: float | None = None) -> None:
        for position in self._units.newest(self.positions):
            await self._units.wait_for_async(position, timeout)

    def _require_lock(self) -> None:
        if not self._held:
            raise RuntimeError("a unit of work decides and appends inside `with uow:` only")


class UnitsOfWork:
    """Begins units of work over one log; one per process, shared by every service.
    Decisions read the heads of ``pipeline.log``; appends go through ``pipeline``."""

    def __init__(
        self,
        pipeline: AppendPipeline,
        clock: Clock,
        waiter: PositionWaiter,
        *,
        wait_timeout: float = 10.0,
        serialize: bool = True,
        quota: MemoryQuota | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.log: EventLog = pipeline.log
        self.quota = quota
        self.clock = clock
        self.waiter = waiter
        self.wait_timeout = wait_timeout
        # Re-entrant: a service composing another's use case may begin a unit while its own
        # is open on the same thread; that must nest, not deadlock.
        self.lock: threading.RLock | _NoLock = threading.RLock() if serialize else _NoLock()
        self.serialized = serialize
        self._depth = threading.local()  # units open on this thread (nested ones count)
        self._last_position = 0

    def entered(self, step: int) -> None:
        self._depth.n = getattr(self._depth, "n", 0) + step

    def open_here(self) -> bool:
        """Whether this thread is inside a unit of work (a use case composing another)."""
        return bool(getattr(self._depth, "n", 0))

    def begin(self, tenant: str, actor: str, *, caller: Caller | None = None) -> UnitOfWork:
        return UnitOfWork(self, tenant, actor, caller)

    def run(
        self,
        tenant: str,
        actor: str,
        step: Callable[[UnitOfWork], T],
        *,
        caller: Caller | None = None,
    ) -> T:
        """``step`` in a unit of its own; decided again (fresh heads) when another writer
        changed the same memory between this decision and its append. A conflict that
        persists is the caller's (409)."""
        with span("aimem.unit_of_work", {"aimem.tenant": tenant}):
            for attempt in range(DECISION_ATTEMPTS):
                try:
                    with self.begin(tenant, actor, caller=caller) as uow:
                        result = step(uow)
                    annotate({"aimem.decisions": attempt + 1})
                    return result
                except Conflict as e:
                    if e.code != "concurrent_write" or attempt == DECISION_ATTEMPTS - 1:
                        raise
                    time.sleep(random.uniform(0, 0.005 * (attempt + 1)))  # de-synchronise
        raise AssertionError("unreachable")

    def header(self, tenant: str, actor: str) -> EventHeader:
        """A header outside any unit (an event that decides nothing)."""
        return EventHeader(
            str(uuid.uuid4()), tenant, self.clock.now(), authenticated_actor() or actor
        )

    def newest(self, positions: Sequence[int]) -> list[int]:
        """The newest of ``positions`` per partition (one on the embedded log)."""
        return newest_per_partition(positions, packed=self.waiter.packed_positions)

    @property
    def last_position(self) -> int:
        """The newest position any unit of this process appended."""
        return self._last_position

    def appended(self, position: int) -> None:
        self._last_position = max(self._last_position, position)

    # --- read-your-writes --------------------------------------------------------------
    def check_position(self, position: int, field_name: str = "min_position") -> None:
        """Refuse at once a position no write has returned yet: waiting for it could only
        time out, holding the request (and, before, a worker thread) for nothing."""
        if position < 0 or self.waiter.beyond_head(position):
            raise InvalidInput(
                field_name,
                "beyond_head",
                f"{field_name} {position} is beyond the log head; pass a position that a "
                "write returned",
                code="position_beyond_head",
            )

    def wait_for(self, position: int, timeout: float | None = None) -> None:
        limit = self.wait_timeout if timeout is None else timeout
        if not self.waiter.wait(position, limit):
            raise lagging(position, limit)

    async def wait_for_async(self, position: int, timeout: float | None = None) -> None:
        """``wait_for`` on the event loop: the wait holds no worker thread."""
        limit = self.wait_timeout if timeout is None else timeout
        if not await self.waiter.wait_async(position, limit):
            raise lagging(position, limit)

    def wait_for_all(self, positions: Sequence[int]) -> None:
        """``wait_for`` each position (of different partitions), within one timeout."""
        deadline = time.monotonic() + self.wait_timeout
        for position in positions:
            self.wait_for(position, max(0.0, deadline - time.monotonic()))


def lagging(position: int, limit: float) -> Timeout:
    return Timeout(
        f"projections did not reach log position {position} within {limit:g}s",
        retry_after=1.0,
        code="projection_lag",
    )
