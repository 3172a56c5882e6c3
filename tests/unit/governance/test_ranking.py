from __future__ import annotations

import pytest

from ai_memory.core.governance import Candidate, rerank
from ai_memory.core.governance.ranking import explain
from ai_memory.core.record import MemoryType

from .helpers import PARAMS, days


def test_final_score_is_the_weighted_sum() -> None:
    c = Candidate("p", 0.8, MemoryType.PREFERENCE, days(0), read_count=4)
    e = explain(c, days(30), PARAMS)
    assert e.total == pytest.approx(0.6 * 0.8 + 0.25 * 0.5 + 0.15 * 1.0)
    assert [(x.name, x.weight) for x in e.components] == [
        ("relevance", 0.6),
        ("recency", 0.25),
        ("type_priority", 0.15),
    ]
    assert e.inputs["read_count"] == 4 and e.inputs["type"] == "preference"
    assert e.to_json()["components"][0]["contribution"] == pytest.approx(0.48)


def test_keeps_only_the_return_size_and_prefers_preferences() -> None:
    now = days(0)
    cands = [Candidate(f"i{k}", 0.9, MemoryType.INTERACTION, now) for k in range(10)]
    cands.append(Candidate("pref", 0.9, MemoryType.PREFERENCE, now))
    out = rerank(cands, now, PARAMS)
    assert len(out) == PARAMS.return_size and out[0].memory_id == "pref"
    assert [r.memory_id for r in out[1:]] == ["i0", "i1", "i2", "i3"]  # ties by id
    assert len(rerank(cands, now, PARAMS, limit=3)) == 3


def test_ties_break_by_read_count_and_duplicates_merge() -> None:
    now = days(0)
    out = rerank(
        [
            Candidate("a", 0.5, MemoryType.FACT, now, read_count=1),
            Candidate("b", 0.5, MemoryType.FACT, now, read_count=9),
            Candidate("a", 0.7, MemoryType.FACT, now, read_count=1),
        ],
        now,
        PARAMS,
    )
    assert [r.memory_id for r in out] == ["a", "b"]
    assert out[0].explanation.inputs["relevance"] == 0.7


def test_relevance_is_clamped_and_recency_decays() -> None:
    old = explain(Candidate("o", 1.5, MemoryType.FACT, days(0)), days(60), PARAMS)
    assert old.relevance.value == 1.0 and old.recency.value == pytest.approx(0.25)
    nan = explain(Candidate("n", float("nan"), MemoryType.FACT, days(0)), days(0), PARAMS)
    assert nan.relevance.value == 0.0
    with pytest.raises(ValueError):
        rerank([], days(0), PARAMS, limit=-1)
