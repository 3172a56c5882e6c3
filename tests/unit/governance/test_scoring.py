from __future__ import annotations

import math
from dataclasses import replace
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.governance import GovernanceParams, score
from ai_memory.core.governance.scoring import frequency, recency

from .helpers import PARAMS, T0, days, memory
from .strategies import ages, mentions, params, unit


def test_breakdown_matches_the_formula() -> None:
    m = memory("m", importance=0.8, confidence=0.9, mentions=1)
    b = score(m, days(30), PARAMS)
    assert b.recency.value == pytest.approx(0.5)
    assert b.frequency.value == pytest.approx(math.log(2) / 3)
    expected = 0.3 * 0.8 + 0.3 * 0.9 + 0.25 * 0.5 + 0.15 * math.log(2) / 3
    assert b.total == pytest.approx(expected)
    assert [c.name for c in b.components] == ["importance", "confidence", "recency", "frequency"]
    assert sum(c.contribution for c in b.components) == pytest.approx(b.total)
    assert b.age_days == pytest.approx(30) and b.mentions == 1
    assert b.to_json()["components"][2]["weight"] == 0.25


def test_recency_runs_from_the_last_restatement() -> None:
    m = memory("m", last_seen_at=days(20))
    assert score(m, days(20), PARAMS).recency.value == 1.0
    assert score(memory("m", last_seen_at=T0 - timedelta(days=1)), T0, PARAMS).age_days == 0


def test_frequency_saturates_at_n() -> None:
    assert frequency(math.e**3 - 1, math.e**3 - 1) == pytest.approx(1.0)
    assert frequency(19, 19) == 1.0
    assert frequency(10_000, PARAMS.frequency_saturation) == 1.0
    assert frequency(0, PARAMS.frequency_saturation) == 0.0


def test_future_timestamps_count_as_now() -> None:
    assert score(memory("m", created_at=days(5)), T0, PARAMS).recency.value == 1.0


@given(p=params(), i=unit, c=unit, n=mentions, age=ages)
def test_score_is_bounded(p: GovernanceParams, i: float, c: float, n: int, age: float) -> None:
    m = memory("m", importance=i, confidence=c, mentions=n)
    total = score(m, T0 + timedelta(days=age), p).total
    assert 0.0 <= total <= 1.0


@given(p=params(), n=mentions, extra=st.integers(min_value=1, max_value=1000), age=ages)
def test_score_is_monotone_in_mentions(p: GovernanceParams, n: int, extra: int, age: float) -> None:
    now = T0 + timedelta(days=age)
    low = score(memory("m", mentions=n), now, p).total
    high = score(memory("m", mentions=n + extra), now, p).total
    assert high >= low


@given(p=params(), age=ages, more=st.floats(min_value=0.001, max_value=1000))
def test_score_decreases_with_age(p: GovernanceParams, age: float, more: float) -> None:
    m = memory("m")
    young = score(m, T0 + timedelta(days=age), p).total
    old = score(m, T0 + timedelta(days=age + more), p).total
    assert old <= young
    assert recency(age + more, p.decay_per_day) <= recency(age, p.decay_per_day)


@given(n=mentions)
def test_frequency_is_in_unit_interval(n: int) -> None:
    f = frequency(n, PARAMS.frequency_saturation)
    assert 0.0 <= f <= 1.0
    assert (f == 1.0) == (n >= 20)


def test_memory_validation() -> None:
    with pytest.raises(ValueError):
        memory("m", importance=1.5)
    with pytest.raises(ValueError):
        replace(memory("m"), mentions=-1)
