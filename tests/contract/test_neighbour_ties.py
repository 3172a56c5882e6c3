"""Conversation context's nearest turns when turns share their times: every adapter
chooses among equal times by point key (``index_payload.nearest_first``), whatever order
its engine keeps equal times in and however the lookup read them (Qdrant Edge's ordered
scroll or window read, the Qdrant server's ordered query, the in-memory scan). Turns are
written in the reverse of their keys' order, so an engine that kept them in insertion
order would answer otherwise."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ai_memory.adapters import edge_reads
from ai_memory.adapters import index_payload as ip
from ai_memory.adapters.memory import vector_index as memory_index
from ai_memory.adapters.memory.vector_index import MemoryVectorIndex
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.qdrant_server_index import QdrantServerIndex
from ai_memory.core.conversation_context import Turn
from ai_memory.core.record import MemoryType
from tests.contract.vector_index_contract import DIM, apply, axis, merge, put, q
from tests.factories import T0

Lookup = Callable[[Sequence[ip.NeighbourQuery]], Sequence[Sequence[tuple[str, Any]]]]
SCOPE = "user:alice"
# Seconds from the seed: two turns alone at ±5 s, then six that share ±10 s, one at ±20 s.
OFFSETS = [5, 6] + [10] * 6 + [20]


def turns() -> list[tuple[str, float]]:
    """(memory id, seconds from T0) of every turn but the seed (at 0), on both sides."""
    out = []
    for sign, side in ((1, "a"), (-1, "b")):
        for n, offset in enumerate(OFFSETS):
            out.append((f"{side}{n}", float(sign * offset)))
    return out


def key_of(memory_id: str) -> str:
    return ip.point_id("default", memory_id).replace("-", "")


@pytest.fixture(params=["edge", "server", "memory"])
def lookup(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Lookup]:
    # Pages of two: the six turns of one time are read page by page in both engines.
    monkeypatch.setattr(ip, "TIES_PAGE", 2)
    written = sorted(turns(), key=lambda t: key_of(t[0]), reverse=True)
    batch = merge(
        put("seed", 1, axis(1), "a turn", scope=SCOPE, type_=MemoryType.INTERACTION, created_at=T0),
        *(
            put(
                mid,
                n + 2,
                axis(1),
                "a turn",
                scope=SCOPE,
                type_=MemoryType.INTERACTION,
                created_at=T0 + timedelta(seconds=offset),
            )
            for n, (mid, offset) in enumerate(written)
        ),
    )
    if request.param == "edge":
        edge = QdrantEdgeIndex(tmp_path / "edge", DIM, "test-model")
        apply(edge, batch)
        yield lambda queries: edge_reads.neighbours(edge._live(), queries, None)
        edge.close()
    elif request.param == "server":
        server = QdrantServerIndex.from_url(f"qdrant+local://{tmp_path / 'qdrant'}", DIM, "m")
        apply(server, batch)
        yield server._neighbours
        server.close()
    else:
        memory = MemoryVectorIndex(DIM)
        apply(memory, batch)
        points = list(memory.backing.points.items())
        yield lambda queries: [memory_index._neighbours(points, query) for query in queries]


def expected(before: bool, limit: int) -> list[str]:
    side = [(abs(offset), key_of(mid), mid) for mid, offset in turns() if (offset < 0) == before]
    return [mid for _, _, mid in sorted(side)[:limit]]


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 8, 9, 12])
def test_equal_times_are_chosen_by_point_key(lookup: Lookup, limit: int) -> None:
    terms = ip.filter_terms(q(text="turn", mode="keyword", now=T0 + timedelta(days=1)))
    seed = Turn(key_of("seed"), SCOPE, None, T0.timestamp(), True)
    queries = [ip.NeighbourQuery(terms, seed, before, limit) for before in (True, False)]
    answers = lookup(queries)
    for query, answer in zip(queries, answers, strict=True):
        assert [payload[ip.F_MEMORY_ID] for _, payload in answer] == expected(query.before, limit)
