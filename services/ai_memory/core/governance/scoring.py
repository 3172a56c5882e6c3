"""Temporal memory scoring: ``S(m) = α·I + β·C + γ·R + δ·F``.

* ``R = e^(−λ·Δt)`` with Δt in days since the memory was last stated or recalled;
* ``F = min(log(1+n) / log(1+N), 1)`` with n mentions and saturation N (e³−1 by default).

I, C, R, F ∈ [0, 1] and α+β+γ+δ = 1, so S ∈ [0, 1]: the θ rule and τ_forget share one
scale. The result is a ``ScoreBreakdown`` — every component with its weight, value and
contribution plus the raw inputs — so a decision can be explained and recorded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .model import GovernedMemory
from .params import GovernanceParams

_SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class Component:
    name: str
    weight: float
    value: float
    contribution: float  # weight · value

    def to_json(self) -> dict[str, float | str]:
        return {
            "name": self.name,
            "weight": self.weight,
            "value": self.value,
            "contribution": self.contribution,
        }


@dataclass(frozen=True)
class ScoreBreakdown:
    memory_id: str
    importance: Component
    confidence: Component
    recency: Component
    frequency: Component
    total: float
    age_days: float  # Δt
    mentions: int  # n

    @property
    def components(self) -> tuple[Component, ...]:
        return (self.importance, self.confidence, self.recency, self.frequency)

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "total": self.total,
            "age_days": self.age_days,
            "mentions": self.mentions,
            "components": [c.to_json() for c in self.components],
        }


def age_days(reference: datetime, now: datetime) -> float:
    """Days from ``reference`` to ``now``; never negative (a clock skew is age 0)."""
    return max((now - reference).total_seconds() / _SECONDS_PER_DAY, 0.0)


def recency(delta_days: float, decay_per_day: float) -> float:
    """R = e^(−λ·Δt), in (0, 1]."""
    return math.exp(-decay_per_day * max(delta_days, 0.0))


def frequency(mentions: float, saturation: float) -> float:
    """F = min(log(1+n) / log(1+N), 1), in [0, 1]."""
    return min(math.log1p(max(mentions, 0)) / math.log1p(saturation), 1.0)


def score(memory: GovernedMemory, now: datetime, params: GovernanceParams) -> ScoreBreakdown:
    """The full time-aware score of ``memory`` at ``now``."""
    dt = age_days(memory.reference_time, now)
    parts = (
        _component("importance", params.alpha_importance, memory.importance),
        _component("confidence", params.beta_confidence, memory.confidence),
        _component("recency", params.gamma_recency, recency(dt, params.decay_per_day)),
        _component(
            "frequency",
            params.delta_frequency,
            frequency(memory.mentions, params.frequency_saturation),
        ),
    )
    total = min(max(math.fsum(c.contribution for c in parts), 0.0), 1.0)
    return ScoreBreakdown(
        memory_id=memory.memory_id,
        importance=parts[0],
        confidence=parts[1],
        recency=parts[2],
        frequency=parts[3],
        total=total,
        age_days=dt,
        mentions=memory.mentions,
    )


def _component(name: str, weight: float, value: float) -> Component:
    return Component(name=name, weight=weight, value=value, contribution=weight * value)
