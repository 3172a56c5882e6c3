"""Two kinds of time (``docs/design/TIME.md``): when a memory was *true* (valid time) and
when the system *knew* it (recorded time).

* **valid time** — from the memory's ``created_at`` (an interaction's ``at``), or an
  importer's ``meta["valid_at"]``, until the earliest of: its ``meta["invalid_at"]``, its
  expiry, and the valid-from of the memory that took its place (the next, different value
  in its exclusive slot, or the memory named ``superseded_by`` in its lineage);
* **recorded time** — the ``occurred_at`` of the events in its lineage.

``state_at`` answers "what state did this memory have at valid time ``as_of``, as the
system knew it at ``known_at``": only lineage recorded at or before ``known_at`` counts,
and a memory another one superseded is *active* during its own validity window, because
the supersession takes effect at the valid time of the memory that caused it, not when it
was recorded. Pure: callers fetch the lineage and the slot's peers and pass them in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from .errors import InvalidInput
from .projection import LineageEntry
from .record import MemoryState
from .timeparse import parse_timestamp

A, H, R = MemoryState.ACTIVE, MemoryState.HISTORICAL, MemoryState.ARCHIVED

#: ``meta`` keys of an importer's validity window (Zep/Graphiti edges, Cognee facts).
VALID_FROM_KEY, VALID_TO_KEY = "valid_at", "invalid_at"


@dataclass(frozen=True)
class MemoryHistory:
    """What ``state_at`` needs of one memory: its validity inputs and its lineage.

    ``slot``/``value``: its exclusive slot (None when it has none) and normalised value;
    ``past_state``: governance stored it as an earlier state of its slot (it arrived after
    a newer statement), so it is part of the slot's timeline although never active."""

    memory_id: str
    valid_from: datetime
    declared_valid_to: datetime | None
    expires_at: datetime | None
    entries: Sequence[LineageEntry]
    slot: str | None = None
    value: str | None = None
    past_state: bool = False


def validity_bounds(
    created_at: datetime, meta: Mapping[str, object]
) -> tuple[datetime, datetime | None]:
    """(valid-from, declared valid-to) of a record: an importer's window wins over
    ``created_at``; an unparseable value is ignored (the record was accepted with it)."""
    return _meta_time(meta, VALID_FROM_KEY) or created_at, _meta_time(meta, VALID_TO_KEY)


def _meta_time(meta: Mapping[str, object], key: str) -> datetime | None:
    raw = meta.get(key)
    if raw is None:
        return None
    try:
        return parse_timestamp(raw, field=key)
    except InvalidInput:
        return None


def known_entries(entries: Sequence[LineageEntry], known_at: datetime | None) -> list[LineageEntry]:
    """The lineage recorded at or before ``known_at`` (all of it when None)."""
    return [e for e in entries if known_at is None or e.at <= known_at]


def state_known_at(entries: Sequence[LineageEntry]) -> MemoryState | None:
    """The state the folded lineage leaves; None before the first write or after a delete."""
    state: MemoryState | None = None
    for entry in entries:
        if entry.kind == "written":
            state = MemoryState(entry.detail.get("state", "active"))
        elif entry.kind == "state_changed":
            state = MemoryState(entry.detail["to"])
        elif entry.kind == "deleted":
            state = None
    return state


def was_stated(history: MemoryHistory, entries: Sequence[LineageEntry]) -> bool:
    """Whether the memory ever held as the state of the world: active once, stored as a
    past state, or imported with its own window. A restatement or a statement the θ rule
    found weaker never was, so it never becomes active in valid time either."""
    if history.past_state or history.declared_valid_to is not None:
        return True
    for e in entries:
        if e.kind == "written" and e.detail.get("state", "active") == A.value:
            return True
        if e.kind == "state_changed" and A.value in (e.detail.get("from"), e.detail.get("to")):
            return True
    return False


def superseders(entries: Sequence[LineageEntry]) -> list[str]:
    """Ids of the memories that superseded this one (lineage ``superseded_by``)."""
    out: list[str] = []
    for e in entries:
        decision = e.detail.get("decision") if e.kind == "state_changed" else None
        by = decision.get("superseded_by") if isinstance(decision, dict) else None
        if isinstance(by, str):
            out.append(by)
    return out


def valid_to(
    history: MemoryHistory,
    timeline: Sequence[MemoryHistory],
    superseder_valid_from: Mapping[str, datetime],
    known_at: datetime | None,
) -> datetime | None:
    """When the memory stopped being true, as known at ``known_at``.

    ``timeline``: the stated memories of its exclusive slot known at ``known_at`` (itself
    included or not); the first later one with a different value ends it, whatever order
    they were recorded in. A ``superseded_by`` recorded by then ends it at the
    superseder's valid-from (conflicts outside a slot). A memory active at ``known_at``
    is ended by neither."""
    ends = [t for t in (history.declared_valid_to, history.expires_at) if t is not None]
    known = known_entries(history.entries, known_at)
    if state_known_at(known) is A:
        # The current state of its slot: whatever it lost to before (a later-dated peer,
        # a supersession) was undone when the user re-confirmed it, so nothing closes it.
        return min(ends, default=None)
    if history.slot is not None:
        ends.extend(
            peer.valid_from
            for peer in timeline
            if peer.memory_id != history.memory_id
            and peer.slot == history.slot
            and peer.value != history.value
            and peer.valid_from > history.valid_from
        )
    for by in superseders(known):
        start = superseder_valid_from.get(by)
        if start is not None and start > history.valid_from:
            ends.append(start)
    return min(ends, default=None)


def continues_earlier(history: MemoryHistory, timeline: Sequence[MemoryHistory]) -> bool:
    """Whether the slot already held this value just before: a continuation adds nothing,
    so only the first statement of a run is the state at that time."""
    earlier = [
        p
        for p in timeline
        if p.slot == history.slot
        and p.memory_id != history.memory_id
        and (p.valid_from, p.memory_id) < (history.valid_from, history.memory_id)
    ]
    if history.slot is None or not earlier:
        return False
    latest = max(earlier, key=lambda p: (p.valid_from, p.memory_id))
    return latest.value == history.value


def state_at(
    history: MemoryHistory,
    *,
    as_of: datetime | None,
    known_at: datetime | None,
    timeline: Sequence[MemoryHistory] = (),
    superseder_valid_from: Mapping[str, datetime] | None = None,
) -> MemoryState | None:
    """The memory's state at valid time ``as_of`` as known at ``known_at``; None when it
    was not known yet, was deleted by then, or was not (yet) true at ``as_of``.

    Without ``as_of`` it is the state the system held at ``known_at``. With it, a memory
    is visible only inside its validity window; there a memory closed by a later one
    counts as active (it was the state of the world then) and anything else keeps its state (a
    forgotten memory stays forgotten as known at ``known_at``). After its window it is
    historical at ``as_of``, whatever its state now."""
    entries = known_entries(history.entries, known_at)
    state = state_known_at(entries)
    if state is None or as_of is None:
        return state
    if as_of < history.valid_from:
        return None
    if history.expires_at is not None and history.expires_at <= as_of:
        return None
    end = valid_to(history, timeline, superseder_valid_from or {}, known_at)
    if end is not None and end <= as_of:
        return H if state is A else state
    # Closed later (end > as_of) by a newer state of the world: true at as_of. Without an
    # end a historical memory was demoted for another reason and stays historical.
    if (
        end is not None
        and state in (H, R)
        and was_stated(history, entries)
        and not continues_earlier(history, timeline)
    ):
        return A
    return state
