"""Congruence: the embedded index (Qdrant Edge) and the server index (qdrant-client, here
in local mode) must give the same answers to the same queries after the same batches.

Seeded random histories of puts, rewrites, state changes, deletes and replays of old
mutations across two tenants, applied to both; then many random semantic, keyword and
hybrid queries with random filters. Hits must agree exactly on ids and within 1e-4 on
scores and per-retriever components; ids may differ only inside a group of tied scores
(as in qdrant-client's own congruence tests), and where a tie group is cut by the limit,
every id one engine returns must be scored identically by the other (checked with a
deeper query).

IDF. Both engines apply ``ln(1 + (N - df + 0.5) / (df + 0.5))`` over the searching
tenant's points holding a ``keywords`` vector (an IDF corpus filter,
``index_payload.idf_corpus``). A corpus is measured over live points by both engines:
collection-wide IDF read the Rust engine's sparse index instead, where a point rewritten
or deleted inside an *optimised* segment kept counting until the segment was vacuumed;
``test_tenant_idf_counts_live_points_after_optimisation`` pins that this divergence is
gone.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
from qdrant_client import QdrantClient

from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.qdrant_server_index import QdrantServerIndex
from ai_memory.core.keywords import query_terms, sparse_terms
from ai_memory.core.ports import IndexHit, IndexQuery, SparseVector, Vector, VectorIndex
from ai_memory.core.projection import IndexMutation, IndexPut, IndexRemove, IndexSetState
from ai_memory.core.record import MemoryState, MemoryType
from tests.factories import T0, record

DIM = 16
TOL = 1e-4
TENANTS = ("acme", "globex")
SCOPES = ("user:alice", "user:bob", "team:data")
TYPES = (MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.TASK)
TAGS = ("red", "green", "blue", "gold")
TTLS = (None, None, 1800, 7200, 86400)
VOCAB = tuple(
    [
        "tea",
        "coffee",
        "deploy",
        "pipeline",
        "kubernetes",
        "postgres",
        "alice",
        "bob",
        "invoice",
        "error",
        "timeout",
        "retry",
        "cache",
        "latency",
        "budget",
        "meeting",
        "garden",
        "python",
        "rust",
        "token",
        "window",
        "memory",
        "agent",
        "graph",
    ]
)
STOP = ("the", "and", "of", "is", "to")
IDS_PER_TENANT = 30  # below the hybrid prefetch depth: fused lists are never truncated

Vectors = dict[int, tuple[Vector, SparseVector]]
Batch = tuple[list[IndexMutation], Vectors]


class History:
    """A random but reproducible stream of index batches."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.position = 0
        self.live: dict[tuple[str, str], bool] = {}
        self.sent: list[tuple[IndexMutation, Vectors]] = []

    def unit(self) -> Vector:
        v = self.np.standard_normal(DIM).astype(np.float32)
        return (v / np.linalg.norm(v)).astype(np.float32)

    def text(self) -> str:
        if self.rng.random() < 0.05:
            return " ".join(self.rng.choices(STOP, k=3))  # no keyword terms at all
        words = self.rng.choices(VOCAB, k=self.rng.randint(1, 7))
        words += self.rng.choices(STOP, k=self.rng.randint(0, 2))
        self.rng.shuffle(words)
        return " ".join(words)

    def mutation(self) -> tuple[IndexMutation, Vectors]:
        self.position += 1
        pos, rng = self.position, self.rng
        tenant = rng.choice(TENANTS)
        memory_id = f"m{rng.randrange(IDS_PER_TENANT)}"
        roll = rng.random()
        existing = [k for k, alive in self.live.items() if alive and k[0] == tenant]
        if existing and roll < 0.2:
            memory_id = rng.choice(existing)[1]
            state = rng.choice(list(MemoryState))
            return IndexSetState(tenant, memory_id, state, pos), {}
        if existing and roll < 0.3:
            memory_id = rng.choice(existing)[1]
            self.live[(tenant, memory_id)] = False
            return IndexRemove(tenant, memory_id, pos), {}
        content = self.text()
        rec = record(
            memory_id,
            content,
            scope=rng.choice(SCOPES),
            type_=rng.choice(TYPES),
            tags=tuple(rng.sample(TAGS, rng.randint(0, 2))),
            ttl=rng.choice(TTLS),
            created_at=T0 + timedelta(minutes=rng.randrange(120)),
        )
        state = MemoryState.ACTIVE if rng.random() < 0.8 else MemoryState.HISTORICAL
        self.live[(tenant, memory_id)] = True
        return IndexPut(tenant, rec, state, pos), {pos: (self.unit(), sparse_terms(content))}

    def batch(self) -> Batch:
        if self.sent and self.rng.random() < 0.15:  # duplicate delivery of old mutations
            picked = self.rng.sample(self.sent, min(len(self.sent), self.rng.randint(1, 5)))
        else:
            picked = [self.mutation() for _ in range(self.rng.randint(1, 6))]
            self.sent += picked
        vectors: Vectors = {}
        for _, v in picked:
            vectors.update(v)
        return [m for m, _ in picked], vectors

    def query(self, stored_dense: Sequence[Vector]) -> IndexQuery:
        rng = self.rng
        mode: Literal["hybrid", "semantic", "keyword"] = rng.choice(
            ("semantic", "keyword", "hybrid", "hybrid")
        )
        dense = None
        if mode != "keyword":
            dense = rng.choice(stored_dense) if stored_dense and rng.random() < 0.3 else self.unit()
        sparse = None
        if mode != "semantic":
            words = rng.sample([*VOCAB, "unknownword"], rng.randint(1, 3))
            sparse = query_terms(" ".join(words))

        def maybe(values: Sequence[Any]) -> list[Any] | None:
            return rng.sample(list(values), rng.randint(1, 2)) if rng.random() < 0.3 else None

        states = rng.sample(list(MemoryState), rng.randint(1, 3))
        return IndexQuery(
            tenant=rng.choice(TENANTS),
            dense=dense,
            sparse=sparse,
            now=T0 + timedelta(minutes=rng.randrange(0, 3000)),
            limit=rng.randint(1, 20),
            scopes=maybe(SCOPES),
            types=maybe(TYPES),
            tags=maybe(TAGS),
            states=states if rng.random() < 0.3 else (MemoryState.ACTIVE,),
            mode=mode,
        )


