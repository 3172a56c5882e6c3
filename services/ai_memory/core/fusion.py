"""Hybrid fusion: how the ranked lists of several retrievers become one ranking.

Pure and engine-neutral, so every ``VectorIndex`` adapter (Qdrant Edge, Qdrant server,
in-memory) fuses the same way and the contract suite can state the rule without
importing an adapter. Fusion is done here rather than in an engine so each hit can
explain which retriever found it, at what rank and with what score.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .ports import IndexHit

RRF_K = 60  # the constant of the original RRF paper; damps the weight of top ranks

# (key, engine score), best first. The key names a candidate uniquely: the adapters pass
# the engine's point id (``index_payload.point_id``, a function of tenant and memory id),
# so fusion needs no payload and memory ids are looked up for the kept hits only.
Ranked = Sequence[tuple[str, float]]


def by_score(ranked: Ranked) -> list[tuple[str, float]]:
    """Best first; equal scores ordered by key. The engine returns ties in its internal
    storage order, which differs between an incrementally built index and a replayed
    one — this keeps rankings a function of the data alone."""
    return sorted(ranked, key=lambda hit: (-hit[1], hit[0]))


def single_hits(name: str, ranked: Ranked, limit: int) -> list[IndexHit]:
    return [
        IndexHit(mid, score, {f"{name}_rank": float(rank), f"{name}_score": score})
        for rank, (mid, score) in enumerate(ranked[:limit], start=1)
    ]


FusionMethod = Literal["rrf", "minmax", "dbsf"]


@dataclass(frozen=True)
class Fusion:
    """How hybrid search merges its retrievers' ranked lists.

    * ``rrf``: reciprocal-rank fusion, ``Σ w_r / (k + rank_r)``; ranks only.
    * ``minmax``: convex combination of scores, each retriever's scores min-max
      normalised over its own prefetched list (best → 1, worst → 0), ``Σ w_r · norm_r``.
    * ``dbsf``: distribution-based score fusion, scores normalised by
      ``(s − (μ − 3σ)) / 6σ`` over the retriever's list and clipped to [0, 1].

    ``weights`` maps retriever names (``dense``, ``keyword``) to weights; a retriever not
    named weighs 1. A memory a retriever did not return contributes 0 for it."""

    method: FusionMethod = "rrf"
    weights: tuple[tuple[str, float], ...] = ()
    k: int = RRF_K

    def weight(self, name: str) -> float:
        return dict(self.weights).get(name, 1.0)

    @property
    def key(self) -> str:
        """The component that holds the fused score."""
        return "rrf" if self.method == "rrf" else "fused"

    def with_dated(self, prefix: str, share: float) -> Fusion:
        """This fusion plus a retriever ``prefix + name`` for each of ``dense`` and
        ``keyword``, weighing ``share`` of that retriever's weight."""
        weights = dict(self.weights)
        for name in ("dense", "keyword"):
            weights[f"{prefix}{name}"] = round(share * self.weight(name), 6)
        return Fusion(self.method, tuple(weights.items()), self.k)


RRF = Fusion("rrf")
# Convex combination of min-max normalised scores, keyword 0.7 / dense 0.3: on LoCoMo
# (loadtest/bench_locomo.py) the lexical retriever is far the stronger of the two, and
# rank fusion with equal weights lets the weaker one drag hybrid below keyword-only.
# Dense weights 0.2–0.4 form a plateau with both embedders; 0.3 is its middle.
DEFAULT_FUSION = Fusion("minmax", (("dense", 0.3), ("keyword", 0.7)))
# A stronger dense retriever earns more weight: with all-mpnet-base-v2 dense 0.4 beats 0.3
# on both halves of LoCoMo (tuning 80.1 → 80.7, held out 76.2 → 77.0 recall@10 with
# conversation context; docs/design/RETRIEVAL.md). The static default stays at 0.3 (0.3
# and 0.4 tie on the tuning half).
_DENSE_WEIGHT = {"all-mpnet-base-v2": 0.4}


def fusion_for(embedder: str) -> Fusion:
    """The fusion hybrid search uses with vectors of ``embedder`` (its name)."""
    w = _DENSE_WEIGHT.get(embedder)
    if w is None:
        return DEFAULT_FUSION
    return Fusion("minmax", (("dense", w), ("keyword", round(1.0 - w, 6))))


