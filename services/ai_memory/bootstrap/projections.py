"""Where each projection runs: tailers in this process for the views only it may open
(or every view of an embedded log), else ``ai-memory project`` workers whose checkpoints
this process reads; and the sink of one such worker."""

from __future__ import annotations

from ai_memory.adapters.embedders import make_embedder
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import DeadLetters, Embedder, EventLog, EventSerializer
from ai_memory.projector.policy import RawOf
from ai_memory.projector.progress import Projections
from ai_memory.projector.sinks import IndexSink, ProjectionSink, RecordsSink
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.settings import Settings

from .by_url import build_index, build_record_store, compaction_policy
from .security import index_tag_key, root_key
from .urls import scheme_of

PROJECTIONS = ("records", "index")


def single_process(url: str) -> bool:
    """Views that only one process may open: they are projected where they are read."""
    return scheme_of(url) in ("sqlite", "qdrant-edge", "qdrant+local", "qdrant+memory", "memory")


def build_projections(
    s: Settings,
    log: EventLog,
    views: list[tuple[ProjectionSink, str]],
    serializer: EventSerializer,
    dead_letters: DeadLetters,
    *,
    embedded_log: bool,
) -> Projections:
    """The projections of a process: a tailer per partition for each view (a sink and its
    URL) this process must drive itself, the others read through their workers'
    checkpoints."""
    projections = Projections(log, packed_positions=not embedded_log)
    for sink, url in views:
        if embedded_log or single_process(url):
            projections.tailers += [
                ProjectionTailer(
                    log,
                    sink,
                    batch_size=s.projector_batch,
                    linger=s.projector_linger,
                    partition=p,
                    dead_letters=dead_letters,
                    raw_of=raw_frames(serializer),  # parked raw bytes stay sealed
                )
                for p in log.partitions()
            ]
        else:
            projections.external.append(sink)
    return projections


def raw_frames(serializer: EventSerializer) -> RawOf:
    """The bytes a projection parks with a dead letter: the event as the log holds it."""
    return lambda logged: serializer.encode(logged.event)


def build_sink(settings: Settings, projection: str) -> tuple[ProjectionSink, Embedder | None]:
    """One projection's sink for an `ai-memory project` worker."""
    s = settings.resolved()
    if projection == "records":
        return RecordsSink(build_record_store(s.record_store_url, shred=s.encryption == "on")), None
    if projection == "index":
        embedder = make_embedder(s.embedder)
        index = build_index(
            s.index_url,
            embedder,
            tag_key=index_tag_key(root_key(s)),
            compaction=compaction_policy(s),
            search_threads=s.index_search_threads,
        )
        index.start_compaction()  # a worker is a serving process
        return IndexSink(index, embedder), embedder
    raise InvalidInput("projection", "enum", f"projection must be one of {', '.join(PROJECTIONS)}")
