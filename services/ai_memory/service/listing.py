"""Browsing memories page by page (``GET /v1/memories``): the request as the edges hand
it over, validated field by field, and the page they answer with.

Which scopes a listing may read is the edge's decision (the caller's key); this module
only validates what the caller asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.listing import (
    DEFAULT_LIST_LIMIT,
    check_limit,
    decode_cursor,
    encode_cursor,
)
from ai_memory.core.record import (
    Limits,
    MemoryState,
    MemoryType,
    StoredRecord,
    check_identifier,
    validate_scope,
    validate_type,
)
from ai_memory.core.timeparse import short_repr

MAX_LIST_SCOPES = 16


@dataclass(frozen=True)
class ListRequest:
    scopes: Sequence[str] | None = None
    types: Sequence[MemoryType] | None = None
    states: tuple[MemoryState, ...] = (MemoryState.ACTIVE,)
    tag: str | None = None
    after: str = ""  # decoded from the cursor
    limit: int = DEFAULT_LIST_LIMIT

    @staticmethod
    def parse(
        limits: Limits,
        *,
        scopes: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        tag: str | None = None,
        cursor: str | None = None,
        limit: int = DEFAULT_LIST_LIMIT,
    ) -> ListRequest:
        """Each bad value is an ``InvalidInput`` naming its parameter."""
        if scopes is not None and len(scopes) > MAX_LIST_SCOPES:
            raise InvalidInput("scope", "max_items", f"at most {MAX_LIST_SCOPES} scopes")
        scope_list = None if not scopes else [validate_scope(s, limits) for s in scopes]
        type_list = None if not types else [validate_type(t) for t in dict.fromkeys(types)]
        return ListRequest(
            scopes=scope_list,
            types=type_list,
            states=_states(states),
            tag=_tag(tag, limits),
            after=decode_cursor(cursor),
            limit=check_limit(limit),
        )


@dataclass(frozen=True)
class MemoryPage:
    items: list[StoredRecord]
    next_cursor: str | None

    @staticmethod
    def of(items: list[StoredRecord], next_after: str | None) -> MemoryPage:
        return MemoryPage(items, None if next_after is None else encode_cursor(next_after))

    def to_json(self) -> dict[str, Any]:
        return {"items": [s.to_json() for s in self.items], "next_cursor": self.next_cursor}


def _states(values: Sequence[str] | None) -> tuple[MemoryState, ...]:
    if not values:
        return (MemoryState.ACTIVE,)
    allowed = {s.value for s in MemoryState}
    bad = [v for v in values if v not in allowed]
    if bad:
        raise InvalidInput(
            "state", "enum", f"unknown state(s) {short_repr(bad)}; allowed: {sorted(allowed)}"
        )
    return tuple(MemoryState(v) for v in dict.fromkeys(values))


def _tag(value: str | None, limits: Limits) -> str | None:
    if value is None:
        return None
    tag = value.strip()
    if not tag or len(tag) > limits.max_tag_chars:
        raise InvalidInput(
            "tag", "tag_format", f"tag must be 1–{limits.max_tag_chars} printable characters"
        )
    return check_identifier(tag, "tag")
