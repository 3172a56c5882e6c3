"""Every contract suite against the in-memory adapters. A factory that opens another
adapter on the same backing is a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ai_memory.adapters.memory import (
    DeadLetterBacking,
    IndexBacking,
    KeyBacking,
    MemoryDeadLetters,
    MemoryEventLog,
    MemoryKeyStore,
    MemoryRecordStore,
    MemoryVectorIndex,
)
from ai_memory.core.ports import EventLog, RecordStore
from ai_memory.serialization import AvroEventSerializer
from tests.contract import (
    dead_letters_contract,
    key_store_contract,
    vector_index_contract,
)
from tests.contract.dead_letters_contract import DeadLettersContract
from tests.contract.event_log_contract import EventLogContract
from tests.contract.key_store_contract import KeyStoreContract
from tests.contract.record_store_contract import RecordStoreContract
from tests.contract.sealed_view_contract import SealedViewContract
from tests.contract.vector_index_contract import (
    DIM,
    VectorIndexContract,
    apply,
    axis,
    ids,
    merge,
    put,
    q,
)


class TestMemoryEventLog(EventLogContract):
    @pytest.fixture
    def log(self) -> Iterator[EventLog]:
        yield MemoryEventLog(AvroEventSerializer())


class TestMemoryRecordStore(RecordStoreContract):
    @pytest.fixture
    def store(self) -> Iterator[RecordStore]:
        yield MemoryRecordStore()


class TestSealedMemoryRecordStore(SealedViewContract):
    @pytest.fixture
    def inner(self) -> Iterator[RecordStore]:
        yield MemoryRecordStore()


class TestMemoryVectorIndex(VectorIndexContract):
    @pytest.fixture
    def make_index(self) -> Iterator[vector_index_contract.MakeIndex]:
        backing = IndexBacking()
        yield lambda: MemoryVectorIndex(DIM, backing)


class TestMemoryDeadLetters(DeadLettersContract):
    @pytest.fixture
    def make_store(self) -> dead_letters_contract.MakeStore:
        backing = DeadLetterBacking()
        return lambda: MemoryDeadLetters(backing)


class TestMemoryKeyStore(KeyStoreContract):
    @pytest.fixture
    def make_store(self) -> key_store_contract.MakeStore:
        backing = KeyBacking()
        return lambda: MemoryKeyStore(backing)


def test_memory_index_ranks_and_scores_as_qdrant_edge(tmp_path: Path) -> None:
    """The in-memory index stands in for Qdrant in service tests: same order, same scores
    (cosine, IDF-weighted keywords, fusion) on a corpus with shared and rare terms."""
    from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex

    rng = np.random.default_rng(7)
    words = [
        "tea",
        "coffee",
        "deploy",
        "postgres",
        "kubernetes",
        "alice",
        "bob",
        "green",
        "morning",
        "cluster",
    ]
    batch = merge(
        *(
            put(
                f"m{i}",
                i + 1,
                axis(*rng.normal(size=4)),
                " ".join(rng.choice(words, size=3)),
                tenant="a" if i % 5 else "b",
            )
            for i in range(40)
        )
    )
    edge = QdrantEdgeIndex(tmp_path / "edge", DIM, "test-model")
    memory = MemoryVectorIndex(DIM)
    try:
        for index in (edge, memory):
            apply(index, batch)
        for mode in ("semantic", "keyword", "hybrid"):
            # a limit above the candidates: which of several tied hits an engine keeps at
            # its cut-off is its own storage order, and not part of the contract
            text = "postgres on the green cluster"
            query = q(axis(1, 0.5, -0.2), text, mode=mode, tenant="a", limit=40)
            want, got = edge.search(query), memory.search(query)
            assert ids(got) == ids(want)
            assert [h.score for h in got] == pytest.approx([h.score for h in want], rel=1e-4)
        assert memory.count("a") == edge.count("a") == 32
    finally:
        edge.close()
