"""``EventLog`` in a list: one partition, positions 1, 2, 3…, heads kept with the append.

Events are stored as the serializer's bytes and decoded on read, as on the SQLite log,
so what a projection sees went through the same encoding as in production.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import (
    DomainEvent,
    Head,
    LoggedEvent,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    TenantPage,
)
from ai_memory.core.ports import (
    EncodedEvent,
    EventSerializer,
    encode_events,
)


@dataclass
class LogBacking:
    payloads: list[bytes] = field(default_factory=list)  # position = index + 1
    positions: dict[str, int] = field(default_factory=dict)  # event id -> position
    heads: dict[tuple[str, str], Head] = field(default_factory=dict)
    appended: threading.Condition = field(default_factory=threading.Condition)


class MemoryEventLog:
    def __init__(self, serializer: EventSerializer, backing: LogBacking | None = None) -> None:
        self._serializer = serializer
        self.backing = backing or LogBacking()

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        # Encoded first: an unencodable event fails before anything lands.
        return self.append_encoded(encode_events(self._serializer, events))

    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        b = self.backing
        positions: list[int] = []
        with b.appended:
            for encoded in events:
                event, payload = encoded.event, encoded.frame
                known = b.positions.get(event.header.event_id)
                if known is not None:  # a retried append: report where it already is
                    positions.append(known)
                    continue
                b.payloads.append(payload)
                position = len(b.payloads)
                b.positions[event.header.event_id] = position
                positions.append(position)
                _update_head(b.heads, event, position)
            b.appended.notify_all()
        return positions

    def partitions(self) -> list[int]:
        return [0]

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        _single_partition(partition)
        with self.backing.appended:
            chunk = self.backing.payloads[max(after, 0) : max(after, 0) + max(limit, 0)]
        start = max(after, 0) + 1
        return [
            LoggedEvent(start + i, self._serializer.decode(payload))
            for i, payload in enumerate(chunk)
        ]

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        """Examines at most ``scan`` events after ``after`` (a list has no tenant index)."""
        _single_partition(partition)
        start = max(after, 0)
        with self.backing.appended:
            chunk = self.backing.payloads[start : start + max(scan, 0)]
            head = len(self.backing.payloads)
        events: list[LoggedEvent] = []
        scanned_to = start
        for i, payload in enumerate(chunk):
            if len(events) >= limit:
                break
            scanned_to = start + i + 1
            event = self._serializer.decode(payload)
            if event.header.tenant == tenant:
                events.append(LoggedEvent(scanned_to, event))
        return TenantPage(events, scanned_to, scanned_to >= head)

    def read_changes(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int = 0,
    ) -> TenantPage:
        """``read_tenant`` filtered after decoding (a list has no index to skip by)."""
        page = self.read_tenant(tenant, after=after, limit=limit, scan=scan, partition=partition)
        wanted = None if scopes is None else set(scopes)
        kept = [
            e
            for e in page.events
            if isinstance(e.event, MemoryWritten | MemoryStateChanged | MemoryDeleted)
            and (wanted is None or _scope(e.event) in wanted)
        ]
        return TenantPage(kept, page.scanned_to, page.complete)

    def writers(self) -> dict[str, Any]:
        return {}  # every appender writes the list directly

    def last_position(self, partition: int = 0) -> int:
        _single_partition(partition)
        return len(self.backing.payloads)

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        deadline = time.monotonic() + timeout
        with self.backing.appended:
            while len(self.backing.payloads) <= after:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.backing.appended.wait(remaining)
        return True

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        with self.backing.appended:
            found = ((mid, self.backing.heads.get((tenant, mid))) for mid in memory_ids)
            return {mid: head for mid, head in found if head is not None}

    def close(self) -> None:
        pass


def _scope(event: MemoryWritten | MemoryStateChanged | MemoryDeleted) -> str:
    return event.record.scope if isinstance(event, MemoryWritten) else event.scope


def _single_partition(partition: int) -> None:
    if partition != 0:
        raise InvalidInput("partition", "range", "the in-memory log has one partition, 0")


def _update_head(heads: dict[tuple[str, str], Head], event: DomainEvent, position: int) -> None:
    """The write model, exactly as the SQLite log's ``heads`` table keeps it."""
    tenant = event.header.tenant
    if isinstance(event, MemoryWritten):
        r = event.record
        heads[(tenant, r.id)] = Head(
            r.id, r.scope, event.version, event.content_sha256, False, position, r.created_at
        )
    elif isinstance(event, MemoryDeleted):
        old = heads.get((tenant, event.memory_id))
        if old is None:
            heads[(tenant, event.memory_id)] = Head(
                event.memory_id, event.scope, event.version, "", True, position, None
            )
        else:  # a delete keeps the head's version and scope (SQLite: ON CONFLICT … deleted = 1)
            heads[(tenant, event.memory_id)] = replace(old, deleted=True, position=position)
