"""The pure rule of the two kinds of time (core.bitemporal): visibility and state of a
memory at valid time ``as_of`` as known at recorded time ``known_at``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ai_memory.core.bitemporal import (
    MemoryHistory,
    state_at,
    valid_to,
    validity_bounds,
    was_stated,
)
from ai_memory.core.projection import LineageEntry
from ai_memory.core.record import MemoryState

A, H, R, F = (
    MemoryState.ACTIVE,
    MemoryState.HISTORICAL,
    MemoryState.ARCHIVED,
    MemoryState.FORGOTTEN,
)
SLOT = "fact/residence"
TODAY = datetime(2026, 12, 1, 9, tzinfo=UTC)


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def entry(memory_id: str, second: int, kind: str, **detail: Any) -> LineageEntry:
    at = TODAY.replace(second=second)
    return LineageEntry("default", memory_id, second, at, kind, detail)


def written(memory_id: str, second: int, state: MemoryState = A) -> LineageEntry:
    return entry(memory_id, second, "written", state=state.value, cause="extractor")


def changed(
    memory_id: str, second: int, to: MemoryState, by: str | None = None, frm: MemoryState = A
) -> LineageEntry:
    decision = {"superseded_by": by} if by else {}
    return entry(
        memory_id, second, "state_changed", to=to.value, decision=decision, **{"from": frm.value}
    )


def city(memory_id: str, since: str, *entries: LineageEntry, past: bool = False) -> MemoryHistory:
    return MemoryHistory(
        memory_id, d(since), None, None, entries, slot=SLOT, value=memory_id, past_state=past
    )


# Auckland (2025-01-10), Sydney (2025-06-01), Tokyo (2026-02-01), recorded at seconds 1–3.
AKL = city("auckland", "2025-01-10", written("auckland", 1), changed("auckland", 2, R, "sydney"))
SYD = city("sydney", "2025-06-01", written("sydney", 2), changed("sydney", 3, H, "tokyo"))
TYO = city("tokyo", "2026-02-01", written("tokyo", 3))
TIMELINE = [AKL, SYD, TYO]
STARTS = {h.memory_id: h.valid_from for h in TIMELINE}


def at(h: MemoryHistory, as_of: str | None, known_at: int | None = None) -> MemoryState | None:
    known = None if known_at is None else TODAY.replace(second=known_at)
    timeline = [p for p in TIMELINE if known is None or any(e.at <= known for e in p.entries)]
    return state_at(
        h,
        as_of=None if as_of is None else d(as_of),
        known_at=known,
        timeline=timeline,
        superseder_valid_from=STARTS,
    )


def test_a_superseded_memory_is_active_inside_its_window() -> None:
    assert [at(h, "2025-03-01") for h in TIMELINE] == [A, None, None]
    assert [at(h, "2025-09-01") for h in TIMELINE] == [R, A, None]
    assert [at(h, "2026-05-01") for h in TIMELINE] == [R, H, A]


def test_after_its_window_an_active_memory_is_historical() -> None:
    # An import's edge still active now, but its own window closed: historical then.
    closed = MemoryHistory("c", d("2025-01-10"), d("2025-06-01"), None, [written("c", 1)])
    assert state_at(closed, as_of=d("2025-09-01"), known_at=None) is H
    assert state_at(closed, as_of=d("2025-03-01"), known_at=None) is A


def test_known_at_folds_only_what_was_recorded_by_then() -> None:
    assert [at(h, None, known_at=2) for h in TIMELINE] == [R, A, None]
    assert [at(h, None, known_at=0) for h in TIMELINE] == [None, None, None]
    # Both times: true in late 2026, as known before Tokyo was recorded.
    assert [at(h, "2026-05-01", known_at=2) for h in TIMELINE] == [R, A, None]


def test_a_late_earlier_state_is_closed_by_the_next_one_in_its_slot() -> None:
    tokyo = city("tokyo", "2026-02-01", written("tokyo", 1))
    sydney = city("sydney", "2025-06-01", written("sydney", 2, H), past=True)
    timeline = [tokyo, sydney]
    assert valid_to(sydney, timeline, {}, None) == d("2026-02-01")
    assert state_at(sydney, as_of=d("2025-09-01"), known_at=None, timeline=timeline) is A
    assert state_at(tokyo, as_of=d("2025-09-01"), known_at=None, timeline=timeline) is None


def test_a_restatement_never_becomes_active() -> None:
    first = city("a", "2025-01-10", written("a", 1), changed("a", 3, H, "b"))
    again = MemoryHistory(
        "a2", d("2025-03-01"), None, None, [written("a2", 2, H)], slot=SLOT, value="a"
    )
    later = city("b", "2025-06-01", written("b", 3))
    timeline = [first, later]  # the restatement was never stated: not on the timeline
    assert not was_stated(again, again.entries)
    assert state_at(again, as_of=d("2025-04-01"), known_at=None, timeline=timeline) is H
    assert state_at(first, as_of=d("2025-04-01"), known_at=None, timeline=timeline) is A


def test_forgotten_stays_forgotten_and_expiry_ends_visibility() -> None:
    gone = city("x", "2025-01-10", written("x", 1), changed("x", 2, F))
    assert state_at(gone, as_of=d("2025-03-01"), known_at=None) is F
    assert state_at(gone, as_of=d("2025-03-01"), known_at=TODAY.replace(second=1)) is A
    ttl = MemoryHistory("t", d("2025-01-10"), None, d("2025-02-01"), [written("t", 1)])
    assert state_at(ttl, as_of=d("2025-01-20"), known_at=None) is A
    assert state_at(ttl, as_of=d("2025-02-01"), known_at=None) is None


def test_an_importers_window_is_the_validity() -> None:
    start, end = validity_bounds(
        d("2026-11-30"), {"valid_at": "2024-05-01T00:00:00Z", "invalid_at": "2025-01-01"}
    )
    assert (start, end) == (d("2024-05-01"), d("2025-01-01"))
    assert validity_bounds(d("2026-11-30"), {"valid_at": "not a time"}) == (d("2026-11-30"), None)
    edge = MemoryHistory("e", start, end, None, [written("e", 1, H)])
    assert state_at(edge, as_of=d("2024-06-01"), known_at=None) is A
    assert state_at(edge, as_of=d("2025-06-01"), known_at=None) is H
    assert state_at(edge, as_of=d("2024-01-01"), known_at=None) is None


def test_a_reconfirmed_memory_is_not_closed_by_the_one_it_displaced() -> None:
    # Auckland re-confirmed after Sydney: Auckland active again, Sydney displaced.
    akl = city(
        "auckland",
        "2025-01-10",
        written("auckland", 1),
        changed("auckland", 2, H, "sydney"),
        changed("auckland", 3, A, frm=H),
    )
    syd = city("sydney", "2025-06-01", written("sydney", 2), changed("sydney", 3, H))
    timeline = [akl, syd]
    starts = {"sydney": syd.valid_from}
    now = d("2026-05-01")
    assert valid_to(akl, timeline, starts, None) is None
    kw: dict[str, Any] = {"known_at": None, "timeline": timeline, "superseder_valid_from": starts}
    assert state_at(akl, as_of=now, **kw) is A
    assert state_at(syd, as_of=now, **kw) is H
    # Before the re-confirmation was recorded, Sydney had closed Auckland.
    before = TODAY.replace(second=2)
    assert valid_to(akl, timeline, starts, before) == d("2025-06-01")