# --- comparison ---------------------------------------------------------------------
def _tie_groups(hits: Sequence[IndexHit]) -> list[list[IndexHit]]:
    groups: list[list[IndexHit]] = []
    for h in hits:
        if groups and abs(groups[-1][0].score - h.score) <= TOL:
            groups[-1].append(h)
        else:
            groups.append([h])
    return groups


def _deeper(index: VectorIndex, query: IndexQuery) -> dict[str, float]:
    wide = IndexQuery(**{**query.__dict__, "limit": query.limit + 60})
    return {h.memory_id: h.score for h in index.search(wide)}


def assert_congruent(
    query: IndexQuery, a: list[IndexHit], b: list[IndexHit], ia: VectorIndex, ib: VectorIndex
) -> None:
    """Same hits and scores; ids may differ only among tied scores."""
    assert len(a) == len(b), (query, a, b)
    for x, y in zip(a, b, strict=True):
        assert abs(x.score - y.score) <= TOL, (query, a, b)
    groups_a, groups_b = _tie_groups(a), _tie_groups(b)
    assert [len(g) for g in groups_a] == [len(g) for g in groups_b], (query, a, b)
    for n, (ga, gb) in enumerate(zip(groups_a, groups_b, strict=True)):
        ids_a, ids_b = {h.memory_id for h in ga}, {h.memory_id for h in gb}
        cut = n == len(groups_a) - 1 and len(a) == query.limit
        if not cut:
            assert ids_a == ids_b, (query, a, b)
        elif ids_a != ids_b:  # the limit cut a tie group: the members must be peers
            deep_a, deep_b = _deeper(ia, query), _deeper(ib, query)
            for mid in ids_a | ids_b:
                assert abs(deep_a[mid] - ga[0].score) <= TOL, (mid, query, a, b)
                assert abs(deep_b[mid] - ga[0].score) <= TOL, (mid, query, a, b)
    by_id_b = {h.memory_id: h for h in b}
    for x in a:
        peer = by_id_b.get(x.memory_id)
        if peer is None:
            continue  # a tie peer, checked above
        assert x.components.keys() == peer.components.keys(), (query, x, peer)
        for key, value in x.components.items():
            if key.endswith(("_score", "_norm")) or key in ("rrf", "fused"):
                assert abs(value - peer.components[key]) <= TOL, (query, key, x, peer)


# --- fixtures -------------------------------------------------------------------------
@pytest.fixture
def engines(tmp_path: Path) -> Iterator[tuple[QdrantEdgeIndex, QdrantServerIndex]]:
    edge = QdrantEdgeIndex(tmp_path / "edge", DIM, "congruence", optimize_after=None)
    server = QdrantServerIndex(QdrantClient(location=":memory:"), DIM, "congruence")
    yield edge, server
    edge.close()
    server.close()