def _ordered(
    fused: dict[str, dict[str, float]], key: str, limit: int, best: Mapping[str, int]
) -> list[IndexHit]:
    """Best fused score first; ties on the best single rank (``best``), then the memory
    id, so results are deterministic. Only the ``limit`` best are ordered (a search fuses
    hundreds of prefetched candidates to return a few dozen)."""
    order = heapq.nsmallest(limit, fused.items(), key=lambda kv: (-kv[1][key], best[kv[0]], kv[0]))
    return [IndexHit(mid, parts[key], parts) for mid, parts in order]


def rrf_fuse(
    lists: Mapping[str, Ranked],
    limit: int,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[IndexHit]:
    """Reciprocal-rank fusion: score = Σ w / (k + rank), rank starting at 1.

    Components keep every retriever's rank and raw score for explanations."""
    fused: dict[str, dict[str, float]] = {}
    best: dict[str, int] = {}
    for name, ranked in lists.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, (mid, score) in enumerate(ranked, start=1):
            parts = fused.setdefault(mid, {"rrf": 0.0})
            parts["rrf"] += w / (k + rank)
            parts[f"{name}_rank"] = float(rank)
            parts[f"{name}_score"] = score
            best[mid] = min(rank, best.get(mid, rank))
    return _ordered(fused, "rrf", limit, best)


def _normaliser(scores: Sequence[float], method: FusionMethod) -> tuple[float, float]:
    """``(low, span)`` such that ``(s - low) / span`` is the normalised score. A list whose
    scores are all equal normalises to 1: each of them is that retriever's best."""
    if method == "minmax":
        low, high = min(scores), max(scores)
    else:
        mean = sum(scores) / len(scores)
        std = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5
        low, high = mean - 3.0 * std, mean + 3.0 * std
    span = high - low
    if span <= 1e-12 * max(1.0, abs(high)):
        return low - 1.0, 1.0
    return low, span


def score_fuse(
    lists: Mapping[str, Ranked],
    limit: int,
    weights: Mapping[str, float] | None = None,
    method: FusionMethod = "minmax",
) -> list[IndexHit]:
    """Score fusion: ``Σ w_r · norm_r(score)`` with per-list ``minmax`` or ``dbsf``
    normalisation (see ``Fusion``). Components keep each retriever's rank, raw score
    and normalised score (``<name>_norm``) and the fused score (``fused``).

    A search fuses a few hundred prefetched candidates to keep a few dozen: scores are
    summed in flat dicts and the components are built for the kept hits only."""
    fused: dict[str, float] = {}
    best: dict[str, int] = {}
    seen: list[tuple[str, dict[str, tuple[int, float, float]]]] = []
    for name, ranked in lists.items():
        if not ranked:
            continue
        w = 1.0 if weights is None else weights.get(name, 1.0)
        low, span = _normaliser([score for _, score in ranked], method)
        found: dict[str, tuple[int, float, float]] = {}
        for rank, (mid, score) in enumerate(ranked, start=1):
            norm = (score - low) / span
            norm = 1.0 if norm > 1.0 else 0.0 if norm < 0.0 else norm
            found[mid] = (rank, score, norm)
            fused[mid] = fused.get(mid, 0.0) + w * norm
            if rank < best.get(mid, rank + 1):
                best[mid] = rank
        seen.append((name, found))
    kept = heapq.nsmallest(limit, fused, key=lambda mid: (-fused[mid], best[mid], mid))
    hits: list[IndexHit] = []
    for mid in kept:
        parts = {"fused": fused[mid]}
        for name, found in seen:
            hit = found.get(mid)
            if hit is not None:
                parts[f"{name}_rank"] = float(hit[0])
                parts[f"{name}_score"] = hit[1]
                parts[f"{name}_norm"] = hit[2]
        hits.append(IndexHit(mid, parts["fused"], parts))
    return hits


def fuse(
    lists: Mapping[str, Ranked], limit: int, fusion: Fusion = DEFAULT_FUSION
) -> list[IndexHit]:
    weights = dict(fusion.weights)
    if fusion.method == "rrf":
        return rrf_fuse(lists, limit, fusion.k, weights)
    return score_fuse(lists, limit, weights, fusion.method)
