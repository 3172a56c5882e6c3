"""The write model outside the log: a compare-and-set store of heads.

An embedded log keeps heads in the same transaction as its appends. A log that cannot
be queried by key (Kafka) pairs with a ``HeadStore`` (Cassandra lightweight transactions):
before producing a write or delete, the log advances the head of that memory from the
version the decision was based on. If another writer moved it first, the append is
refused with ``Conflict(code="concurrent_write")`` — so two gateways never both create
version N+1 — while a retried append of the same event is recognised by its event id.

Expected versions follow from the event itself: a ``MemoryWritten`` of version v expects
v-1 (0 = the memory must not exist); a ``MemoryDeleted`` of version v expects a live v.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .events import DomainEvent, Head, MemoryDeleted, MemoryWritten


@dataclass(frozen=True)
class HeadUpdate:
    tenant: str
    head: Head  # the new head; position is filled in after the append
    expected_version: int
    expect_live: bool
    event_id: str


@dataclass(frozen=True)
class PositionUpdate:
    tenant: str
    memory_id: str
    event_id: str
    position: int


class HeadStore(Protocol):
    def get_many(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]: ...

    def compare_and_set(self, update: HeadUpdate) -> tuple[bool, str | None]:
        """Apply when the stored head matches; return (applied, event id stored now)."""
        ...

    def compare_and_set_many(self, updates: Sequence[HeadUpdate]) -> list[tuple[bool, str | None]]:
        """``compare_and_set`` for updates of *distinct* memories, possibly concurrently
        (an append of 500 events must not pay 500 sequential round trips)."""
        ...

    def set_position(self, tenant: str, memory_id: str, event_id: str, position: int) -> None:
        """Record where the event of ``event_id`` landed (no-op if the head moved on)."""
        ...

    def set_positions(self, items: Sequence[PositionUpdate]) -> None:
        """``set_position`` for many events, possibly concurrently."""
        ...

    def revert(self, update: HeadUpdate, previous: Head | None) -> None:
        """Best effort: undo ``update`` after the append itself failed."""
        ...

    def close(self) -> None: ...


def head_update(event: DomainEvent) -> HeadUpdate | None:
    """The compare-and-set an event needs, or None for events that move no head."""
    if isinstance(event, MemoryWritten):
        r = event.record
        head = Head(r.id, r.scope, event.version, event.content_sha256, False, 0, r.created_at)
        return HeadUpdate(event.header.tenant, head, event.version - 1, True, event.header.event_id)
    if isinstance(event, MemoryDeleted):
        head = Head(event.memory_id, event.scope, event.version, "", True, 0, None)
        return HeadUpdate(
            event.header.tenant, head, event.version, event.version > 0, event.header.event_id
        )
    return None
