"""Forget means forgotten: after a tombstone is on the log, its memory's data key goes.

An ``EventLog`` decorator for appenders (crypto-shredding, ``deploy/FORGETTING.md``).
Every path that forgets — a DELETE, a batch, a tombstone in an import, governance, an
erasure — appends ``MemoryDeleted`` (or, for raw interaction turns, ``SubjectErased``)
through it, so the key is destroyed on every path, in the
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

from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.events import (
    DomainEvent,
    Head,
    LoggedEvent,
    MemoryDeleted,
    SubjectErased,
    TenantPage,
)
from ai_memory.core.governance.interactions import extracted_memory_id
from ai_memory.core.ports import EventLog, RecordStore
from ai_memory.core.record import StoredRecord

DestroyKey = Callable[[str, str], None]  # (tenant, key id)
PrepareKeys = Callable[[Sequence[DomainEvent]], None]
RelatedKeys = Callable[[str, str], Sequence[str]]  # (tenant, memory id) → more key ids

# Extracted memories get the ids extracted_memory_id(interaction, 0..n-1); an extractor
# finds a handful per turn, this bounds the check.
MAX_EXTRACTED = 256


def source_interaction_keys(store: RecordStore) -> RelatedKeys:
    """The key of the interaction a memory was extracted from: forgetting the memory
    forgets the raw turn too, which said the same thing (deploy/FORGETTING.md). Read from
    the record store before the tombstone is appended. Only a memory whose id is one the
    extractor derives from that interaction counts, so a ``meta.source`` written by a
    client cannot make a forget destroy another interaction's key."""

    def related(tenant: str, memory_id: str) -> list[str]:
        found = store.get(tenant, memory_id)
        if not isinstance(found, StoredRecord):
            return []
        source = found.record.meta.get("source")
        interaction = source.get("interaction_id") if isinstance(source, dict) else None
        if not isinstance(interaction, str):
            return []
        derived = (extracted_memory_id(interaction, i) for i in range(MAX_EXTRACTED))
        return [interaction_key_id(interaction)] if memory_id in derived else []

    return related


class ShreddingLog:
    """``prepare`` runs before the append (and the guard behind it, which seals every
    event): it makes the keys of a batch's new memories in one vault round trip."""

    def __init__(
        self,
        inner: EventLog,
        destroy: DestroyKey,
        prepare: PrepareKeys | None = None,
        related: RelatedKeys | None = None,
    ) -> None:
        self.inner = inner
        self._destroy = destroy
        self._prepare = prepare
        self._related = related

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        if self._prepare is not None:
            self._prepare(events)
        doomed: list[tuple[str, str]] = []
        for event in events:
            if isinstance(event, MemoryDeleted):
                tenant = event.header.tenant
                doomed.append((tenant, memory_key_id(event.memory_id)))
                if self._related is not None:
                    doomed += [(tenant, k) for k in self._related(tenant, event.memory_id)]
            elif isinstance(event, SubjectErased):  # the tombstone of its raw turns
                tenant = event.header.tenant
                doomed += [(tenant, interaction_key_id(i)) for i in event.interaction_ids]
        positions = self.inner.append(events)
        for tenant, key_id in dict.fromkeys(doomed):
            self._destroy(tenant, key_id)
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
