"""Every tunable number of memory governance, in one frozen, validated object.

Why one object: scoring, conflict resolution, forgetting and retrieval reranking must agree
on their constants (one score ``S(m)`` serves both the θ rule and forgetting), a
deployment overrides them from configuration in one place (``GovernanceParams.from_mapping``),
and a recorded decision can name the exact parameters it used (``to_json``).

Units: time decay is **per day** (``decay_per_day``); memories live for weeks and months,
so a per-day λ reads naturally (λ = ln 2 / half-life in days). Scores are in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from ..errors import InvalidInput
from ..record import MemoryType

#: Default half-life of the recency term R: a statement loses half its recency in 30 days.
DEFAULT_HALF_LIFE_DAYS = 30.0
_SUM_TOLERANCE = 1e-9


def _frozen(values: Mapping[MemoryType, float]) -> Mapping[MemoryType, float]:
    return MappingProxyType(dict(values))


def _default_type_priority() -> Mapping[MemoryType, float]:
    # Preferences and task state outrank interaction traces: they are what an agent acts on.
    return _frozen(
        {
            MemoryType.PREFERENCE: 1.0,
            MemoryType.TASK: 1.0,
            MemoryType.SKILL: 0.7,
            MemoryType.FACT: 0.6,
            MemoryType.INTERACTION: 0.2,
        }
    )


def _default_importance() -> Mapping[MemoryType, float]:
    # Used when a record carries no governance metadata (written directly by an agent).
    return _frozen(
        {
            MemoryType.PREFERENCE: 0.7,
            MemoryType.TASK: 0.7,
            MemoryType.SKILL: 0.6,
            MemoryType.FACT: 0.6,
            MemoryType.INTERACTION: 0.3,
        }
    )


@dataclass(frozen=True)
class GovernanceParams:
    """Parameters of memory governance and of the search rerank, with documented defaults
    (docs/API.md, "Governed memory" and "Search").

    Score ``S = α·I + β·C + γ·R + δ·F`` (α+β+γ+δ = 1):
    statement quality (importance, confidence) weighs 60 %, time (recency) 25 % and
    repetition 15 % — frequency is the noisiest signal (reads drive it), so it weighs least.
    """

    alpha_importance: float = 0.30
    beta_confidence: float = 0.30
    gamma_recency: float = 0.25
    delta_frequency: float = 0.15
    #: λ per day; default ln 2 / 30 (30-day half-life).
    decay_per_day: float = math.log(2) / DEFAULT_HALF_LIFE_DAYS
    #: Saturation constant N of F = min(log(1+n)/log(1+N), 1); e³−1 ≈ 19 mentions.
    frequency_saturation: float = math.e**3 - 1
    #: θ: how much better a new statement must score to *archive* the old one. With
    #: γ = 0.25 and a 30-day half-life, an equally good restatement beats its predecessor
    #: by θ = 0.1 once the old one is ~22 days old: changes within three weeks coexist
    #: (old → historical), older states are clearly superseded (old → archived).
    theta: float = 0.10
    #: Reconsider: a historical newcomer that overtakes the active memory by more than this
    #: archives it; by more than θ but at most this, the old one becomes historical.
    reconsider_archive_margin: float = 0.20
    #: τ_forget: below this score a memory is softly forgotten. With the default weights a
    #: memory needs some importance or confidence to outlive its recency: I = C = 0.5
    #: never falls below 0.3, an interaction trace (I = 0.2) fades after ~2 months.
    tau_forget: float = 0.30
    #: τ_sim of the embedding detector: same slot and cosine similarity below τ → conflict.
    conflict_similarity_tau: float = 0.80
    #: Two-stage retrieval rerank: 0.6 relevance, 0.25 recency, 0.15 type.
    rank_relevance_weight: float = 0.60
    rank_recency_weight: float = 0.25
    rank_type_weight: float = 0.15
    #: λ per day of the rerank's recency term (defaults to the governance half-life).
    rank_decay_per_day: float = math.log(2) / DEFAULT_HALF_LIFE_DAYS
    type_priority: Mapping[MemoryType, float] = field(default_factory=_default_type_priority)
    #: First stage: how many candidates to recall from hybrid search (20–50).
    recall_k: int = 30
    #: Second stage: how many reranked memories enter the context (3–8).
    return_size: int = 5
    #: Importance assumed for a record without governance metadata, by type.
    default_importance: Mapping[MemoryType, float] = field(default_factory=_default_importance)
    #: Confidence assumed for a record without governance metadata.
    default_confidence: float = 0.80

    def __post_init__(self) -> None:
        object.__setattr__(self, "type_priority", _frozen(self.type_priority))
        object.__setattr__(self, "default_importance", _frozen(self.default_importance))
        weights = {
            "alpha_importance": self.alpha_importance,
            "beta_confidence": self.beta_confidence,
            "gamma_recency": self.gamma_recency,
            "delta_frequency": self.delta_frequency,
        }
        for name, value in weights.items():
            _unit(name, value)
        _sums_to_one("alpha_importance", weights, "α + β + γ + δ")
        rank = {
            "rank_relevance_weight": self.rank_relevance_weight,
            "rank_recency_weight": self.rank_recency_weight,
            "rank_type_weight": self.rank_type_weight,
        }
        for name, value in rank.items():
            _unit(name, value)
        _sums_to_one("rank_relevance_weight", rank, "the three rerank weights")
        _positive("decay_per_day", self.decay_per_day)
        _positive("rank_decay_per_day", self.rank_decay_per_day)
        _positive("frequency_saturation", self.frequency_saturation)
        _unit("theta", self.theta)
        _unit("reconsider_archive_margin", self.reconsider_archive_margin)
        if self.reconsider_archive_margin < self.theta:
            raise InvalidInput(
                "reconsider_archive_margin",
                "at_least_theta",
                f"reconsider_archive_margin ({self.reconsider_archive_margin}) must be ≥ theta "
                f"({self.theta})",
            )
        _unit("tau_forget", self.tau_forget)
        _unit("default_confidence", self.default_confidence)
        if not -1.0 <= self.conflict_similarity_tau <= 1.0:
            raise InvalidInput(
                "conflict_similarity_tau", "range", "conflict_similarity_tau must be in [-1, 1]"
            )
        _per_type("type_priority", self.type_priority)
        _per_type("default_importance", self.default_importance)
        if not 3 <= self.return_size <= 8:
            raise InvalidInput("return_size", "range", "return_size must be in [3, 8]")
        if not 20 <= self.recall_k <= 50:
            raise InvalidInput("recall_k", "range", "recall_k must be in [20, 50]")

    @property
    def half_life_days(self) -> float:
        return math.log(2) / self.decay_per_day

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any]) -> GovernanceParams:
        """Build from per-deployment configuration (e.g. a YAML/JSON ``governance:`` block).

        Keys are the field names, plus the aliases ``alpha``/``beta``/``gamma``/``delta``,
        ``lambda``, ``N``, ``half_life_days`` and ``rank_half_life_days``. Unknown keys,
        wrong types and out-of-range values raise ``InvalidInput`` naming the key."""
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for raw_key, raw in config.items():
            key = _ALIASES.get(raw_key, raw_key)
            if key in ("half_life_days", "rank_half_life_days"):
                days = _number(raw_key, raw)
                _positive(raw_key, days)
                target = "decay_per_day" if key == "half_life_days" else "rank_decay_per_day"
                values[target] = math.log(2) / days
            elif key in ("type_priority", "default_importance"):
                values[key] = _type_mapping(raw_key, raw)
            elif key in ("recall_k", "return_size"):
                if isinstance(raw, bool) or not isinstance(raw, int):
                    raise InvalidInput(raw_key, "integer", f"{raw_key} must be an integer")
                values[key] = raw
            elif key in known:
                values[key] = _number(raw_key, raw)
            else:
                aliases = ", ".join(sorted(_ALIASES))
                raise InvalidInput(
                    str(raw_key),
                    "unknown_parameter",
                    f"unknown governance parameter {raw_key!r}; known: "
                    f"{', '.join(sorted(known))} (aliases: {aliases})",
                )
        return replace(cls(), **values) if values else cls()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view, for recording which parameters a decision used."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Mapping):
                out[f.name] = {k.value: v for k, v in sorted(value.items())}
            else:
                out[f.name] = value
        return out


_ALIASES = {
    "alpha": "alpha_importance",
    "beta": "beta_confidence",
    "gamma": "gamma_recency",
    "delta": "delta_frequency",
    "lambda": "decay_per_day",
    "N": "frequency_saturation",
    "half_life_days": "half_life_days",
    "rank_half_life_days": "rank_half_life_days",
}


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(name, "number", f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidInput(name, "finite", f"{name} must be finite")
    return float(value)


def _unit(name: str, value: float) -> None:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InvalidInput(name, "range", f"{name} must be in [0, 1], got {value}")


def _positive(name: str, value: float) -> None:
    if not (math.isfinite(value) and value > 0.0):
        raise InvalidInput(name, "positive", f"{name} must be a positive number, got {value}")


def _sums_to_one(name: str, values: Mapping[str, float], label: str) -> None:
    total = math.fsum(values.values())
    if abs(total - 1.0) > _SUM_TOLERANCE:
        detail = ", ".join(f"{k}={v}" for k, v in values.items())
        raise InvalidInput(name, "sum_to_one", f"{label} must sum to 1, got {total} ({detail})")


def _per_type(name: str, values: Mapping[MemoryType, float]) -> None:
    missing = [t.value for t in MemoryType if t not in values]
    if missing:
        raise InvalidInput(name, "all_types", f"{name} lacks a value for {', '.join(missing)}")
    for kind, value in values.items():
        _unit(f"{name}.{kind.value}", value)


def _type_mapping(name: str, raw: object) -> Mapping[MemoryType, float]:
    if not isinstance(raw, Mapping):
        raise InvalidInput(name, "object", f"{name} must map memory types to numbers")
    base = dict(_default_type_priority() if name == "type_priority" else _default_importance())
    for key, value in raw.items():
        try:
            kind = MemoryType(key)
        except ValueError:
            allowed = ", ".join(t.value for t in MemoryType)
            raise InvalidInput(
                f"{name}.{key}", "memory_type", f"{key!r} is not a memory type ({allowed})"
            ) from None
        base[kind] = _number(f"{name}.{key}", value)
    return base
