"""Conversation context's neighbour lookup in Qdrant Edge (``edge_reads.neighbours``) reads
a window of time around a seed once another seed of its conversation showed how far apart
its turns are; it must answer exactly what one ordered scroll per seed and side answers
(``ordered_neighbours``): same turns, same order, for every filter — on turns that share
their times, in several sessions and scopes, some forgotten, historical, expired, tagged
otherwise or of another tenant. Both choose among turns at the same time by point key
(the engine's scroll would by its internal offsets), which the last test pins against
an unordered read of every turn."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from ai_memory.adapters import edge_reads
from ai_memory.adapters import index_payload as ip
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
