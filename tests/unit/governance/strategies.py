"""Hypothesis strategies for governance: parameters and governed memories."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import strategies as st

from ai_memory.core.governance import GovernanceParams, GovernedMemory, Slot
from ai_memory.core.record import MemoryState, MemoryType

from .helpers import T0

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
ages = st.floats(min_value=0.0, max_value=3650.0, allow_nan=False)
mentions = st.integers(min_value=0, max_value=10_000)


@st.composite
def params(draw: st.DrawFn) -> GovernanceParams:
    """Random valid weights (α+β+γ+δ = 1) and λ, θ."""
    raw = [draw(st.integers(min_value=0, max_value=100)) for _ in range(4)]
    total = sum(raw) or 1
    weights = [r / total for r in raw] if sum(raw) else [0.25] * 4
    weights[3] = 1.0 - sum(weights[:3])
    return GovernanceParams(
        alpha_importance=weights[0],
        beta_confidence=weights[1],
        gamma_recency=weights[2],
        delta_frequency=max(weights[3], 0.0),
        decay_per_day=draw(st.floats(min_value=1e-4, max_value=2.0)),
        theta=draw(st.floats(min_value=0.0, max_value=0.3)),
        reconsider_archive_margin=0.3,
    )


SLOT = Slot("fact", "residence")
CITIES = ("auckland", "sydney", "tokyo", "berlin")


@st.composite
def slot_memories(draw: st.DrawFn, memory_id: str, day: float) -> GovernedMemory:
    """A statement in the exclusive residence slot at ``day`` with random quality."""
    city = draw(st.sampled_from(CITIES))
    return GovernedMemory(
        memory_id=memory_id,
        memory_type=MemoryType.FACT,
        content=f"I live in {city}",
        importance=draw(unit),
        confidence=draw(unit),
        created_at=T0 + timedelta(days=day),
        slot=SLOT,
        value=city,
        state=MemoryState.ACTIVE,
        mentions=draw(st.integers(min_value=0, max_value=40)),
    )
