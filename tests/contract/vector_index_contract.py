"""The VectorIndex contract: the embedded Qdrant Edge index and the Qdrant server index
pass it.

Subclasses provide ``make_index``: a callable that opens the index on the *same*
storage every time it is called (so closing and calling it again is a restart). Vectors
are small hand-made unit vectors of ``DIM`` dimensions, so the suite needs no embedder.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from ai_memory.adapters.index_payload import DATED_WEIGHT
from ai_memory.core.conversation_context import AFTER as CONTEXT_AFTER
from ai_memory.core.conversation_context import BEFORE as CONTEXT_BEFORE
from ai_memory.core.errors import InvalidInput
from ai_memory.core.fusion import DEFAULT_FUSION
from ai_memory.core.keywords import query_terms, sparse_terms
from ai_memory.core.ports import HitFacts, IndexQuery, SparseVector, Vector, VectorIndex
from ai_memory.core.projection import IndexMutation, IndexPut, IndexRemove, IndexSetState
from ai_memory.core.record import MemoryState, MemoryType
from tests.factories import T0, record

DIM = 16
MakeIndex = Callable[[], VectorIndex]


def axis(*weights: float) -> Vector:
    """A unit vector with the given leading components (the rest zero)."""
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(weights)] = weights
    return (v / np.linalg.norm(v)).astype(np.float32)


Batch = tuple[list[IndexMutation], dict[int, tuple[Vector, SparseVector]]]


def put(
    memory_id: str,
    position: int,
    dense: Vector,
    content: str = "plain memory",
    *,
    tenant: str = "default",
    state: MemoryState = MemoryState.ACTIVE,
    **kw: Any,
) -> Batch:
    rec = record(memory_id, content, **kw)
    return ([IndexPut(tenant, rec, state, position)], {position: (dense, sparse_terms(content))})


def merge(*batches: Batch) -> Batch:
    mutations: list[IndexMutation] = []
    vectors: dict[int, tuple[Vector, SparseVector]] = {}
    for m, v in batches:
        mutations += m
        vectors.update(v)
    return mutations, vectors


def apply(
    index: VectorIndex, batch: Batch, checkpoint: int | None = None, *, partition: int = 0
) -> None:
    mutations, vectors = batch
    top = max((m.position for m in mutations), default=0)
    cp = checkpoint if checkpoint is not None else top
    index.apply(mutations, vectors, checkpoint=cp, partition=partition)


def q(
    dense: Vector | None = None,
    text: str | None = None,
    *,
    mode: Any = "hybrid",
    tenant: str = "default",
    **kw: Any,
) -> IndexQuery:
    return IndexQuery(
        tenant=tenant,
        dense=dense,
        sparse=None if text is None else query_terms(text),
        now=kw.pop("now", T0 + timedelta(minutes=1)),
        mode=mode,
        **kw,
    )


def q_with(query: IndexQuery, **changes: Any) -> IndexQuery:
    return dataclasses.replace(query, **changes)


def ids(hits: Sequence[Any]) -> list[str]:
    return [h.memory_id for h in hits]


class VectorIndexContract:
    @pytest.fixture
    def make_index(self) -> Iterator[MakeIndex]:
        raise NotImplementedError

    @pytest.fixture
    def index(self, make_index: MakeIndex) -> Iterator[VectorIndex]:
        idx = make_index()
        yield idx
        idx.close()

    @pytest.fixture
    def three(self, index: VectorIndex) -> VectorIndex:
        apply(
            index,
            merge(
                put("m1", 1, axis(1, 0), "Alice prefers green tea in the morning"),
                put("m2", 2, axis(0, 1), "The deploy pipeline uses GitHub Actions"),
                put("m3", 3, axis(1, 1), "Kubernetes cluster kube-prod-7 runs Postgres"),
            ),
        )
        return index

    # --- retrieval ------------------------------------------------------------------
    def test_semantic_search_ranks_by_cosine(self, three: VectorIndex) -> None:
        hits = three.search(q(axis(1, 0), mode="semantic"))
        assert ids(hits) == ["m1", "m3", "m2"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert hits[0].components["dense_rank"] == 1.0

    def test_keyword_search_matches_terms(self, three: VectorIndex) -> None:
        hits = three.search(q(None, "postgres on kubernetes?", mode="keyword"))
        assert ids(hits) == ["m3"]
        assert hits[0].score > 0 and hits[0].components["keyword_rank"] == 1.0

    def test_keyword_search_stems_and_ignores_case(self, three: VectorIndex) -> None:
        assert ids(three.search(q(None, "PREFERENCE for teas", mode="keyword")))[:1] == ["m1"]

    def test_keyword_query_of_only_stop_words_finds_nothing(self, three: VectorIndex) -> None:
        assert three.search(q(None, "the and of", mode="keyword")) == []

    def test_hybrid_fuses_both_retrievers(self, three: VectorIndex) -> None:
        hits = three.search(q(axis(1, 0), "kubernetes postgres"))
        assert set(ids(hits)) == {"m1", "m2", "m3"}
        assert ids(hits)[0] == "m3"  # 2nd by dense, 1st by keyword beats 1st-by-dense only
        top = hits[0].components
        assert top["dense_rank"] == 2.0 and top["keyword_rank"] == 1.0
        assert hits[0].score == pytest.approx(top[DEFAULT_FUSION.key])
        assert all(a.score >= b.score for a, b in itertools.pairwise(hits))

    def test_hybrid_without_query_terms_is_dense_only(self, three: VectorIndex) -> None:
        assert ids(three.search(q(axis(0, 1), "the of")))[0] == "m2"
        assert ids(three.search(q(axis(0, 1))))[0] == "m2"

    def test_every_hit_carries_what_the_rerank_reads(self, index: VectorIndex) -> None:
        """A search ranks its candidates on ``IndexHit.facts`` before reading their
        records (``SearchReads.kept``): each hit, in every mode, carries the type,
        creation time and position of the version the index holds (a search's cached
        rows answer only for that position: ``service.search_row_cache``)."""
        made = T0 - timedelta(days=3, microseconds=123457)
        apply(
            index,
            merge(
                put("p", 1, axis(1, 0), "green tea", type_=MemoryType.PREFERENCE, created_at=made),
                put("f", 2, axis(1, 1), "green tea again", type_=MemoryType.FACT),
            ),
        )
        for mode in ("hybrid", "semantic", "keyword"):
            hits = {h.memory_id: h for h in index.search(q(axis(1, 0), "green tea", mode=mode))}
            assert hits["p"].facts == HitFacts(MemoryType.PREFERENCE, made, 1), mode
            assert hits["f"].facts == HitFacts(MemoryType.FACT, T0, 2), mode
        apply(index, put("p", 3, axis(1, 0), "green tea", type_=MemoryType.TASK, created_at=T0))
        (hit,) = [h for h in index.search(q(axis(1, 0), mode="semantic")) if h.memory_id == "p"]
        assert hit.facts == HitFacts(MemoryType.TASK, T0, 3)
        # A state change is a new position too (the records view's row moves with it).
        apply(index, ([IndexSetState("default", "p", MemoryState.HISTORICAL, 4)], {}))
        historical = q(axis(1, 0), mode="semantic", states=(MemoryState.HISTORICAL,))
        (hit,) = [h for h in index.search(historical) if h.memory_id == "p"]
        assert hit.facts == HitFacts(MemoryType.TASK, T0, 4)

    def test_limit(self, three: VectorIndex) -> None:
        assert len(three.search(q(axis(1, 0), "tea", limit=1))) == 1
        assert len(three.search(q(axis(1, 0), mode="semantic", limit=2))) == 2

    def test_missing_query_vectors_are_invalid(self, three: VectorIndex) -> None:
        with pytest.raises(InvalidInput):
            three.search(q(None, "tea", mode="semantic"))
        with pytest.raises(InvalidInput):
            three.search(q(axis(1), None, mode="keyword"))
        with pytest.raises(InvalidInput):
            three.search(q(None, None))
        with pytest.raises(InvalidInput):
            three.search(q(np.ones(DIM + 1, dtype=np.float32), mode="semantic"))

    # --- filters --------------------------------------------------------------------
    def test_tenants_are_isolated(self, index: VectorIndex) -> None:
        apply(
            index,
            merge(
                put("m1", 1, axis(1, 0), "shared secret", tenant="a"),
                put("m1", 2, axis(0, 1), "shared secret", tenant="b"),
                put("m2", 3, axis(1, 0), "other secret", tenant="b"),
            ),
        )
        for mode in ("semantic", "keyword", "hybrid"):
            hits = index.search(q(axis(1, 0), "secret", mode=mode, tenant="a"))
            assert ids(hits) == ["m1"]
        assert index.search(q(axis(1, 0), "secret", tenant="c")) == []
        assert (index.count("a"), index.count("b"), index.count("c")) == (1, 2, 0)

    def test_a_tenant_that_joins_a_shard_held_by_one_stays_apart(self, index: VectorIndex) -> None:
        """A shard that holds one tenant may leave the tenant condition out of its filters
        (Qdrant Edge: ``_alone``); the first points of a second tenant must end that,
        for the searches of either, conversation context's reads and counts included.
        The second tenant's turns sit between the first's in the same scope and session,
        and its points are nearer every query."""
        t = self.turn
        apply(index, merge(t("a1", 1, "We met at the climbing gym", 0, tenant="a")))
        apply(index, merge(t("a2", 2, "Four years now, since college", 20, tenant="a")))
        assert ids(index.search(q(axis(1, 1), "climbing gym", tenant="a", context=True))) == [
            "a1",
            "a2",
        ]
        assert index.search(q(axis(1, 1), "climbing gym", tenant="b", context=True)) == []
        apply(
            index,
            merge(
                t("b1", 3, "climbing gym climbing gym", 5, tenant="b"),
                t("b2", 4, "climbing gym years college", 10, tenant="b"),
                t("b3", 5, "climbing gym since college", 15, tenant="b"),
            ),
        )
        for mode in ("semantic", "keyword", "hybrid"):
            for context in (False, True):
                found = index.search(
                    q(axis(1, 3), "climbing gym college", mode=mode, tenant="a", context=context)
                )
                assert set(ids(found)) <= {"a1", "a2"}, (mode, context)
                found = index.search(
                    q(axis(1, 1), "climbing gym college", mode=mode, tenant="b", context=context)
                )
                assert set(ids(found)) <= {"b1", "b2", "b3"}, (mode, context)
        assert (index.count("a"), index.count("b")) == (2, 3)

    def test_keyword_idf_is_computed_per_tenant(self, index: VectorIndex) -> None:
        """Another tenant's documents never shape a tenant's keyword scores: tenant b
        floods the term "zephyr", and tenant a's scores and ranking stay exactly as they
        were (with collection-wide IDF "zephyr" would turn common and a2/a3 would
        overtake a1)."""
        apply(
            index,
            merge(
                put("a1", 1, axis(1, 0), "zephyr launch notes", tenant="a"),
                put("a2", 2, axis(0, 1), "quarterly beta review", tenant="a"),
                put("a3", 3, axis(1, 1), "beta rollout plan", tenant="a"),
                put("a4", 4, axis(0, 0, 1), "unrelated memo", tenant="a"),
            ),
        )
        queries = [q(None, "zephyr beta", mode="keyword", tenant="a")]
        queries.append(q(axis(0, 0, 1), "zephyr beta", mode="hybrid", tenant="a"))

        def scores() -> list[list[tuple[str, float]]]:
            return [[(h.memory_id, h.score) for h in index.search(x)] for x in queries]

        before = scores()
        assert [m for m, _ in before[0]][:1] == ["a1"]  # the rare term wins in a
        flood = [
            put(f"b{i}", 10 + i, axis(1, 0), f"zephyr deployment {i}", tenant="b")
            for i in range(60)
        ]
        apply(index, merge(*flood))
        after = scores()
        for was, now in zip(before, after, strict=True):
            assert [m for m, _ in now] == [m for m, _ in was]
            assert [s for _, s in now] == pytest.approx([s for _, s in was], rel=1e-6)

    def test_filters_on_scope_type_tags_and_state(self, index: VectorIndex) -> None:
        apply(
            index,
            merge(
                put("a", 1, axis(1), "tea", scope="user:alice", tags=("drinks", "morning")),
                put("b", 2, axis(1), "tea", scope="user:bob", type_=MemoryType.FACT, tags=("x",)),
                put("c", 3, axis(1), "tea", scope="team:data", state=MemoryState.HISTORICAL),
            ),
        )
        base = axis(1)
        assert ids(index.search(q(base, "tea", scopes=["user:alice"]))) == ["a"]
        assert set(ids(index.search(q(base, "tea", scopes=["user:alice", "user:bob"])))) == {
            "a",
            "b",
        }
        assert ids(index.search(q(base, "tea", types=[MemoryType.FACT]))) == ["b"]
        assert ids(index.search(q(base, "tea", tags=["morning", "nope"]))) == ["a"]
        assert set(ids(index.search(q(base, "tea")))) == {"a", "b"}  # active only by default
        assert ids(index.search(q(base, "tea", states=[MemoryState.HISTORICAL]))) == ["c"]
        everything = q(base, "tea", states=list(MemoryState))
        assert set(ids(index.search(everything))) == {"a", "b", "c"}

    def test_empty_filter_list_matches_nothing(self, three: VectorIndex) -> None:
        assert three.search(q(axis(1), "tea", scopes=[])) == []
        assert three.search(q(axis(1), "tea", tags=[])) == []

    def test_expired_memories_are_excluded(self, index: VectorIndex) -> None:
        apply(
            index, merge(put("short", 1, axis(1), "tea", ttl=60), put("forever", 2, axis(1), "tea"))
        )
        for mode in ("semantic", "keyword", "hybrid"):
            alive = index.search(q(axis(1), "tea", mode=mode, now=T0 + timedelta(seconds=59)))
            assert set(ids(alive)) == {"short", "forever"}
            at_expiry = index.search(q(axis(1), "tea", mode=mode, now=T0 + timedelta(seconds=60)))
            assert ids(at_expiry) == ["forever"]

    # --- order safety and idempotency -------------------------------------------------
    def test_applying_the_same_batch_twice_changes_nothing(self, index: VectorIndex) -> None:
        batch = merge(
            put("m1", 1, axis(1, 0), "tea"),
            put("m2", 2, axis(0, 1), "coffee"),
            ([IndexSetState("default", "m2", MemoryState.HISTORICAL, 3)], {}),
            ([IndexRemove("default", "m1", 4)], {}),
        )
        apply(index, batch)
        before = index.search(q(axis(1, 1), "tea coffee", states=list(MemoryState)))
        apply(index, batch)
        assert index.search(q(axis(1, 1), "tea coffee", states=list(MemoryState))) == before
        assert ids(before) == ["m2"] and index.count("default") == 1
        assert index.checkpoint() == 4

    def test_older_put_never_overwrites_newer(self, index: VectorIndex) -> None:
        apply(index, put("m1", 5, axis(0, 1), "new words"))
        apply(index, put("m1", 2, axis(1, 0), "old words"), checkpoint=5)
        hits = index.search(q(axis(0, 1), mode="semantic"))
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert index.search(q(None, "old", mode="keyword")) == []

    def test_later_put_in_the_same_batch_wins(self, index: VectorIndex) -> None:
        apply(index, merge(put("m1", 1, axis(1, 0), "first"), put("m1", 2, axis(0, 1), "second")))
        assert ids(index.search(q(None, "second", mode="keyword"))) == ["m1"]
        assert index.search(q(None, "first", mode="keyword")) == []
        assert index.count("default") == 1

    def test_removed_memory_is_not_resurrected_by_an_older_put(self, index: VectorIndex) -> None:
        first = put("m1", 1, axis(1), "tea")
        apply(index, first)
        apply(index, ([IndexRemove("default", "m1", 2)], {}))
        assert index.count("default") == 0
        apply(index, first, checkpoint=2)  # duplicate delivery of the original write
        assert index.count("default") == 0
        assert index.search(q(axis(1), "tea", states=list(MemoryState))) == []
        apply(index, put("m1", 3, axis(1), "tea again"))  # a newer write re-creates it
        assert ids(index.search(q(axis(1), "tea"))) == ["m1"]

    def test_remove_before_any_put_still_blocks_older_puts(self, index: VectorIndex) -> None:
        apply(index, ([IndexRemove("default", "m1", 7)], {}))
        apply(index, put("m1", 3, axis(1), "tea"), checkpoint=7)
        assert index.count("default") == 0

    def test_state_changes_are_order_safe(self, index: VectorIndex) -> None:
        apply(index, put("m1", 1, axis(1), "tea"))
        apply(index, ([IndexSetState("default", "m1", MemoryState.HISTORICAL, 3)], {}))
        apply(index, ([IndexSetState("default", "m1", MemoryState.ARCHIVED, 2)], {}), checkpoint=3)
        apply(index, put("m1", 1, axis(1), "tea"), checkpoint=3)  # replayed write keeps state
        assert index.search(q(axis(1), "tea")) == []
        assert ids(index.search(q(axis(1), "tea", states=[MemoryState.HISTORICAL]))) == ["m1"]
        assert index.count("default") == 1

    def test_state_change_folds_into_a_put_of_the_same_batch(self, index: VectorIndex) -> None:
        apply(
            index,
            merge(
                put("m1", 1, axis(1), "tea"),
                ([IndexSetState("default", "m1", MemoryState.ARCHIVED, 2)], {}),
            ),
        )
        assert ids(index.search(q(axis(1), "tea", states=[MemoryState.ARCHIVED]))) == ["m1"]

    def test_state_change_of_unknown_memory_is_a_no_op(self, index: VectorIndex) -> None:
        apply(index, ([IndexSetState("default", "ghost", MemoryState.ARCHIVED, 1)], {}))
        assert index.count("default") == 0 and index.checkpoint() == 1

    def test_put_without_vectors_is_invalid(self, index: VectorIndex) -> None:
        mutations, _ = put("m1", 1, axis(1))
        with pytest.raises(InvalidInput):
            index.apply(mutations, {}, checkpoint=1)
        with pytest.raises(InvalidInput):
            wrong = np.ones(DIM - 1, dtype=np.float32)
            index.apply(mutations, {1: (wrong, SparseVector((), ()))}, checkpoint=1)
        assert index.count("default") == 0

    # --- rebuild ------------------------------------------------------------------------
    def test_a_rebuild_is_filled_from_the_log_then_switched_in(self, index: VectorIndex) -> None:
        apply(index, merge(put("m1", 1, axis(1), "tea"), put("old", 2, axis(1), "tea")))
        rebuild = index.rebuild()
        try:
            # The replay: what the log holds now (``old`` was forgotten since).
            apply(rebuild.target, put("m1", 1, axis(1), "tea"), checkpoint=5)
            rebuild.switch()
        finally:
            rebuild.close()
        assert ids(index.search(q(axis(1), "tea"))) == ["m1"]
        assert index.checkpoint() == 5
        apply(index, put("m2", 6, axis(0, 1), "coffee"))  # live again after the switch
        assert index.count("default") == 2

    # --- checkpoint, restart, reset -----------------------------------------------------
    def test_checkpoint_and_points_survive_a_restart(self, make_index: MakeIndex) -> None:
        idx = make_index()
        assert idx.checkpoint() == 0
        apply(idx, put("m1", 1, axis(1), "tea"), checkpoint=9)
        apply(idx, ([IndexRemove("default", "gone", 10)], {}), checkpoint=10)
        idx.close()
        idx = make_index()
        try:
            assert idx.checkpoint() == 10
            assert ids(idx.search(q(axis(1), "tea"))) == ["m1"]
            apply(idx, put("gone", 4, axis(1), "tea"), checkpoint=10)  # tombstone survived
            assert idx.count("default") == 1
        finally:
            idx.close()

    def test_checkpoints_are_kept_per_partition(self, index: VectorIndex) -> None:
        apply(index, put("m1", 7, axis(1), "tea"), partition=1)
        index.apply([], {}, checkpoint=3, partition=2)
        assert (index.checkpoint(0), index.checkpoint(1), index.checkpoint(2)) == (0, 7, 3)
        assert index.checkpoint() == 0 and index.checkpoint(9) == 0
        assert index.count("default") == 1  # the view is shared; only checkpoints are split

    def test_a_partition_checkpoint_never_moves_backwards(self, index: VectorIndex) -> None:
        index.apply([], {}, checkpoint=10, partition=1)
        index.apply([], {}, checkpoint=4, partition=1)
        index.apply([], {}, checkpoint=2, partition=0)
        assert (index.checkpoint(0), index.checkpoint(1)) == (2, 10)
        apply(index, put("m1", 3, axis(1), "tea"), checkpoint=5, partition=1)  # replayed
        assert index.checkpoint(1) == 10 and index.count("default") == 1

    def test_partition_checkpoints_survive_a_restart(self, make_index: MakeIndex) -> None:
        idx = make_index()
        apply(idx, put("m1", 5, axis(1), "tea"), partition=0)
        apply(idx, put("m2", 8, axis(0, 1), "coffee"), partition=3)
        idx.apply([], {}, checkpoint=6, partition=1)
        idx.close()
        idx = make_index()
        try:
            assert [idx.checkpoint(p) for p in range(4)] == [5, 6, 0, 8]
            assert idx.count("default") == 2
        finally:
            idx.close()

    def test_reset_clears_every_partition_checkpoint(self, index: VectorIndex) -> None:
        index.apply([], {}, checkpoint=4, partition=0)
        index.apply([], {}, checkpoint=9, partition=5)
        index.reset()
        assert (index.checkpoint(0), index.checkpoint(5)) == (0, 0)

    def test_empty_batch_advances_the_checkpoint(self, index: VectorIndex) -> None:
        index.apply([], {}, checkpoint=42)
        assert index.checkpoint() == 42

    def test_reset_empties_everything(self, three: VectorIndex) -> None:
        apply(three, ([IndexRemove("default", "m9", 4)], {}))
        three.reset()
        assert three.checkpoint() == 0
        assert three.count("default") == 0
        assert three.search(q(axis(1), "tea")) == []
        apply(three, put("m9", 1, axis(1), "tea"))  # tombstones are gone too
        assert three.count("default") == 1

    # --- conversation context -------------------------------------------------------
    @staticmethod
    def turn(
        memory_id: str,
        position: int,
        content: str,
        second: int,
        *,
        session: str | None = "s1",
        scope: str = "user:alice",
        type_: MemoryType = MemoryType.INTERACTION,
        tenant: str = "default",
    ) -> Batch:
        meta = {} if session is None else {"session_id": session}
        return put(
            memory_id,
            position,
            axis(1, position),
            content,
            tenant=tenant,
            scope=scope,
            type_=type_,
            created_at=T0 + timedelta(seconds=second),
            meta=meta,
        )

    @pytest.fixture
    def talk(self, index: VectorIndex) -> VectorIndex:
        """Two sessions of one scope interleaved in time, another scope, a fact, another
        tenant: only ``t1``'s own session and scope are its conversation."""
        t = self.turn
        apply(
            index,
            merge(
                t("t0", 1, "We met at the climbing gym", 0),
                t("t1", 2, "How long have you known your friends", 10),
                t("x1", 3, "Parking downtown is expensive", 11, session="s2"),
                t("o1", 4, "Ticket numbers are printed", 12, scope="user:bob"),
                t("f1", 5, "Rent is due Friday", 13, type_=MemoryType.FACT),
                t("u1", 6, "Lunch was pasta", 14, tenant="other"),
                t("t2", 7, "Four years now, since college", 20),
                t("t3", 8, "They threw me a party", 30),
                t("t4", 9, "Pottery class is on Tuesday", 40),
            ),
        )
        return index

    def test_context_finds_the_answer_turn_next_to_the_matching_one(
        self, talk: VectorIndex
    ) -> None:
        plain = talk.search(q(text="how long known friends", mode="keyword", limit=10))
        assert ids(plain) == ["t1"]
        hits = talk.search(q(text="how long known friends", mode="keyword", limit=10, context=True))
        # t1's two turns either side in its own session and scope, the answer after it
        # first; not the other session's, scope's or tenant's turns, nor a fact, however
        # close in time.
        assert ids(hits)[:2] == ["t1", "t2"]
        assert set(ids(hits)) == {"t1", "t0", "t2", "t3"}
        own = plain[0].score
        by_id = {h.memory_id: h for h in hits}
        (before, _), (after, after_next) = CONTEXT_BEFORE, CONTEXT_AFTER
        assert by_id["t2"].score == pytest.approx(after * own)
        assert by_id["t0"].score == pytest.approx(before * own)
        assert by_id["t3"].score == pytest.approx(after_next * own)
        assert by_id["t3"].components == {"context": pytest.approx(after_next * own)}
        assert "context" not in by_id["t1"].components  # its neighbours matched nothing
        # Neighbours found by context carry the index's facts as the hits do.
        assert by_id["t3"].facts == HitFacts(MemoryType.INTERACTION, T0 + timedelta(seconds=30), 8)

    def test_context_raises_a_turn_whose_neighbours_match_too(self, index: VectorIndex) -> None:
        t = self.turn
        apply(
            index,
            merge(
                t("a1", 1, "pottery", 0, session="a"),
                t("a2", 2, "pottery class", 1, session="a"),
                t("a3", 3, "pottery", 2, session="a"),
                t("b1", 4, "weather", 0, session="b"),
                t("b2", 5, "pottery class", 1, session="b"),
                t("b3", 6, "weather", 2, session="b"),
            ),
        )
        plain = index.search(q(text="pottery class", mode="keyword", limit=3))
        assert plain[0].score == pytest.approx(plain[1].score)  # a2 and b2 tie alone
        hits = index.search(q(text="pottery class", mode="keyword", limit=3, context=True))
        assert ids(hits)[0] == "a2"
        assert hits[0].components["context"] > 0

    def test_context_never_reaches_forgotten_or_filtered_turns(self, talk: VectorIndex) -> None:
        apply(talk, ([IndexRemove("default", "t2", 10)], {}))
        apply(talk, ([IndexSetState("default", "t0", MemoryState.HISTORICAL, 11)], {}))
        hits = talk.search(q(text="how long known friends", mode="keyword", limit=10, context=True))
        # t2 is gone; t0 is not active: the next live turns of the session stand in.
        assert ids(hits) == ["t1", "t3", "t4"]
        both = talk.search(
            q(
                text="how long known friends",
                mode="keyword",
                limit=10,
                context=True,
                states=(MemoryState.ACTIVE, MemoryState.HISTORICAL),
            )
        )
        assert set(ids(both)) == {"t1", "t0", "t3", "t4"}

    def test_turns_without_a_session_are_one_conversation_per_scope(
        self, index: VectorIndex
    ) -> None:
        t = self.turn
        apply(
            index,
            merge(
                t("n1", 1, "my sister plays cello", 0, session=None),
                t("n2", 2, "since she was six", 1, session=None),
                t("s1", 3, "no idea what you mean", 2, session="s1"),
            ),
        )
        hits = index.search(q(text="sister cello", mode="keyword", limit=10, context=True))
        assert ids(hits) == ["n1", "n2"]

    def test_context_is_off_unless_asked(self, talk: VectorIndex) -> None:
        assert ids(talk.search(q(text="how long known friends", mode="keyword", limit=10))) == [
            "t1"
        ]

    def test_hybrid_context_keeps_fused_order_and_adds_neighbours(self, talk: VectorIndex) -> None:
        hits = talk.search(q(axis(1, 2), "how long known friends", limit=3, context=True))
        assert ids(hits)[0] == "t1"
        assert len(hits) == 3

    # --- periods a query names (core.query_dates) -------------------------------------
    @staticmethod
    def day(offset_days: int) -> tuple[float, float]:
        start = T0 + timedelta(days=offset_days)
        return (start.timestamp(), (start + timedelta(days=1)).timestamp())

    @pytest.fixture
    def diary(self, index: VectorIndex) -> VectorIndex:
        """The same kind of memory on different days, scopes and tenants."""
        d = timedelta(days=1)
        apply(
            index,
            merge(
                put("late", 1, axis(1, 0.1), "garden party at the lake", created_at=T0 + 40 * d),
                put("early", 2, axis(1, 0.3), "garden party at the lake", created_at=T0),
                put("mid", 3, axis(1, 0.9), "party again", created_at=T0 + 20 * d),
                put("bob", 4, axis(1, 0.1), "garden party", created_at=T0, scope="user:bob"),
                put("gone", 5, axis(1, 0.1), "garden party", created_at=T0),
                put("hist", 6, axis(1, 0.1), "garden party", created_at=T0),
                put("other", 7, axis(1, 0.1), "garden party", created_at=T0, tenant="other"),
            ),
        )
        apply(index, ([IndexRemove("default", "gone", 8)], {}))
        apply(index, ([IndexSetState("default", "hist", MemoryState.HISTORICAL, 9)], {}))
        return index

    def test_a_named_period_raises_what_was_created_in_it(self, diary: VectorIndex) -> None:
        query = q(axis(1, 0), "garden party", limit=10, scopes=["user:alice"])
        plain = {h.memory_id: h for h in diary.search(query)}
        dated = {h.memory_id: h for h in diary.search(q_with(query, periods=(self.day(0),)))}
        # A boost, not a filter: the same memories come back.
        assert set(dated) == set(plain) == {"late", "early", "mid"}
        # "early" is alone in the period: each restricted retriever ranks it first, so it
        # gains their full weight, DATED_WEIGHT of the unrestricted ones' (both normalise
        # a one-item list to 1); the others gain nothing.
        share = DATED_WEIGHT * sum(w for _, w in DEFAULT_FUSION.weights)
        assert dated["early"].score == pytest.approx(plain["early"].score + share)
        assert dated["early"].components["dated_dense_rank"] == 1
        assert dated["early"].components["dated_keyword_rank"] == 1
        for other in ("late", "mid"):
            assert dated[other].score == pytest.approx(plain[other].score)
            assert not any(k.startswith("dated_") for k in dated[other].components)
        # Said the same way but a little further from the query: second without the period,
        # first with it.
        assert ids(diary.search(query))[:2] == ["late", "early"]
        assert ids(diary.search(q_with(query, periods=(self.day(0),))))[:2] == ["early", "late"]

    def test_a_period_reaches_nothing_the_search_itself_may_not(self, diary: VectorIndex) -> None:
        # In the period: another scope, a forgotten memory, a historical one, another
        # tenant's. None of them is found through it.
        query = q(axis(1, 0), "garden party", limit=10, scopes=["user:alice"])
        hits = diary.search(q_with(query, periods=(self.day(0),)))
        assert set(ids(hits)) == {"late", "early", "mid"}
        every = diary.search(q(axis(1, 0), "garden party", limit=10, periods=(self.day(0),)))
        assert set(ids(every)) == {"late", "early", "mid", "bob"}

    def test_any_of_several_periods_counts(self, diary: VectorIndex) -> None:
        query = q(axis(1, 0), "party", limit=10, scopes=["user:alice"])
        hits = {
            h.memory_id: h for h in diary.search(q_with(query, periods=(self.day(0), self.day(20))))
        }
        assert {m for m, h in hits.items() if "dated_dense_rank" in h.components} == {
            "early",
            "mid",
        }

    def test_periods_only_shape_hybrid_search(self, diary: VectorIndex) -> None:
        for mode, dense, text in (("keyword", None, "party"), ("semantic", axis(1, 0), None)):
            query = q(dense, text, mode=mode, limit=10, scopes=["user:alice"])
            plain = [(h.memory_id, h.score) for h in diary.search(query)]
            dated = [
                (h.memory_id, h.score) for h in diary.search(q_with(query, periods=(self.day(0),)))
            ]
            assert dated == plain
