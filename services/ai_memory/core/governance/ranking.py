"""Two-stage retrieval, second stage: rerank recalled candidates (docs/API.md, "Search").

Stage one (hybrid search) recalls ``recall_k`` candidates (20–50) with a relevance score
normalised to [0, 1]. Stage two scores each

    final = 0.6 · relevance + 0.25 · recency + 0.15 · type_priority   (weights configurable)

with recency = e^(−λ_rank · age in days) and type priority from ``GovernanceParams``
(preferences and tasks above interaction traces), and keeps only the top ``return_size``
(3–8): few and precise beats many and noisy. Every result carries an ``Explanation``.
Ties break by read count (more recalled first), then id — the order is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..record import MemoryType
from .params import GovernanceParams
from .scoring import Component, age_days, recency


@dataclass(frozen=True)
class Candidate:
    memory_id: str
    relevance: float  # from hybrid search, normalised to [0, 1]
    memory_type: MemoryType
    created_at: datetime
    read_count: int = 0


@dataclass(frozen=True)
class Explanation:
    relevance: Component
    recency: Component
    type_priority: Component
    total: float
    inputs: dict[str, Any]  # relevance, type, created_at, age_days, read_count

    @property
    def components(self) -> tuple[Component, ...]:
        return (self.relevance, self.recency, self.type_priority)

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "components": [c.to_json() for c in self.components],
            "inputs": dict(self.inputs),
        }


@dataclass(frozen=True)
class Ranked:
    memory_id: str
    score: float
    explanation: Explanation


def _values(candidate: Candidate, now: datetime, params: GovernanceParams) -> tuple[float, ...]:
    """(age in days, relevance, recency, type priority): what the total is made of."""
    rel = min(max(candidate.relevance, 0.0), 1.0) if math.isfinite(candidate.relevance) else 0.0
    age = age_days(candidate.created_at, now)
    rec = recency(age, params.rank_decay_per_day)
    return age, rel, rec, params.type_priority[candidate.memory_type]


def _total(values: tuple[float, ...], params: GovernanceParams) -> float:
    _, rel, rec, prio = values
    return math.fsum(
        (
            params.rank_relevance_weight * rel,
            params.rank_recency_weight * rec,
            params.rank_type_weight * prio,
        )
    )


def explain(candidate: Candidate, now: datetime, params: GovernanceParams) -> Explanation:
    """The final score of one candidate with each component, weight and contribution."""
    values = _values(candidate, now, params)
    age, rel, rec, prio = values
    parts = (
        _part("relevance", params.rank_relevance_weight, rel),
        _part("recency", params.rank_recency_weight, rec),
        _part("type_priority", params.rank_type_weight, prio),
    )
    return Explanation(
        relevance=parts[0],
        recency=parts[1],
        type_priority=parts[2],
        total=_total(values, params),
        inputs={
            "relevance": candidate.relevance,
            "type": candidate.memory_type.value,
            "created_at": candidate.created_at.isoformat(),
            "age_days": age,
            "read_count": candidate.read_count,
        },
    )


def rerank(
    candidates: Iterable[Candidate],
    now: datetime,
    params: GovernanceParams,
    *,
    limit: int | None = None,
) -> list[Ranked]:
    """Score, sort and cut to ``limit`` (default ``params.return_size``). A memory id
    recalled twice (e.g. by two indexes) counts once, with its best relevance."""
    best, size = _best_of(candidates), _size(params, limit)
    # Scored first, explained only if kept (stage one recalls several times more).
    scored = [(_total(_values(c, now, params), params), c) for c in best.values()]
    scored.sort(key=lambda item: (-item[0], -item[1].read_count, item[1].memory_id))
    out: list[Ranked] = []
    for total, c in scored[:size]:
        e = explain(c, now, params)
        out.append(Ranked(c.memory_id, total, e))
    return out


# Totals this close to the last kept one count as tied with it: what the index holds of
# a candidate can differ from its record by a float's rounding (a creation time kept as
# Unix seconds).
TIE = 1e-9


def contenders(
    candidates: Iterable[Candidate],
    now: datetime,
    params: GovernanceParams,
    *,
    limit: int | None = None,
) -> list[str]:
    """The ids that can be among ``rerank``'s first ``limit`` whatever their read counts,
    best first: every candidate scoring above the last one kept, and every one tied with
    it (read counts only break ties). A search ranks its candidates by what the index
    holds of them and reads the records of these alone."""
    best, size = _best_of(candidates), _size(params, limit)
    scored = sorted(
        ((_total(_values(c, now, params), params), c.memory_id) for c in best.values()),
        key=lambda item: (-item[0], item[1]),
    )
    if size == 0:
        return []
    if len(scored) <= size:
        return [mid for _, mid in scored]
    floor = scored[size - 1][0] - TIE
    return [mid for total, mid in scored if total >= floor]


def _best_of(candidates: Iterable[Candidate]) -> dict[str, Candidate]:
    """Each memory id once, with its best relevance (recalled twice, e.g. by two
    indexes, it counts once)."""
    best: dict[str, Candidate] = {}
    for c in candidates:
        seen = best.get(c.memory_id)
        if seen is None or c.relevance > seen.relevance:
            best[c.memory_id] = c
    return best


def _size(params: GovernanceParams, limit: int | None) -> int:
    size = params.return_size if limit is None else limit
    if size < 0:
        raise ValueError("limit must be ≥ 0")
    return size


def _part(name: str, weight: float, value: float) -> Component:
    return Component(name, weight, value, weight * value)
