from __future__ import annotations

from datetime import timedelta

import pytest

from ai_memory.core.governance import (
    ALLOWED_TRANSITIONS,
    IllegalTransition,
    Transition,
    check_transition,
    forget_check,
    from_stored,
    is_allowed,
    plan_governor_pass,
    reconfirm,
)
from ai_memory.core.governance.slots import RESIDENCE
from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType, StoredRecord

from .helpers import PARAMS, T0, days, memory

A, H, R, F = MemoryState.ACTIVE, MemoryState.HISTORICAL, MemoryState.ARCHIVED, MemoryState.FORGOTTEN


def test_transition_table() -> None:
    assert ALLOWED_TRANSITIONS[R] == frozenset()  # archived never returns
    assert ALLOWED_TRANSITIONS[F] == {A}
    assert is_allowed(None, H) and not is_allowed(None, F)
    assert is_allowed(A, F) and is_allowed(H, A) and not is_allowed(R, A)
    with pytest.raises(IllegalTransition) as err:
        check_transition(Transition("m", R, A, "reconfirmed"))
    assert err.value.code == "illegal_transition"


def test_ttl_expiry_comes_first() -> None:
    m = memory("m", expires_at=days(1))
    t = forget_check(m, days(1), PARAMS)
    assert t is not None and (t.to_state, t.cause) == (F, "ttl.expired")
    assert forget_check(m, days(1) - timedelta(seconds=1), PARAMS) is None


def test_forgetting_is_for_active_and_historical_only() -> None:
    weak = memory("m", importance=0.0, confidence=0.0)
    assert forget_check(weak, days(365), PARAMS) is not None
    t = forget_check(memory("h", importance=0.0, confidence=0.0, state=H), days(365), PARAMS)
    assert t is not None and t.from_state is H
    assert forget_check(memory("r", importance=0.0, state=R), days(365), PARAMS) is None
    assert forget_check(memory("f", importance=0.0, state=F), days(365), PARAMS) is None
    assert forget_check(memory("ok"), days(365), PARAMS) is None  # I=0.8, C=0.9 persists


def test_reconfirm_refuses_archived_and_expired() -> None:
    with pytest.raises(IllegalTransition):
        reconfirm(memory("r", state=R), [], days(1))
    with pytest.raises(IllegalTransition):
        reconfirm(memory("f", state=F, expires_at=days(1)), [], days(2))
    assert reconfirm(memory("a"), [], days(1)) == ()


def test_governor_repairs_duplicate_actives() -> None:
    a = memory("a", slot=RESIDENCE, value="x", confidence=0.9)
    b = memory("b", slot=RESIDENCE, value="y", confidence=0.2)
    planned = plan_governor_pass([b, a], days(0), PARAMS)
    assert [(t.memory_id, t.to_state, t.cause) for t in planned] == [
        ("b", H, "slot.duplicate_active")
    ]


def test_governor_ignores_older_historical_memories() -> None:
    old = memory("old", slot=RESIDENCE, value="x", state=H, mentions=50, last_seen_at=days(99))
    cur = memory("cur", slot=RESIDENCE, value="y", created_at=days(10), confidence=0.1)
    assert plan_governor_pass([old, cur], days(100), PARAMS) == []


def test_from_stored_reads_governance_meta() -> None:
    record = MemoryRecord(
        id="m1",
        type=MemoryType.FACT,
        content="I live in Tokyo",
        scope="user:alice",
        source_agent="a",
        created_at=T0,
        ttl=3600,
        meta={"governance": {"slot": "fact/residence", "value": "Tokyo", "importance": 0.9,
                             "confidence": 2, "mentions": 2}},
    )  # fmt: skip
    stored = StoredRecord("t", record, 1, H, "sha", T0, 7, read_count=3, last_read_at=days(2))
    g = from_stored(stored)
    assert (g.slot, g.value, g.importance, g.confidence) == (RESIDENCE, "tokyo", 0.9, 1.0)
    assert (g.mentions, g.state, g.reference_time) == (5, H, days(2))
    assert g.expires_at == T0 + timedelta(hours=1)
    bare = from_stored(StoredRecord("t", record.__class__(**{**record.__dict__, "meta": {}}),
                                    1, A, "sha", T0, 7))  # fmt: skip
    assert bare.slot is None and bare.importance == PARAMS.default_importance[MemoryType.FACT]
    assert bare.confidence == PARAMS.default_confidence and bare.mentions == 1
