"""Replaying the log into a projection from position 0 (``ai-memory replay``).

The command drives the progress and the output; this runs the projections' rebuilds over
the log a process opened without appending (stop an embedded server first). Dead
letters are met again: a replay parks only what still fails.
"""

from __future__ import annotations

from collections.abc import Callable

from ai_memory.core import positions
from ai_memory.core.ports import DeadLetters, Embedder, EventLog, RecordStore, VectorIndex

from .policy import RawOf
from .sinks import IndexSink, ProjectionSink, RecordsSink
from .tailer import ProgressCallback, ProjectionTailer, rebuild_all


def replay_tailers(
    log: EventLog, sink: ProjectionSink, dead_letters: DeadLetters | None, raw_of: RawOf
) -> list[ProjectionTailer]:
    """Tailers that replay the log into ``sink`` synchronously, dead-lettering what they
    cannot apply exactly as the live projections do."""
    return [
        ProjectionTailer(log, sink, partition=p, dead_letters=dead_letters, raw_of=raw_of)
        for p in log.partitions()
    ]


class Replay:
    """The rebuilds of the ``records`` and ``index`` projections over one log."""

    def __init__(
        self,
        log: EventLog,
        *,
        packed_positions: bool,
        store: RecordStore,
        index: VectorIndex,
        embedder: Embedder,
        dead_letters: DeadLetters | None,
        raw_of: RawOf,
        close: Callable[[], None],
    ) -> None:
        self._log = log
        self._packed = packed_positions
        self._store = store
        self._index = index
        self._embedder = embedder
        self._dead_letters = dead_letters
        self._raw_of = raw_of
        self._close = close

    def log_size(self) -> int:
        """Events on the log (upper bound), for the progress bar."""
        total = 0
        for p in self._log.partitions():
            last = self._log.last_position(p)
            if self._packed:
                total += positions.offset_of(last) + 1 if last else 0
            else:
                total += last
        return total

    def clear_dead_letters(self, name: str) -> None:
        """The replay meets every parked event again and parks only what still fails."""
        store = self._dead_letters
        if store is not None:
            for entry in store.entries(name, limit=1_000_000):
                store.resolve(entry.projection, entry.position)

    def run(
        self, name: str, progress: ProgressCallback, *, switching: Callable[[], None]
    ) -> tuple[int, int]:
        """Replay one projection from position 0: ``(applied, dead-lettered)``.
        ``switching`` is called just before a rebuilt index replaces the live one."""
        if name == "records":
            tailers = self._tailers(RecordsSink(self._store))
            applied = rebuild_all(tailers, progress)
            return applied, sum(t.dead_lettered for t in tailers)
        # The index's own rebuild (a port operation): a new generation switched in by alias
        # on a Qdrant server, the live index reset and compacted in place otherwise.
        rebuild = self._index.rebuild()
        try:
            tailers = self._tailers(IndexSink(rebuild.target, self._embedder))
            for tailer in tailers:
                tailer.rewind()
            applied = sum(t.catch_up(progress) for t in tailers)
            switching()
            rebuild.switch()
            # Events that arrived while switching: live workers may have sent them to the
            # old generation; replaying them into the new one is idempotent.
            applied += sum(t.catch_up(progress) for t in tailers)
        finally:
            rebuild.close()
        return applied, sum(t.dead_lettered for t in tailers)

    def close(self) -> None:
        self._close()

    def _tailers(self, sink: ProjectionSink) -> list[ProjectionTailer]:
        return replay_tailers(self._log, sink, self._dead_letters, self._raw_of)
