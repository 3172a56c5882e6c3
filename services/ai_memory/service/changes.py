"""The change feed: what changed in some scopes of a tenant, read from the log of record.

Each entry says that a memory was ``written`` (with its version and state),
``state_changed`` (to ``state``) or ``forgotten`` — its id, scope, when and by whom —
and never its content: a subscriber that wants the content reads the memory (and may
be refused it), so the feed leaks nothing a read would not.

**From the log, not the store.** The feed reads the events themselves
(``EventLog.read_changes``): on the embedded log through its tenant index with the
scopes and change types in the query; on Kafka by key (``tenant/scope``), so events of
other scopes are skipped undecoded and a request examines at most
``SCAN_PER_PARTITION`` records per partition, whatever the size of the log (the
in-memory log of tests filters after decoding).

**The cursor** holds one position per partition (``core.positions``: positions of
different partitions are not ordered), sealed and bound to the caller's tenant
(``service.position_tokens``): opaque, unforgeable, refused from another tenant. Entries
show the tenant's position tokens, never log positions (which count every tenant's
events). Every entry carries the cursor
*after* it, so a subscriber that keeps the cursor of the last entry it handled resumes
exactly after it — nothing missed, nothing twice — wherever it was cut off. Entries of
one partition keep log order (all events of one memory are in one partition); partitions
are merged by recorded time.

**Waiting** (long-poll, SSE) is ``LogWatch``: woken by the log advancing, on the event
loop, bounded by the caller's timeout.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import (
    LoggedEvent,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    TenantPage,
)
from ai_memory.core.ports import EventLog

from . import access
from .access import Who
from .log_watch import LogWatch
from .position_tokens import PositionTokens

MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
MAX_TIMEOUT = 60.0  # seconds a long-poll may wait for the first change
DEFAULT_TIMEOUT = 25.0  # under the usual 30 s idle timeout of proxies
SCAN_PER_PARTITION = 5000  # records examined per partition and request (Kafka)
MAX_POSITION = 2**62
_POLL_SECONDS = 0.05  # a blocking wait on a partitioned log re-checks this often
_CURSOR_VERSION = "c1"  # an audit cursor ("a1") is refused here, and the other way round

KINDS = ("written", "state_changed", "forgotten")


@dataclass(frozen=True)
class Change:
    cursor: str  # where a subscriber resumes to get what follows this entry
    kind: str  # written | state_changed | forgotten
    id: str
    scope: str
    version: int | None  # written: the new version; forgotten: the last; state_changed: None
    state: str | None  # written/state_changed: the state after it; forgotten: None
    at: str  # when it happened (ISO 8601)
    actor: str
    position: int  # the reader's token of its log position: min_position=it sees the change

    def to_json(self) -> dict[str, Any]:
        return {
            "cursor": self.cursor,
            "kind": self.kind,
            "id": self.id,
            "scope": self.scope,
            "version": self.version,
            "state": self.state,
            "at": self.at,
            "actor": self.actor,
            "position": self.position,
        }


@dataclass(frozen=True)
class ChangePage:
    changes: list[Change]
    next: str  # resume here for what follows the page (may lie beyond its last entry)
    more: bool  # the log may hold more after ``next`` now: read again without waiting

    def trailer(self) -> dict[str, Any]:
        return {"next": self.next, "more": self.more}


def decode_cursor(
    tokens: PositionTokens,
    who: Who,
    cursor: str,
    partitions: Sequence[int],
    field: str = "since",
) -> dict[int, int]:
    """A cursor → position per partition; one of another log, endpoint or tenant is
    refused, in the same words whatever the reason (sealed: none can be forged)."""
    refusal = InvalidInput(field, "cursor", f"{field} must be a cursor returned by GET /v1/changes")
    return tokens.cursor_positions(_CURSOR_VERSION, who, cursor, partitions, refusal)


def _plain_cursor(cursor: str) -> dict[int, int] | None:
    """The positions of a cursor in the plain form of releases before cursors were
    sealed (``c1|0:55`` in base64url), else None."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        version, *pairs = text.split("|")
        if version != _CURSOR_VERSION or not pairs:
            return None
        positions = {int(p): int(pos) for p, pos in (pair.split(":") for pair in pairs)}
    except (ValueError, UnicodeDecodeError, binascii.Error):
        return None
    if any(not 0 <= pos <= MAX_POSITION for pos in positions.values()):
        return None
    return positions


def change_of(logged: LoggedEvent, cursor: str, position: int) -> Change | None:
    """The feed's entry for an event (None for events that change no memory);
    ``position``: what the reader is shown of the event's log position (its token)."""
    event = logged.event
    at, actor = event.header.occurred_at.isoformat(), event.header.actor
    if isinstance(event, MemoryWritten):
        record = event.record
        return Change(
            cursor,
            "written",
            record.id,
            record.scope,
            event.version,
            event.state.value,
            at,
            actor,
            position,
        )
    if isinstance(event, MemoryStateChanged):
        return Change(
            cursor,
            "state_changed",
            event.memory_id,
            event.scope,
            None,
            event.to_state.value,
            at,
            actor,
            position,
        )
    if isinstance(event, MemoryDeleted):
        return Change(
            cursor,
            "forgotten",
            event.memory_id,
            event.scope,
            event.version,
            None,
            at,
            actor,
            position,
        )
    return None


