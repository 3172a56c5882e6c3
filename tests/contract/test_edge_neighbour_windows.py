"""Conversation context's neighbour lookup in Qdrant Edge (``edge_reads.neighbours``) reads
a window of time around a seed once another seed of its conversation showed how far apart
its turns are; it must answer exactly what one ordered scroll per seed and side answers
(``ordered_neighbours``): same turns, same order, for every filter — on turns that share
their times, in several sessions and scopes, some forgotten, historical, expired, tagged
otherwise or of another tenant. Both choose among turns at the same time by point key
(the engine's scroll would by its internal offsets), which the last test pins against
an unordered read of every turn."""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from ai_memory.adapters import edge_reads
from ai_memory.adapters import index_payload as ip
from ai_memory.adapters.edge_timelines import Timelines
from ai_memory.adapters.edge_turn_payloads import TurnPayloads, point_key
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.core.conversation_context import SEEDS, Turn
from ai_memory.core.projection import IndexMutation, IndexRemove, IndexSetState
from ai_memory.core.record import MemoryState, MemoryType
from tests.contract.vector_index_contract import DIM, Batch, apply, axis, merge, put, q
from tests.factories import T0

SCOPES = ("user:alice", "user:bob")
SESSIONS = ("s1", "s2", None)
NOW = T0 + timedelta(seconds=200)


class CountingShard:
    """The shard, counting the ordered scrolls and the window reads asked of it."""

    def __init__(self, shard: qe.EdgeShard) -> None:
        self.shard = shard
        self.ordered = 0
        self.windows = 0

    def scroll(self, request: Any) -> Any:
        if request.order_by is None:
            self.windows += 1
        else:
            self.ordered += 1
        return self.shard.scroll(request)

    def retrieve(self, *args: Any) -> Any:
        return self.shard.retrieve(*args)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[QdrantEdgeIndex]:
    """400 turns over 300 seconds (whole seconds: times repeat within a conversation), a
    fact now and then, one tenant more; then a tenth forgotten, a tenth historical."""
    rng = random.Random(7)
    idx = QdrantEdgeIndex(tmp_path / "index", DIM, "test-model")
    batches: list[Batch] = []
    for n in range(400):
        session = rng.choice(SESSIONS)
        batches.append(
            put(
                f"m{n}",
                n + 1,
                axis(1, n % 7 + 1),
                "a turn",
                tenant="other" if rng.random() < 0.05 else "default",
                scope=rng.choice(SCOPES),
                type_=MemoryType.FACT if rng.random() < 0.1 else MemoryType.INTERACTION,
                created_at=T0 + timedelta(seconds=rng.randrange(300)),
                meta={} if session is None else {"session_id": session},
                tags=("red",) if rng.random() < 0.5 else (),
                ttl=60 if rng.random() < 0.1 else None,  # expired by NOW when written early
            )
        )
    apply(idx, merge(*batches))
    changes: list[IndexMutation] = []
    for n in rng.sample(range(400), 80):
        position = 1000 + n
        if n % 2:
            changes.append(IndexRemove("default", f"m{n}", position))
        else:
            changes.append(IndexSetState("default", f"m{n}", MemoryState.HISTORICAL, position))
    apply(idx, (changes, {}))
    yield idx
    idx.close()


def all_turns(shard: qe.EdgeShard) -> list[Turn]:
    records, _ = shard.scroll(qe.ScrollRequest(limit=10_000, with_payload=True))
    turns = [ip.turn_of(point_key(r.id), r.payload) for r in records if r.payload]
    return [t for t in turns if t.is_turn]


FILTERS: dict[str, dict[str, Any]] = {
    "everything": {},
    "one scope": {"scopes": ["user:alice"]},
    "tagged": {"tags": ["red"]},
    "every state": {"states": (MemoryState.ACTIVE, MemoryState.HISTORICAL)},
    "another tenant": {"tenant": "other"},
}


