from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.core.governance import (
    DictionaryConflictDetector,
    GovernanceParams,
    GovernedMemory,
    Path,
    govern_write,
    plan_governor_pass,
    resolve,
)
from ai_memory.core.governance.resolution import choose_path
from ai_memory.core.governance.slots import RESIDENCE
from ai_memory.core.record import MemoryState

from .helpers import PARAMS, Store, days, memory
from .strategies import params, slot_memories

A, H, R = MemoryState.ACTIVE, MemoryState.HISTORICAL, MemoryState.ARCHIVED


@pytest.mark.parametrize(
    ("s_new", "s_old", "path"),
    [
        (0.8, 0.6, Path.NEW_BETTER),
        (0.7, 0.6, Path.CLOSE),  # exactly θ: close (|Δ| ≤ θ)
        (0.6, 0.7, Path.CLOSE),
        (0.5, 0.7, Path.OLD_STRONGER),
    ],
)
def test_three_paths(s_new: float, s_old: float, path: Path) -> None:
    assert choose_path(s_new, s_old, 0.1 + 1e-12) is path


def test_resolution_carries_transitions_and_breakdowns() -> None:
    old = memory("old", slot=RESIDENCE, value="auckland")
    new = memory("new", slot=RESIDENCE, value="sydney", created_at=days(60))
    r = resolve(new, old, days(60), PARAMS)
    assert r.path is Path.NEW_BETTER and r.new_state is A
    (t,) = r.transitions
    assert (t.memory_id, t.from_state, t.to_state, t.cause) == (
        "old",
        A,
        R,
        "conflict.theta.new_better",
    )
    assert r.margin == pytest.approx(r.new_score.total - r.old_score.total)
    assert '"cause":"conflict.theta.new_better"' in t.decision_json()
    assert t.evidence["old_score"]["memory_id"] == "old"


def test_old_stronger_stores_the_newcomer_historical() -> None:
    old = memory("old", slot=RESIDENCE, value="a", mentions=20)
    new = memory("new", slot=RESIDENCE, value="b", confidence=0.1, importance=0.1)
    r = resolve(new, old, days(0), PARAMS)
    assert (r.path, r.new_state, r.transitions) == (Path.OLD_STRONGER, H, ())
    assert r.cause == "conflict.theta.old_stronger"


def test_no_conflict_writes_active() -> None:
    other = memory("x", slot=None)
    out = govern_write(memory("n", slot=RESIDENCE, value="a"), [other], days(0), PARAMS,
                       DictionaryConflictDetector())  # fmt: skip
    assert out.new_state is A and out.cause == "conflict.none" and out.transitions == ()


@given(
    p=params(),
    steps=st.lists(
        st.tuples(st.floats(min_value=0, max_value=400), st.booleans()), min_size=1, max_size=8
    ),
    data=st.data(),
)
@settings(max_examples=150, deadline=None)
def test_never_two_active_memories_in_an_exclusive_slot(
    p: GovernanceParams, steps: list[tuple[float, bool]], data: st.DataObject
) -> None:
    s = Store(p)
    clock = 0.0
    for i, (gap, governor) in enumerate(steps):
        clock += gap
        new: GovernedMemory = data.draw(slot_memories(f"m{i}", clock))
        outcome = govern_write(new, s.memories.values(), days(clock), p, s.detector)
        s.memories[new.memory_id] = replace(new, state=outcome.new_state)
        s.apply(outcome.transitions)
        # the θ rule: the newcomer is active iff it is not beaten by more than θ
        for r in outcome.resolutions:
            assert (r.new_state is A) == (r.margin >= -p.theta)
        assert len(s.active()) <= 1
        if governor:
            s.apply(plan_governor_pass(list(s.memories.values()), days(clock), p))
            assert len(s.active()) <= 1
