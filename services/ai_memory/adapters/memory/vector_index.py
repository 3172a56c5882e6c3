"""``VectorIndex`` in dicts, scoring as Qdrant does, so rankings match the Qdrant adapters.

* dense: cosine similarity (vectors normalised on write, as the engine's ``Cosine``);
* keywords: ``Σ q_i · d_i · idf_i`` with Qdrant's ``Modifier.Idf``,
  ``idf = ln(1 + (N − n + 0.5) / (n + 0.5))`` over the searching tenant's points (the
  engines' IDF corpus, ``index_payload.idf_corpus``), N of them with keywords, n of
  them holding the term;
* filters, the order-safe batch plan and the fusion are the shared engine-neutral rules
  (``index_payload``, ``core.fusion``); brute force is fine for what tests hold.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ai_memory.adapters import index_payload as ip
from ai_memory.core.errors import InvalidInput
from ai_memory.core.fusion import by_score
from ai_memory.core.index_rebuild import InPlaceRebuild
from ai_memory.core.ports import IndexHit, IndexQuery, IndexRebuild, SparseVector, Vector
from ai_memory.core.projection import IndexMutation


@dataclass
class _Point:
    payload: dict[str, Any]
    dense: Vector | None
    sparse: dict[int, float]


@dataclass
class IndexBacking:
    points: dict[str, _Point] = field(default_factory=dict)
    checkpoints: dict[int, int] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)


class MemoryVectorIndex:
    def __init__(self, dim: int, backing: IndexBacking | None = None) -> None:
        if dim <= 0:
            raise InvalidInput("dim", "positive", "the vector dimension must be > 0")
        self._dim = dim
        self.backing = backing or IndexBacking()

    # --- writes ---------------------------------------------------------------------
    def apply(
        self,
        mutations: Sequence[IndexMutation],
        vectors: dict[int, tuple[Vector, SparseVector]],
        *,
        checkpoint: int,
        partition: int = 0,
    ) -> None:
        b = self.backing
        with b.lock:
            stored: dict[str, ip.StoredMark] = {}
            for pid in ip.point_ids_of(mutations):
                point = b.points.get(pid)
                mark = None if point is None else ip.mark_from_payload(point.payload)
                if mark is not None:
                    stored[pid] = mark
            plan = ip.plan_batch(mutations, vectors, stored, dim=self._dim)
            for w in plan.writes:
                b.points[w.point_id] = _point(w)
            for sw in plan.state_writes:
                # a new payload, never an update in place: searches read points unlocked
                old = b.points[sw.point_id]
                payload = {**old.payload, ip.F_STATE: sw.state.value, ip.F_POSITION: sw.position}
                b.points[sw.point_id] = _Point(payload, old.dense, old.sparse)
            if checkpoint > b.checkpoints.get(partition, 0):
                b.checkpoints[partition] = checkpoint

    def checkpoint(self, partition: int = 0) -> int:
        with self.backing.lock:
            return self.backing.checkpoints.get(partition, 0)

    def flush(self) -> None:
        pass

    def optimize(self) -> bool:
        return False

    def start_compaction(self) -> None:
        pass

    def compaction_status(self) -> dict[str, float]:
        return {}

    def reset(self) -> None:
        with self.backing.lock:
            self.backing.points.clear()
            self.backing.checkpoints.clear()

    def rebuild(self) -> IndexRebuild:
        """In place (one process owns this index): reset now, compacted on ``switch``."""
        return InPlaceRebuild.begin(self)

    def close(self) -> None:
        pass

    # --- reads ----------------------------------------------------------------------
    def count(self, tenant: str) -> int:
        terms = ip.count_terms(tenant)
        with self.backing.lock:
            return sum(1 for p in self.backing.points.values() if _matches(p.payload, terms))

    def search(self, query: IndexQuery) -> list[IndexHit]:
        plan = ip.plan_search(query, self._dim)
        if plan is None:
            return []
        with self.backing.lock:
            by_id = dict(self.backing.points)
        points = list(by_id.items())
        candidates = [(pid, p) for pid, p in points if _matches(p.payload, plan.terms)]
        results: list[list[tuple[str, float]]] = []
        for r in plan.retrievers:
            among = candidates
            if r.terms is not None:  # a dated retriever: its own, narrower filter
                among = [(pid, p) for pid, p in points if _matches(p.payload, r.terms)]
            if r.dense is not None:
                scored = _dense_scores(among, r.dense)
            else:
                assert r.sparse is not None
                corpus = [p for _, p in points if p.payload.get(ip.F_TENANT) == query.tenant]
                scored = _keyword_scores(among, corpus, r.sparse)
            results.append(by_score(scored)[: plan.limit])
        return ip.hits_of(
            plan,
            results,
            query.limit,
            lambda ids: {i: by_id[i].payload for i in ids if i in by_id},
            lambda queries: [_neighbours(points, q) for q in queries],
        )


def _point(w: ip.PointWrite) -> _Point:
    dense = None
    if w.dense is not None:
        v = np.asarray(w.dense, dtype=np.float32)
        norm = float(np.linalg.norm(v))
        dense = v / norm if norm > 0 else v
    sparse: dict[int, float] = {}
    if w.dense is not None and w.sparse is not None:
        sparse = dict(zip(w.sparse.indices, w.sparse.values, strict=True))
    return _Point(dict(w.payload), dense, sparse)


def _matches(payload: dict[str, Any], terms: ip.FilterTerms) -> bool:
    if payload.get(ip.F_TENANT) != terms.tenant:
        return False
    for name, allowed in terms.any_of:
        value = payload.get(name)
        values = value if isinstance(value, list) else [value]
        if not any(v in allowed for v in values):
            return False
    if terms.created_in:
        created = payload.get(ip.F_CREATED_AT)
        if not isinstance(created, float | int) or not any(
            start <= created < end for start, end in terms.created_in
        ):
            return False
    expires = payload.get(ip.F_EXPIRES_AT)
    return expires is None or expires > terms.expired_at_or_before


def _neighbours(
    points: Sequence[tuple[str, _Point]], query: ip.NeighbourQuery
) -> list[tuple[str, dict[str, Any]]]:
    seed = query.seed
    at = seed.created_at
    found = [
        (float(p.payload[ip.F_CREATED_AT]), pid, p.payload)
        for pid, p in points
        if _matches(p.payload, query.terms)
        and p.payload.get(ip.F_SCOPE) == seed.scope
        and p.payload.get(ip.F_TYPE) == ip.INTERACTION
        and p.payload.get(ip.F_SESSION) == seed.session
        and (p.payload[ip.F_CREATED_AT] < at if query.before else p.payload[ip.F_CREATED_AT] > at)
    ]
    return ip.nearest_first(found, seed, query.before, query.limit)


def _dense_scores(points: Sequence[tuple[str, _Point]], query: Vector) -> list[tuple[str, float]]:
    q = np.asarray(query, dtype=np.float32)
    norm = float(np.linalg.norm(q))
    q = q / norm if norm > 0 else q
    return [(pid, float(np.dot(p.dense, q))) for pid, p in points if p.dense is not None]


def _keyword_scores(
    candidates: Sequence[tuple[str, _Point]], corpus: Sequence[_Point], query: SparseVector
) -> list[tuple[str, float]]:
    with_keywords = [p for p in corpus if p.sparse]
    total = len(with_keywords)
    idf: dict[int, float] = {}
    for term in query.indices:
        n = sum(1 for p in with_keywords if term in p.sparse)
        idf[term] = math.log(1.0 + (total - n + 0.5) / (n + 0.5))
    out: list[tuple[str, float]] = []
    for pid, p in candidates:
        hits = [(t, w) for t, w in zip(query.indices, query.values, strict=True) if t in p.sparse]
        if hits:
            score = sum(w * p.sparse[t] * idf[t] for t, w in hits)
            out.append((pid, score))
    return out