def compare(
    shard: qe.EdgeShard, terms: ip.FilterTerms, rng: random.Random, reaches: Any
) -> tuple[CountingShard, CountingShard]:
    """80 searches' lookups, each answered by ``neighbours`` and by the ordered scrolls."""
    turns = all_turns(shard)
    windowed, ordered = CountingShard(shard), CountingShard(shard)
    # The windowed side keeps turn fields between searches, as the adapter does.
    payloads = TurnPayloads()
    for _ in range(80):
        conversation = rng.choice([(s, c) for s in SCOPES for c in SESSIONS])
        same = [t for t in turns if (t.scope, t.session) == conversation]
        # Seeds of one conversation (where windows are read) and of any.
        seeds = rng.sample(same, min(SEEDS, len(same)))
        seeds += rng.sample(turns, 2)
        for limit in (1, 2, 3):
            queries = [ip.NeighbourQuery(terms, s, b, limit) for s in seeds for b in (True, False)]
            expected = edge_reads.ordered_neighbours(ordered, queries)  # type: ignore[arg-type]
            found = edge_reads.neighbours(windowed, queries, reaches, payloads=payloads)  # type: ignore[arg-type]
            assert found == expected
    return windowed, ordered


@pytest.mark.parametrize("hints", ["none", "earlier searches"])
@pytest.mark.parametrize("window_limit", [3, edge_reads.WINDOW_LIMIT])
@pytest.mark.parametrize("name", list(FILTERS))
def test_windows_answer_as_ordered_scrolls(
    index: QdrantEdgeIndex,
    name: str,
    window_limit: int,
    hints: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 3: windows often too full to be used, the scrolls answer instead.
    monkeypatch.setattr(edge_reads, "WINDOW_LIMIT", window_limit)
    terms = ip.filter_terms(q(text="turn", mode="keyword", now=NOW, **FILTERS[name]))
    shard = index._live()  # nothing writes meanwhile: no lock needed
    reaches = edge_reads.Reaches() if hints != "none" else None
    windowed, ordered = compare(shard, terms, random.Random(name), reaches)
    # Windows answered some sides and the scrolls the others: both paths were compared.
    assert windowed.windows > 0
    assert 0 < windowed.ordered < ordered.ordered


@pytest.mark.parametrize("width", [1e-6, 0.5, 3.0, 40.0, 1e9])
def test_a_wrong_hint_costs_reads_never_a_different_answer(
    index: QdrantEdgeIndex, width: float
) -> None:
    """Every conversation hinted far too narrow, about right or far too wide: the first
    seeds read windows of that width, and every side they cannot prove is scrolled."""

    class Stuck(edge_reads.Reaches):
        def get(self, conversation: Any) -> float | None:
            return width

        def put(self, conversation: Any, width: float) -> None:
            pass

    terms = ip.filter_terms(q(text="turn", mode="keyword", now=NOW))
    windowed, _ = compare(index._live(), terms, random.Random(str(width)), Stuck())
    assert windowed.windows > 0


def test_earlier_searches_save_the_first_seeds_scrolls(index: QdrantEdgeIndex) -> None:
    terms = ip.filter_terms(q(text="turn", mode="keyword", now=NOW))
    shard = index._live()
    cold, _ = compare(shard, terms, random.Random("same"), None)
    warm, _ = compare(shard, terms, random.Random("same"), edge_reads.Reaches())
    assert warm.ordered < cold.ordered


@pytest.mark.parametrize("page", [1, 2, ip.TIES_PAGE])
def test_turns_at_the_same_time_are_chosen_by_point_key(
    index: QdrantEdgeIndex, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The definition itself, on turns whose whole-second times repeat: every matching
    turn on the side (one unordered read of all of them), nearest first, equal times in
    key order. The engine's scroll orders equal times by its internal offsets; the
    lookup must not (a window and a scroll would then answer differently). Pages of one
    and two turns make the read of a time's turns go page by page."""
    monkeypatch.setattr(ip, "TIES_PAGE", page)
    terms = ip.filter_terms(q(text="turn", mode="keyword", now=NOW))
    shard = index._live()
    filters = edge_reads._Filters(shard, TurnPayloads(0))
    rng = random.Random(page)
    turns = all_turns(shard)
    decided_by_key = 0
    for seed in rng.sample(turns, 60):
        for before in (True, False):
            side = (
                qe.RangeFloat(lt=seed.created_at) if before else qe.RangeFloat(gt=seed.created_at)
            )
            records, _ = shard.scroll(
                qe.ScrollRequest(limit=10_000, filter=filters(terms, seed, side), with_payload=True)
            )
            every = sorted(
                (
                    abs(float(r.payload[ip.F_CREATED_AT]) - seed.created_at),
                    point_key(r.id),
                )
                for r in records
                if r.payload
            )
            for limit in (1, 2, 3):
                query = ip.NeighbourQuery(terms, seed, before, limit)
                (found,) = edge_reads.ordered_neighbours(shard, [query])
                assert [key for key, _ in found] == [key for _, key in every[:limit]]
                if len(every) > limit and every[limit][0] == every[limit - 1][0]:
                    decided_by_key += 1
    assert decided_by_key > 10  # the boundary fell between equal times often enough


# --- conversations' timelines (``edge_timelines``) -------------------------------------

PERIODS = ((T0 + timedelta(seconds=40)).timestamp(), (T0 + timedelta(seconds=150)).timestamp())


def timeline_terms(name: str) -> ip.FilterTerms:
    """``FILTERS``, and periods (no search asks its neighbours for one today; the
    timelines must still answer as the engine would)."""
    if name == "periods":
        terms = ip.filter_terms(q(text="turn", mode="keyword", now=NOW))
        return dataclasses.replace(terms, created_in=(PERIODS, (PERIODS[1] + 60, PERIODS[1] + 90)))
    return ip.filter_terms(q(text="turn", mode="keyword", now=NOW, **FILTERS[name]))


def from_timelines(idx: QdrantEdgeIndex, shard: CountingShard, queries: Any) -> Any:
    """``neighbours`` as the adapter asks it, with its kept fields and timelines."""
    return edge_reads.neighbours(
        shard,  # type: ignore[arg-type]
        queries,
        None,
        payloads=idx._context.payloads,
        timelines=idx._context.timelines,
    )


def wait_complete(idx: QdrantEdgeIndex) -> None:
    deadline = time.monotonic() + 30
    while not idx._context.timelines.complete:
        assert time.monotonic() < deadline, "the timelines' warm-up did not end"
        time.sleep(0.01)


def later_changes(n0: int) -> Batch:
    """New turns (some at times already taken), forgets, state changes and a rewrite to
    another time, after the fixture's."""
    rng = random.Random(n0)
    batches: list[Batch] = []
    for n in range(n0, n0 + 40):
        batches.append(
            put(
                f"m{n}",
                5000 + n,
                axis(1, n % 7 + 1),
                "a later turn",
                type_=MemoryType.INTERACTION,
                scope=rng.choice(SCOPES),
                created_at=T0 + timedelta(seconds=rng.randrange(300)),
                meta={"session_id": rng.choice(("s1", "s2"))},
            )
        )
    batch = merge(*batches)
    changes: list[IndexMutation] = list(batch[0])
    for n in rng.sample(range(400), 30):
        if n % 3 == 0:
            changes.append(IndexRemove("default", f"m{n}", 9000 + n))
        elif n % 3 == 1:
            changes.append(IndexSetState("default", f"m{n}", MemoryState.ARCHIVED, 9000 + n))
    moved = put(
        "m1",
        9999,
        axis(1, 2),
        "moved",
        type_=MemoryType.INTERACTION,
        scope="user:alice",
        created_at=T0,
    )
    return changes + moved[0], {**batch[1], **moved[1]}


@pytest.mark.parametrize("opened", ["applied", "reopened", "reopened, then changed"])
@pytest.mark.parametrize("name", [*FILTERS, "periods"])
def test_timelines_answer_as_ordered_scrolls(
    index: QdrantEdgeIndex, tmp_path: Path, name: str, opened: str
) -> None:
    """Timelines kept by applies, warmed from a reopened shard, and warmed then kept:
    every side of every seed answers as the ordered scrolls do, most without the
    engine."""
    idx = index
    if opened != "applied":
        index.close()
        idx = QdrantEdgeIndex(tmp_path / "index", DIM, "test-model")
        wait_complete(idx)
        if opened == "reopened, then changed":
            apply(idx, later_changes(1000))
    try:
        terms = timeline_terms(name)
        shard = idx._live()
        counting = CountingShard(shard)
        rng = random.Random(f"{name}/{opened}")
        # Seeds are hits, which the filter admitted.
        must, must_not = edge_reads.conditions(terms)
        if terms.created_in:
            must.append(
                qe.Filter(
                    should=[
                        qe.FieldCondition(ip.F_CREATED_AT, range=qe.RangeFloat(gte=a, lt=b))
                        for a, b in terms.created_in
                    ]
                )
            )
        records, _ = shard.scroll(
            qe.ScrollRequest(
                limit=10_000,
                filter=qe.Filter(must=must, must_not=must_not or None),
                with_payload=True,
            )
        )
        admitted = {point_key(r.id) for r in records}
        turns = [t for t in all_turns(shard) if t.key in admitted]
        assert len(turns) > 15
        for _ in range(60):
            seeds = rng.sample(turns, SEEDS)
            for limit in (1, 2, 3):
                queries = [
                    ip.NeighbourQuery(terms, s, b, limit) for s in seeds for b in (True, False)
                ]
                expected = edge_reads.ordered_neighbours(shard, queries)
                assert from_timelines(idx, counting, queries) == expected
        sides = 60 * 3 * SEEDS * 2
        # The engine answered few of them (and read no window: those are its own path).
        assert counting.ordered < sides / 4
    finally:
        idx.close()


def test_a_warm_up_with_applies_between_its_pages_ends_as_one_without(
    index: QdrantEdgeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of a warm-up with applies landing between them (each apply's engine update,
    then what it wrote, as the adapter runs them) end with the same timelines as a
    warm-up of the final shard alone, and as the adapter's own, kept by its applies."""
    shard = index._live()
    warming = Timelines()
    kept = index._context.timelines.wrote

    def wrote_both(writes: Any) -> None:  # what the adapter wrote reaches the warming too
        kept(writes)
        warming.wrote(writes)

    monkeypatch.setattr(index._context.timelines, "wrote", wrote_both)
    warming.begin_warm()
    mutations, vectors = later_changes(2000)
    pending = [([m], vectors) for m in mutations]
    offset: Any = None
    while True:
        offset = warming.warm(shard, offset, 16, TurnPayloads())
        for batch in pending[:3]:
            apply(index, batch)
        del pending[:3]
        if offset is None:
            break
    for batch in pending:
        apply(index, batch)
    alone = Timelines()
    alone.begin_warm()
    offset = None
    while (offset := alone.warm(shard, offset, 1000, TurnPayloads())) is not None:
        pass
    assert warming.complete and alone.complete
    assert len(alone) > 300
    assert warming._of == alone._of
    assert warming._where == alone._where
    assert index._context.timelines._of == alone._of


def test_past_its_limit_a_shard_is_served_by_the_engine(tmp_path: Path) -> None:
    """More turns than the timelines may hold: they let go of them (bounded memory), the
    engine's lookups answer, and nothing reports a warm-up that never ends — when the
    turns arrive by applies and when a reopened shard is read."""
    idx = QdrantEdgeIndex(tmp_path / "index", DIM, "test-model", timeline_limit=20)
    try:
        apply(idx, later_changes(3000))
        assert not idx._context.timelines.complete
        assert len(idx._context.timelines) == 0
        assert idx.compaction_status()["context_warming"] == 0.0
        shard = idx._live()
        terms = timeline_terms("everything")
        seeds = [t for t in all_turns(shard)][:SEEDS]
        queries = [ip.NeighbourQuery(terms, s, b, 2) for s in seeds for b in (True, False)]
        counting = CountingShard(shard)
        expected = edge_reads.ordered_neighbours(shard, queries)
        assert from_timelines(idx, counting, queries) == expected
        assert counting.ordered > 0
    finally:
        idx.close()
    idx = QdrantEdgeIndex(tmp_path / "index", DIM, "test-model", timeline_limit=20)
    try:
        deadline = time.monotonic() + 30
        while idx._context.timelines.warming:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert not idx._context.timelines.complete
        assert idx.compaction_status()["context_warming"] == 0.0
    finally:
        idx.close()


def test_timelines_prove_nothing_while_not_complete() -> None:
    """A search that saw them complete and walks after they let go (or before a warm-up
    ends) proves no side from them: the engine answers it."""
    timelines = Timelines()
    conversation = ("default", "user:alice", None)
    assert timelines.walk(conversation, 1.0, True, 3) == ([], False)
    timelines.clear()  # a new, empty shard: complete
    assert timelines.walk(conversation, 1.0, True, 3) == ([], True)
