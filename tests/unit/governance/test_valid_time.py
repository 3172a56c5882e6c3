"""Governance takes effect in valid time: a statement dated before the active one of its
exclusive slot (it arrived late) is an earlier state — stored historical, it supersedes
nothing — so the current state is the latest-dated statement whatever the arrival order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.core.governance import DictionaryConflictDetector, govern_write
from ai_memory.core.governance.resolution import CAUSE_PAST_STATE
from ai_memory.core.governance.slots import RESIDENCE
from ai_memory.core.record import MemoryState

from .helpers import PARAMS, Store, days, memory

CITIES = {
    "auckland": ("I live in Auckland.", 0.0),
    "sydney": ("I moved to Sydney.", 142.0),
    "tokyo": ("Now I live in Tokyo.", 387.0),
    "lisbon": ("I moved to Lisbon.", 500.0),
}


def test_an_older_statement_arriving_late_supersedes_nothing() -> None:
    newer = memory("tokyo", slot=RESIDENCE, value="tokyo", created_at=days(387))
    older = memory("sydney", slot=RESIDENCE, value="sydney", created_at=days(142))
    out = govern_write(older, [newer], days(600), PARAMS, DictionaryConflictDetector())
    assert out.new_state is MemoryState.HISTORICAL
    assert out.cause == CAUSE_PAST_STATE and out.transitions == ()


@given(order=st.permutations(sorted(CITIES)))
@settings(max_examples=60, deadline=None)
def test_the_latest_dated_statement_is_current_whatever_the_arrival_order(
    order: list[str],
) -> None:
    store = Store()
    for name in order:
        text, day = CITIES[name]
        store.say(name, text, days(day))
        assert len(store.active()) == 1
    assert store.active() == ["lisbon"]
