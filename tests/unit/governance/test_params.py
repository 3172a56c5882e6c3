from __future__ import annotations

import math

import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.core.governance import GovernanceParams
from ai_memory.core.record import MemoryType


def test_defaults_are_the_documented_ones() -> None:
    p = GovernanceParams()
    assert math.isclose(
        p.alpha_importance + p.beta_confidence + p.gamma_recency + p.delta_frequency, 1.0
    )
    assert p.frequency_saturation == pytest.approx(math.e**3 - 1)
    assert p.half_life_days == pytest.approx(30.0)
    assert (p.rank_relevance_weight, p.rank_recency_weight, p.rank_type_weight) == (
        0.6,
        0.25,
        0.15,
    )
    assert p.type_priority[MemoryType.PREFERENCE] > p.type_priority[MemoryType.INTERACTION]
    assert p.type_priority[MemoryType.TASK] > p.type_priority[MemoryType.INTERACTION]
    assert 20 <= p.recall_k <= 50 and 3 <= p.return_size <= 8


def test_weights_must_sum_to_one() -> None:
    with pytest.raises(InvalidInput) as err:
        GovernanceParams(alpha_importance=0.5)
    assert err.value.rule == "sum_to_one"


@pytest.mark.parametrize(
    ("config", "field", "rule"),
    [
        ({"theta": -0.1}, "theta", "range"),
        ({"lambda": 0}, "decay_per_day", "positive"),
        ({"half_life_days": "thirty"}, "half_life_days", "number"),
        ({"colour": 1}, "colour", "unknown_parameter"),
        ({"return_size": 20}, "return_size", "range"),
        ({"recall_k": 5.5}, "recall_k", "integer"),
        ({"type_priority": {"gossip": 1.0}}, "type_priority.gossip", "memory_type"),
        ({"tau_forget": True}, "tau_forget", "number"),
        (
            {"theta": 0.3, "reconsider_archive_margin": 0.2},
            "reconsider_archive_margin",
            "at_least_theta",
        ),
    ],
)
def test_from_mapping_names_the_bad_key(config: dict[str, object], field: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as err:
        GovernanceParams.from_mapping(config)
    assert (err.value.field, err.value.rule) == (field, rule)


def test_from_mapping_accepts_aliases_and_partial_type_maps() -> None:
    p = GovernanceParams.from_mapping(
        {
            "alpha": 0.4,
            "beta": 0.2,
            "gamma": 0.25,
            "delta": 0.15,
            "half_life_days": 7,
            "theta": 0.05,
            "type_priority": {"skill": 0.9},
            "return_size": 8,
        }
    )
    assert p.alpha_importance == 0.4 and p.theta == 0.05 and p.return_size == 8
    assert p.half_life_days == pytest.approx(7.0)
    assert p.type_priority[MemoryType.SKILL] == 0.9
    assert p.type_priority[MemoryType.PREFERENCE] == 1.0
    assert GovernanceParams.from_mapping({}) == GovernanceParams()


def test_to_json_is_plain_json() -> None:
    body = GovernanceParams().to_json()
    assert body["theta"] == 0.1
    assert body["type_priority"]["preference"] == 1.0