def _apply_both(engines: Sequence[VectorIndex], batch: Batch, checkpoint: int) -> None:
    mutations, vectors = batch
    for idx in engines:
        idx.apply(mutations, vectors, checkpoint=checkpoint)


@pytest.mark.parametrize("seed", range(6))
def test_random_histories_give_the_same_answers(
    engines: tuple[QdrantEdgeIndex, QdrantServerIndex], seed: int
) -> None:
    edge, server = engines
    history = History(seed)
    dense_seen: list[Vector] = []
    compared = 0
    for step in range(1, 121):
        batch = history.batch()
        dense_seen += [d for d, _ in batch[1].values()]
        _apply_both(engines, batch, history.position)
        if step % 30:
            continue
        assert edge.checkpoint() == server.checkpoint() == history.position
        for tenant in TENANTS:
            assert edge.count(tenant) == server.count(tenant)
        for _ in range(80):
            query = history.query(dense_seen)
            assert_congruent(query, edge.search(query), server.search(query), edge, server)
            compared += 1
    assert compared == 320
    assert sum(server.count(t) for t in TENANTS) > 20  # the histories are not trivial


def test_the_comparison_can_fail(engines: tuple[QdrantEdgeIndex, QdrantServerIndex]) -> None:
    """Guard against a comparison that accepts anything: a point written to one engine
    only must be caught."""
    edge, server = engines
    history = History(99)
    for _ in range(10):
        _apply_both(engines, history.batch(), history.position)
    extra = history.mutation()
    edge.apply([extra[0]], extra[1], checkpoint=history.position)
    assert isinstance(extra[0], IndexPut)
    dense, sparse = extra[1][extra[0].position]
    text = extra[0].record.content
    query = IndexQuery(extra[0].tenant, dense, query_terms(text), T0, states=list(MemoryState))
    with pytest.raises(AssertionError):
        assert_congruent(query, edge.search(query), server.search(query), edge, server)
    assert sparse is not None


# --- IDF over the tenant's live points -------------------------------------------------
def _bm25_idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_tenant_idf_counts_live_points_after_optimisation(tmp_path: Path) -> None:
    """After ``optimize()`` moved points into a non-appendable segment, the old copies of
    rewritten or deleted points stay in the Rust engine's sparse index. Collection-wide
    IDF counted them; the tenant's IDF corpus is measured over live points, by both
    engines, so they agree exactly. Another tenant's points change nothing."""
    edge = QdrantEdgeIndex(
        tmp_path / "edge", DIM, "idf", optimize_after=None, indexing_threshold_kb=1
    )
    server = QdrantServerIndex(QdrantClient(location=":memory:"), DIM, "idf")
    try:
        unit = np.eye(DIM, dtype=np.float32)[0]
        puts: list[IndexMutation] = []
        vectors: Vectors = {}
        for n in range(1, 201):
            rec = record(f"m{n}", "tea" if n <= 20 else "coffee")
            puts.append(IndexPut("t", rec, MemoryState.ACTIVE, n))
            vectors[n] = (unit, sparse_terms(rec.content))
        _apply_both((edge, server), (puts, vectors), 200)
        query = IndexQuery("t", None, query_terms("tea"), T0, mode="keyword", limit=1)
        before = server.search(query)[0].score
        assert edge.optimize()  # the points now sit in an indexed, immutable segment
        assert edge.search(query)[0].score == pytest.approx(before, abs=TOL)
        rewrites: list[IndexMutation] = []
        for n in range(1, 11):  # tea → coffee for ten points
            rewrites.append(IndexPut("t", record(f"m{n}", "coffee"), MemoryState.ACTIVE, 200 + n))
            vectors[200 + n] = (unit, sparse_terms("coffee"))
        rewrites += [IndexRemove("t", f"m{n}", 210 + n) for n in range(11, 16)]  # five deletes
        _apply_both((edge, server), (rewrites, vectors), 215)
        weight = sparse_terms("tea").values[0]
        live = weight * _bm25_idf(5, 195)  # 5 tea documents among 195 live ones
        assert server.search(query)[0].score == pytest.approx(live, abs=TOL)
        assert edge.search(query)[0].score == pytest.approx(live, abs=TOL)
        others = [
            IndexPut("u", record(f"u{n}", "tea"), MemoryState.ACTIVE, 300 + n) for n in range(9)
        ]
        _apply_both(
            (edge, server), (others, {300 + n: (unit, sparse_terms("tea")) for n in range(9)}), 309
        )
        assert server.search(query)[0].score == pytest.approx(live, abs=TOL)
        assert edge.search(query)[0].score == pytest.approx(live, abs=TOL)
        assert edge.count("t") == server.count("t") == 195
    finally:
        edge.close()
        server.close()
