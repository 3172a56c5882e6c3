"""The composition root: settings/URLs → adapters → service + projection drivers.

Every entry point (HTTP server, CLI, tests, benchmarks) builds its object graph here and
nowhere else. URL paths follow the SQLAlchemy convention: ``sqlite:///rel/path`` is
relative, ``sqlite:////abs/path`` absolute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.clock import SystemClock
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import Clock, Embedder, EventLog, RecordStore, VectorIndex
from ai_memory.projector.sinks import IndexSink, RecordsSink
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.memory_service import MemoryService
from ai_memory.settings import Settings


def url_path(url: str, scheme: str) -> Path:
    prefix = f"{scheme}:///"
    if not url.startswith(prefix):
        raise InvalidInput("settings", "url", f"expected a {prefix}<path> URL, got {url!r}")
    return Path(url[len(prefix) :])


@dataclass
class Projections:
    """Waits until every projection has applied a log position."""

    tailers: list[ProjectionTailer] = field(default_factory=list)

    def wait(self, position: int, timeout: float) -> bool:
        import time

        deadline = time.monotonic() + timeout
        return all(t.wait(position, max(0.0, deadline - time.monotonic())) for t in self.tailers)

    def lag(self, head: int) -> dict[str, int]:
        return {t.name: max(0, head - t.position) for t in self.tailers}


@dataclass
class Container:
    settings: Settings
    log: EventLog
    store: RecordStore
    index: VectorIndex
    embedder: Embedder
    clock: Clock
    projections: Projections
    service: MemoryService

    def start(self) -> None:
        for tailer in self.projections.tailers:
            tailer.start()

    def close(self) -> None:
        for tailer in self.projections.tailers:
            tailer.stop()
        self.index.close()
        self.store.close()
        self.log.close()


def build_event_log(url: str) -> EventLog:
    if url.startswith("sqlite:"):
        return SqliteEventLog(url_path(url, "sqlite"), AvroEventSerializer())
    raise InvalidInput("AIMEM_EVENT_LOG", "scheme", f"unsupported event log URL: {url!r}")


def build_record_store(url: str) -> RecordStore:
    if url.startswith("sqlite:"):
        return SqliteRecordStore(url_path(url, "sqlite"))
    raise InvalidInput("AIMEM_RECORD_STORE", "scheme", f"unsupported record store URL: {url!r}")


def build_index(url: str, embedder: Embedder) -> VectorIndex:
    if url.startswith("qdrant-edge:"):
        # One index per embedding model: vectors from different models never mix.
        root = url_path(url, "qdrant-edge")
        # The engine's HNSW build holds the GIL for its whole run (over a minute at 100k
        # points), so it never runs inside a live server: `ai-memory replay --projection
        # index` and `ai-memory optimize` run it offline. Scoped queries stay fast without
        # it because the engine filters on payload indexes first.
        return QdrantEdgeIndex(
            root / embedder.name, dim=embedder.dim, model_name=embedder.name, optimize_after=None
        )
    raise InvalidInput("AIMEM_INDEX", "scheme", f"unsupported index URL: {url!r}")


def build(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    embedder: Embedder | None = None,
) -> Container:
    s = (settings or Settings.from_env()).resolved()
    s.data_dir.mkdir(parents=True, exist_ok=True)
    embedder = embedder or make_embedder(s.embedder)
    log = build_event_log(s.event_log_url)
    store = build_record_store(s.record_store_url)
    index = build_index(s.index_url, embedder)
    projections = Projections(
        [
            ProjectionTailer(log, RecordsSink(store), batch_size=s.projector_batch),
            ProjectionTailer(log, IndexSink(index, embedder), batch_size=s.projector_batch),
        ]
    )
    clock = clock or SystemClock()
    service = MemoryService(
        log=log,
        store=store,
        index=index,
        embedder=embedder,
        clock=clock,
        waiter=projections,
        limits=s.limits,
        wait_timeout=s.wait_timeout,
    )
    return Container(s, log, store, index, embedder, clock, projections, service)
