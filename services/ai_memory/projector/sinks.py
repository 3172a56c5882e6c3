"""Projection sinks: where a batch of logged events becomes read-model state.

A sink turns events into mutations with the pure projector and hands them, with the
batch's last position as the new checkpoint, to its port in one call. The tailer and the
stream-processor agents both drive these same sinks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ai_memory.core.events import LoggedEvent
from ai_memory.core.keywords import sparse_terms
from ai_memory.core.ports import (
    Embedder,
    RecordStore,
    SparseVector,
    Vector,
    VectorIndex,
    index_text,
)
from ai_memory.core.projection import (
    IndexMutation,
    IndexPut,
    RecordMutation,
    project_index,
    project_records,
)
from ai_memory.telemetry import span


class ProjectionSink(Protocol):
    name: str

    def checkpoint(self, partition: int = 0) -> int: ...

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        """Apply a batch of one partition's events, in order."""
        ...

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None:
        """Advance the checkpoint past an event that was dead-lettered, not applied."""
        ...

    def idle(self) -> None:
        """Called when the log has nothing new: a chance to make buffered work durable."""
        ...


class RecordsSink:
    name = "records"

    def __init__(self, store: RecordStore) -> None:
        self.store = store

    def checkpoint(self, partition: int = 0) -> int:
        return self.store.checkpoint(partition)

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        if not events:
            return
        mutations: list[RecordMutation] = []
        for logged in events:
            mutations.extend(project_records(logged))
        with span("aimem.records.apply", {"aimem.mutations": len(mutations)}):
            self.store.apply(mutations, checkpoint=events[-1].position, partition=partition)

    def reset(self) -> None:
        self.store.reset()

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.store.apply([], checkpoint=position, partition=partition)

    def idle(self) -> None:
        pass  # every apply already commits with its checkpoint


class IndexSink:
    name = "index"

    def __init__(self, index: VectorIndex, embedder: Embedder) -> None:
        self.index = index
        self.embedder = embedder

    def checkpoint(self, partition: int = 0) -> int:
        return self.index.checkpoint(partition)

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        if not events:
            return
        mutations: list[IndexMutation] = []
        for logged in events:
            mutations.extend(project_index(logged))
        puts = [m for m in mutations if isinstance(m, IndexPut)]
        vectors: dict[int, tuple[Vector, SparseVector]] = {}
        if puts:
            # One embedder call per batch: static embedders are fast, model ones batch well.
            texts = [index_text(p.record) for p in puts]
            with span("aimem.index.embed", {"aimem.texts": len(texts)}):
                dense = self.embedder.embed(texts)
            for put, text, row in zip(puts, texts, dense, strict=True):
                vectors[put.position] = (row, sparse_terms(text))
        with span("aimem.index.apply", {"aimem.mutations": len(mutations)}):
            self.index.apply(
                mutations, vectors, checkpoint=events[-1].position, partition=partition
            )

    def reset(self) -> None:
        self.index.reset()

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.index.apply([], {}, checkpoint=position, partition=partition)

    def idle(self) -> None:
        self.index.flush()