class ChangeFeed:
    def __init__(self, log: EventLog, tokens: PositionTokens | None = None) -> None:
        self._log = log
        self.watch = LogWatch(log)
        self.tokens = tokens or PositionTokens(None)

    def _heads(self) -> dict[int, int]:
        return {p: self._log.last_position(p) for p in self._log.partitions()}

    def cursor(self, owner: Who, positions: Mapping[int, int]) -> str:
        """The cursor of ``positions`` for ``owner``'s tenant. ``owner`` binds the
        cursors of these helpers to a tenant and authorizes nothing (``page`` judges)."""
        return self.tokens.seal_cursor(_CURSOR_VERSION, owner, positions)

    def start(self, owner: Who) -> str:
        """The cursor of "now": a subscriber starting here sees only what comes next."""
        return self.cursor(owner, self._heads())

    def stored_cursor(self, owner: Who, cursor: str) -> str:
        """A cursor the deployment itself kept (a webhook's delivery state) as it reads
        now: one saved before cursors were sealed — plain ``c1|partition:position|…`` in
        base64 — is sealed for ``owner``; any other is returned as it is. Never applied
        to a cursor a caller sends: a plain cursor from outside would let a tenant place
        itself at a raw position of the log, which sealing exists to prevent."""
        positions = _plain_cursor(cursor)
        if positions is None:
            return cursor
        return self.cursor(owner, positions)

    def positions(self, owner: Who, since: str | None, field: str = "since") -> dict[int, int]:
        """``owner``'s cursor as positions per partition (every partition; 0 = from the
        start); a cursor of another tenant is refused."""
        partitions = self._log.partitions()
        cursor = dict.fromkeys(partitions, 0)
        if since:
            cursor.update(decode_cursor(self.tokens, owner, since, partitions, field))
        return cursor

    def scopes(self, who: Who, requested: Sequence[str] | None) -> list[str] | None:
        """The scopes ``who`` may follow of ``requested`` (None: every scope it may read),
        or ``Forbidden`` — asked before a stream starts, so a refusal is a plain error."""
        caller = access.caller_of(who)
        access.require_role(caller, "read")
        return access.readable(caller, requested)

    def page(
        self,
        who: Who,
        scopes: Sequence[str] | None,
        *,
        since: str | None = None,
        limit: int = DEFAULT_LIMIT,
        field: str = "since",
    ) -> ChangePage:
        """The changes after ``since`` (from the start of the log without it) in
        ``scopes`` (every scope ``who`` may read when None), at most ``limit``. Judged
        on every page: a follower whose key lost its rights stops at the next one."""
        tenant = access.caller_of(who).tenant
        scopes = self.scopes(who, scopes)
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInput("limit", "range", f"limit must be 1-{MAX_LIMIT}")
        cursor = self.positions(who, since, field)
        pages = {p: self._read(tenant, scopes, cursor[p], limit, p, field) for p in cursor}
        walked = dict(cursor)
        changes: list[Change] = []
        cut = False
        for partition, logged in _by_time(pages):
            if len(changes) >= limit:
                cut = True
                break
            walked[partition] = logged.position
            shown = self.tokens.shown(who, logged.position)
            change = change_of(logged, self.cursor(who, walked), shown)
            if change is not None:
                changes.append(change)
        more = cut
        for partition, page in pages.items():
            if not page.events or walked[partition] == page.events[-1].position:
                walked[partition] = max(walked[partition], page.scanned_to)  # consumed whole
                more = more or not page.complete
            else:
                more = True
        return ChangePage(changes, self.cursor(who, walked), more)

    async def wait(self, owner: Who, cursor: str, timeout: float) -> bool:
        """True once the log has something after ``owner``'s ``cursor`` (in any scope: the
        next page tells whether it is for this subscriber); False after ``timeout``."""
        return await self.watch.wait_beyond(self.positions(owner, cursor), timeout)

    def wait_blocking(self, owner: Who, cursor: str, timeout: float) -> bool:
        """``wait`` for a caller without an event loop (the in-process client)."""
        positions = self.positions(owner, cursor)
        deadline = time.monotonic() + timeout
        while True:
            if any(self._log.last_position(p) > pos for p, pos in positions.items()):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if len(positions) == 1:  # the embedded log: woken by the append itself
                [(partition, after)] = positions.items()
                return self._log.wait_for_events(
                    after=after, timeout=remaining, partition=partition
                )
            time.sleep(min(_POLL_SECONDS, remaining))

    def close(self) -> None:
        self.watch.close()

    def _read(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        after: int,
        limit: int,
        partition: int,
        field: str,
    ) -> TenantPage:
        try:
            return self._log.read_changes(
                tenant,
                scopes,
                after=after,
                limit=limit,
                scan=SCAN_PER_PARTITION,
                partition=partition,
            )
        except InvalidInput as e:  # a position of another partition: a forged cursor
            raise InvalidInput(field, "cursor", f"{field} is not a cursor of this log ({e})") from e


def _by_time(pages: dict[int, TenantPage]) -> Iterator[tuple[int, LoggedEvent]]:
    """Every page's events by recorded time; each partition stays in log order (the
    cursor of a partition is "consumed up to here", so none may be overtaken)."""
    streams = [[(p, e) for e in page.events] for p, page in sorted(pages.items())]
    return heapq.merge(*streams, key=lambda pe: (pe[1].event.header.occurred_at, pe[0]))
