"""Browsing a tenant's memories: the query a record store answers page by page, and the
opaque cursor that carries a listing from one page to the next.

A listing is ordered by memory id and continues *after* the last id of the previous page
(keyset pagination): no offset to drift when memories are written between pages, so
every memory that matches the filters throughout the listing is visited exactly once,
and one written behind the cursor is simply not visited.

The cursor is ``base64url("1:" + last id)``: opaque to callers (its form may change with
the version prefix), yet carrying nothing a caller could not read anyway — the id of a
memory they already received. It is never trusted for access: the tenant and the scopes
come from the caller's key on every page.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from .errors import InvalidInput
from .record import MemoryState, MemoryType, StoredRecord

DEFAULT_LIST_LIMIT = 50
MAX_LIST_LIMIT = 1000
_CURSOR_VERSION = "1:"
_MAX_CURSOR_CHARS = 2048


@dataclass(frozen=True)
class ListQuery:
    """One page of a tenant's memories. ``scopes`` None means every scope of the tenant
    (open mode or an admin key); otherwise only those scopes are read — the store filters
    them in its query, never after reading."""

    tenant: str
    scopes: Sequence[str] | None = None
    types: Sequence[MemoryType] | None = None
    states: Sequence[MemoryState] = (MemoryState.ACTIVE,)
    tag: str | None = None
    after: str = ""  # the last id of the previous page ("" from the start)
    limit: int = DEFAULT_LIST_LIMIT
    now: datetime | None = None  # memories expired by ``now`` are left out (None: keep all)

    def matches(self, stored: StoredRecord) -> bool:
        """The filters as a predicate, for stores that cannot express them in a query
        (the in-memory store, and Cassandra for everything but scope and id)."""
        r = stored.record
        return (
            stored.tenant == self.tenant
            and r.id > self.after
            and (self.scopes is None or r.scope in self.scopes)
            and (self.types is None or r.type in self.types)
            and stored.state in self.states
            and (self.tag is None or self.tag in r.tags)
            and (self.now is None or not r.is_expired(self.now))
        )


@dataclass(frozen=True)
class RecordPage:
    """A page of a listing, in id order. ``next_after`` is where the next page starts;
    None when the listing is complete. A page may hold fewer than ``limit`` items (even
    none) and still have a next one: a store may bound how much it examines per page."""

    items: list[StoredRecord] = field(default_factory=list)
    next_after: str | None = None


def encode_cursor(after: str) -> str:
    raw = (_CURSOR_VERSION + after).encode("utf-8")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str | None) -> str:
    """The id a cursor continues after ("" for no cursor); ``InvalidInput`` on ``cursor``
    for anything this service did not hand out."""
    if not cursor:
        return ""
    bad = InvalidInput(
        "cursor", "cursor_format", "cursor is not a cursor this API returned (next_cursor)"
    )
    if len(cursor) > _MAX_CURSOR_CHARS or not cursor.isascii():
        raise bad
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        raise bad from None
    if not text.startswith(_CURSOR_VERSION) or len(text) == len(_CURSOR_VERSION):
        raise bad
    return text[len(_CURSOR_VERSION) :]


def check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST_LIMIT:
        raise InvalidInput("limit", "range", f"limit must be an integer in 1..{MAX_LIST_LIMIT}")
    return limit
