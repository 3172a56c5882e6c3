"""The stored-memories quota of each tenant, kept where every write passes.

The unit of work (``unit_of_work``) asks ``admit`` before it appends events that create
memories — a ``MemoryWritten`` at version 1 — so every door obeys it alike: HTTP, MCP,
A2A, the in-process SDK, batches, imports, notes and interactions. Updating an existing
memory and forgetting one never create a memory, so they are always allowed. Over the
quota the append is refused with ``Forbidden`` (``quota_exceeded``, 403): retrying the
same write cannot succeed until the tenant forgets memories or is given a larger quota,
which is what 403 says and 429 (come back later) would not. A batch or an import then
falls back to item by item, so the items that still fit land and the rest are refused.

**A cached count.** Counting a tenant's memories on every write would cost a store read
per write (16 partition counts on Cassandra), so the count read from the record store is
kept for ``ttl`` seconds (5) and this process adds what it creates meanwhile. A write the
estimate would refuse re-reads the count first (at most once a second), so forgetting
frees room within about a second. How far a tenant can overshoot its quota:

* memories this process created that the records projection had not applied yet when
  the count was read (the projection lag, milliseconds on the embedded log);
* with several gateways, what the *other* gateways created since this one read the
  count: up to ``ttl`` seconds of the tenant's writes through them. Distributed, the
  count is the usage table every gateway reads (``bootstrap.usage.quota_count``), so
  this is the table's lag (the fold's batch, 0.2 s, and the replica's poll, 0.25 s,
  plus their work; not measured apart) plus ``ttl`` (1 s there); measured with two
  gateways racing: 5 memories past a quota of 150 (``tests/e2e/test_distributed_quota.py``);
* on the Kafka log (units run concurrently, no process lock): writes in flight at once.

So the quota is a bound on storage, exact to within seconds of writes, not a hard cap
to the single memory; an operator who needs a hard cap sets it that much lower.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from ai_memory.core.access.tenant_limits import LimitTable
from ai_memory.core.errors import Forbidden
from ai_memory.core.events import DomainEvent, MemoryWritten

COUNT_TTL = 5.0
#: How often a write the estimate would refuse may re-read the count, seconds.
RECOUNT_EVERY = 1.0


def new_memories(events: Sequence[DomainEvent]) -> int:
    """How many memories ``events`` create (a first version; updates create none)."""
    return sum(1 for e in events if isinstance(e, MemoryWritten) and e.version == 1)


class MemoryQuota:
    """``admit`` before an append creating memories, ``created`` after it landed."""

    def __init__(
        self,
        count: Callable[[str], int],
        table: LimitTable,
        *,
        ttl: float = COUNT_TTL,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._count = count
        self.table = table
        self._ttl = ttl
        self._monotonic = monotonic
        self._lock = threading.Lock()
        # tenant → (count read from the store + what this process created since, read at)
        self._known: dict[str, tuple[int, float]] = {}

    def admit(self, tenant: str, new: int) -> None:
        """``Forbidden`` (``quota_exceeded``) if ``new`` more memories would take the
        tenant past its quota (see the module docstring for how exact that is)."""
        quota = self.table.of(tenant).max_memories
        if quota <= 0 or new <= 0:
            return
        now = self._monotonic()
        with self._lock:
            known = self._known.get(tenant)
        if known is None or now - known[1] >= self._ttl:
            known = self._recount(tenant, now)
        if known[0] + new > quota and now - known[1] >= RECOUNT_EVERY:
            known = self._recount(tenant, now)  # forgets may have made room
        if known[0] + new > quota:
            room = max(0, quota - known[0])
            raise Forbidden(
                f"this tenant may store at most {quota} memories and holds {known[0]}: "
                f"room for {room} more, this write would create {new}. Forget memories "
                "or ask the operator for a larger quota (updates and forgets always work)",
                code="quota_exceeded",
            )

    def created(self, tenant: str, new: int) -> None:
        """Count ``new`` memories this process just created."""
        if new <= 0 or self.table.of(tenant).max_memories <= 0:
            return
        with self._lock:
            known = self._known.get(tenant)
            if known is not None:
                self._known[tenant] = (known[0] + new, known[1])

    def _recount(self, tenant: str, now: float) -> tuple[int, float]:
        counted = (self._count(tenant), now)  # a store read, outside the lock
        with self._lock:
            self._known[tenant] = counted
        return counted
