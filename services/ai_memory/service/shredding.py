"""Forget means forgotten: after a tombstone is on the log, its memory's data key goes.

An ``EventLog`` decorator for appenders (crypto-shredding, ``deploy/FORGETTING.md``).
Every path that forgets — a DELETE, a batch, a tombstone in an import, governance —
appends ``MemoryDeleted`` through it, so the key is destroyed on every path, in the
order the design requires: the append returns only when the tombstone is durable (one
transaction on the embedded log, acks=all on Kafka), and only then is the key destroyed.
Projections that meet the memory's sealed events afterwards read them as gone, and the
tombstone follows them on the same partition.

If the vault fails after the tombstone was appended, the error reaches the caller and
the key outlives the tombstone (the content stays readable to whoever holds the vault)
until a later destroy; the forget itself stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.events import DomainEvent, Head, LoggedEvent, MemoryDeleted, TenantPage
from ai_memory.core.ports import EventLog

DestroyKey = Callable[[str, str], None]  # (tenant, key id)


class ShreddingLog:
    def __init__(self, inner: EventLog, destroy: DestroyKey) -> None:
        self.inner = inner
        self._destroy = destroy

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        positions = self.inner.append(events)
        for event in events:
            if isinstance(event, MemoryDeleted):
                self._destroy(event.header.tenant, memory_key_id(event.memory_id))
        return positions

    def partitions(self) -> list[int]:
        return self.inner.partitions()

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        return self.inner.read(after=after, limit=limit, partition=partition)

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        return self.inner.read_tenant(
            tenant, after=after, limit=limit, scan=scan, partition=partition
        )

    def last_position(self, partition: int = 0) -> int:
        return self.inner.last_position(partition)

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        return self.inner.wait_for_events(after=after, timeout=timeout, partition=partition)

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        return self.inner.heads(tenant, memory_ids)

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:
        # Adapter-specific extras (a Kafka log's writers) stay reachable, as through the guard.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
