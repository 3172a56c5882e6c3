"""The audit trail: who did what in a tenant, read from the log of record.

Every change is an event carrying its authenticated actor (``key:<id>``), so the log
already is the audit trail; this service lists it for one tenant: position, time
recorded, actor, action, memory ids and scope — never content.

**Cost.** The log is read, not a copy of it, so a request must never scan it whole:

* the tenant filter is part of the read (``EventLog.read_tenant``): the embedded log
  walks an index on ``(tenant, position)``, touching only the tenant's rows; a Kafka
  partition has no index by key, so at most ``SCAN_PER_PARTITION`` records are examined
  per partition and request (other tenants' records are skipped by key, undecoded);
* at most ``limit`` (≤ ``MAX_LIMIT``) entries per page, and a cursor (``next``) to
  continue: one request costs O(limit) on the embedded log and at most O(partitions ×
  SCAN_PER_PARTITION) record reads on Kafka, whatever the size of the log.

``actor`` and ``action`` filter the tenant's page after decoding, so a filtered page may
hold fewer than ``limit`` entries (even none) while ``more`` is true: continue from
``next``.

**The cursor** holds one position per partition (``core.positions``): on a partitioned
log positions of different partitions are not ordered, so "everything up to here" is a
position per partition. A page merges the partitions by recorded time while keeping each
partition in log order, and ``next`` records how far each partition was consumed. It is
sealed and bound to the caller's tenant (``service.position_tokens``: opaque,
unforgeable, refused from another tenant) and also serves to follow the trail: a client
that keeps the last ``next`` reads only what was appended since. Entries show the
caller's position tokens, never log positions (which count every tenant's events).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import (
    DomainEvent,
    InteractionRecorded,
    LoggedEvent,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    SubjectErased,
)
from ai_memory.core.ports import EventLog
from ai_memory.service import access
from ai_memory.service.access import Who
from ai_memory.service.position_tokens import PositionTokens

MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
SCAN_PER_PARTITION = 5000  # records examined per partition and request (Kafka)
MAX_ACTOR_CHARS = 200

ACTIONS: dict[type[Any], str] = {
    MemoryWritten: "written",
    MemoryDeleted: "forgotten",
    MemoryStateChanged: "state_changed",
    MemoriesRecalled: "recalled",
    MemoriesImported: "imported",
    InteractionRecorded: "interaction_recorded",
    SubjectErased: "erased",
}
ACTION_NAMES: tuple[str, ...] = tuple(ACTIONS.values())
_CURSOR_VERSION = "a1"


@dataclass(frozen=True)
class AuditEntry:
    position: int
    time: str  # when the event was recorded (ISO 8601)
    actor: str
    action: str
    memory_ids: tuple[str, ...]
    scope: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "time": self.time,
            "actor": self.actor,
            "action": self.action,
            "memory_ids": list(self.memory_ids),
            "scope": self.scope,
        }


@dataclass(frozen=True)
class AuditPage:
    tenant: str
    entries: list[AuditEntry]
    next: str  # the cursor to continue from (pass it as ``since``)
    more: bool  # whether the log may hold more of the tenant's events after ``next``

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "entries": [e.to_json() for e in self.entries],
            "next": self.next,
            "more": self.more,
        }


def entry_of(logged: LoggedEvent, position: int) -> AuditEntry:
    """What the trail shows of an event: who, what, which ids — never content;
    ``position``: what the reader is shown of its log position (its token)."""
    event = logged.event
    return AuditEntry(
        position=position,
        time=event.header.occurred_at.isoformat(),
        actor=event.header.actor,
        action=ACTIONS[type(event)],
        memory_ids=_memory_ids(event),
        scope=_scope(event),
    )


def _scope(event: DomainEvent) -> str | None:
    if isinstance(event, MemoryWritten):
        return event.record.scope
    if isinstance(event, MemoriesImported | SubjectErased):
        return None  # a batch spans scopes; its records have entries of their own
    return event.scope


def _memory_ids(event: DomainEvent) -> tuple[str, ...]:
    if isinstance(event, MemoryWritten):
        return (event.record.id,)
    if isinstance(event, MemoryDeleted | MemoryStateChanged):
        return (event.memory_id,)
    if isinstance(event, MemoriesRecalled | SubjectErased):
        return event.memory_ids
    return ()


def decode_cursor(
    tokens: PositionTokens, who: Who, cursor: str, partitions: Sequence[int]
) -> dict[int, int]:
    """``since`` → position per partition; a cursor of another log, endpoint or tenant
    is refused (in the same words whatever the reason)."""
    refusal = InvalidInput(
        "since", "cursor", "since must be a cursor returned as next by this endpoint"
    )
    return tokens.cursor_positions(_CURSOR_VERSION, who, cursor, partitions, refusal)


class AuditService:
    def __init__(self, log: EventLog, tokens: PositionTokens | None = None) -> None:
        self._log = log
        self.tokens = tokens or PositionTokens(None)

    def page(
        self,
        who: Who,
        *,
        tenant: str | None = None,
        since: str | None = None,
        actor: str | None = None,
        action: str | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> AuditPage:
        """One page of a tenant's trail after ``since`` (from the start without it): an
        admin reads its own tenant's, an operator names the ``tenant`` it reads."""
        tenant = access.audited_tenant(access.caller_of(who), tenant)
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInput("limit", "range", f"limit must be 1-{MAX_LIMIT}")
        if action is not None and action not in ACTION_NAMES:
            raise InvalidInput("action", "enum", f"action must be one of {', '.join(ACTION_NAMES)}")
        if actor is not None and not 1 <= len(actor) <= MAX_ACTOR_CHARS:
            raise InvalidInput("actor", "length", f"actor must be 1-{MAX_ACTOR_CHARS} characters")
        partitions = self._log.partitions()
        cursor = {p: 0 for p in partitions}
        if since:
            cursor.update(decode_cursor(self.tokens, who, since, partitions))
        pages = {p: self._read(tenant, cursor[p], limit, p) for p in partitions}
        walked = dict(cursor)
        entries: list[AuditEntry] = []
        cut = False
        for partition, logged in _by_time(pages):
            if len(entries) >= limit:
                cut = True
                break
            walked[partition] = logged.position
            entry = entry_of(logged, self.tokens.shown(who, logged.position))
            if (actor is None or entry.actor == actor) and (
                action is None or entry.action == action
            ):
                entries.append(entry)
        more = cut
        for partition, (events, scanned_to, complete) in pages.items():
            if not events or walked[partition] == events[-1].position:
                walked[partition] = max(walked[partition], scanned_to)  # consumed whole
                more = more or not complete
            else:
                more = True
        next_cursor = self.tokens.seal_cursor(_CURSOR_VERSION, who, walked)
        return AuditPage(tenant, entries, next_cursor, more)

    def _read(
        self, tenant: str, after: int, limit: int, partition: int
    ) -> tuple[list[LoggedEvent], int, bool]:
        try:
            page = self._log.read_tenant(
                tenant, after=after, limit=limit, scan=SCAN_PER_PARTITION, partition=partition
            )
        except InvalidInput as e:  # a position of another partition: a forged cursor
            raise InvalidInput("since", "cursor", f"since is not a cursor of this log ({e})") from e
        return page.events, page.scanned_to, page.complete


def _by_time(
    pages: dict[int, tuple[list[LoggedEvent], int, bool]],
) -> Iterator[tuple[int, LoggedEvent]]:
    """Every page's events by recorded time; each partition stays in log order (the
    cursor of a partition is "consumed up to here", so none may be overtaken)."""
    streams = [[(p, e) for e in events] for p, (events, _, _) in sorted(pages.items())]
    return heapq.merge(*streams, key=lambda pe: (pe[1].event.header.occurred_at, pe[0]))
