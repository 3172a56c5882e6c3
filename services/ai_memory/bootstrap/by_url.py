"""The adapters chosen by URL: the event log, the record store, the vector index and the
dead letters (``AIMEM_EVENT_LOG``, ``AIMEM_RECORD_STORE``, ``AIMEM_INDEX``)."""

from __future__ import annotations

from dataclasses import asdict

from ai_memory.adapters.edge_compaction import CompactionPolicy
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import (
    DeadLetters,
    Embedder,
    EventLog,
    EventSerializer,
    RecordStore,
    VectorIndex,
)
from ai_memory.serialization import AvroEventSerializer
from ai_memory.settings import Settings

from .urls import scheme_of, url_path


def build_event_log(
    s: Settings,
    serializer: EventSerializer | None = None,
    *,
    writer: bool = True,
    owns_partitions: bool = True,
) -> EventLog:
    """The log of record. On Kafka, ``writer`` lets this process append, and
    ``owns_partitions`` makes it one of the partition writers (a gateway) rather than a
    process that forwards its appends to them (the governor, a stdio MCP server); tools
    that only read (replay, workers) pass ``writer=False``."""
    url = s.event_log_url
    serializer = serializer or AvroEventSerializer()
    if scheme_of(url) == "sqlite":
        return SqliteEventLog(url_path(url, "sqlite"), serializer)
    if scheme_of(url) == "memory":
        from ai_memory.adapters.memory import MemoryEventLog

        return MemoryEventLog(serializer)
    if scheme_of(url) == "kafka":
        from ai_memory.adapters.kafka.event_log import KafkaEventLog, WriterConfig

        config = None
        if writer:
            config = WriterConfig(
                listen=s.peer_listen,
                advertised=s.peer_url or None,
                token=s.peer_token or None,
                owns_partitions=owns_partitions,
            )
        return KafkaEventLog.from_url(url, serializer, writer=config)
    raise InvalidInput("AIMEM_EVENT_LOG", "scheme", f"unsupported event log URL: {url!r}")


def build_record_store(url: str, *, shred: bool = False) -> RecordStore:
    """``shred``: forgotten records leave no bytes in the store's files (encryption on)."""
    if scheme_of(url) == "sqlite":
        return SqliteRecordStore(url_path(url, "sqlite"), shred=shred)
    if scheme_of(url) == "memory":
        from ai_memory.adapters.memory import MemoryRecordStore

        return MemoryRecordStore()
    if scheme_of(url) == "cassandra":
        from ai_memory.adapters.cassandra.record_store import CassandraRecordStore

        return CassandraRecordStore.from_url(url)
    raise InvalidInput("AIMEM_RECORD_STORE", "scheme", f"unsupported record store URL: {url!r}")


def seals_view_at_rest(url: str) -> bool:
    """Whether the records view keeps content sealed at rest when encryption is on: the
    stores with files. Cassandra keeps a deleted row in SSTables, commit-log segments,
    snapshots and backups until compaction; SQLite zeroes freed pages and truncates its
    WAL on a forget, but a copy of ``records.db`` taken before keeps it. The in-memory
    store has no files."""
    return scheme_of(url) in ("cassandra", "sqlite")


def build_index(
    url: str,
    embedder: Embedder,
    *,
    tag_key: bytes | None = None,
    compaction: CompactionPolicy | None = None,
    own_process: bool = False,
    search_threads: int = 1,
) -> VectorIndex:
    """``tag_key`` (encryption on): the index stores keyed digests of tags, not tags.
    ``compaction``: how an embedded index compacts once ``start_compaction`` is called.
    ``own_process``: an embedded index runs in a child process (``adapters.index_process``).
    ``search_threads``: an embedded index's threads per search (0: the engine's pool)."""
    index = _build_index(url, embedder, compaction, own_process, search_threads)
    if tag_key is not None:
        from ai_memory.adapters.tag_digest_index import TagDigestIndex

        return TagDigestIndex(index, tag_key)
    return index


def compaction_policy(s: Settings) -> CompactionPolicy | None:
    if s.index_compact_after == 0:
        return None
    return CompactionPolicy(after_points=s.index_compact_after, forget_delay=s.index_forget_delay)


def _build_index(
    url: str,
    embedder: Embedder,
    compaction: CompactionPolicy | None,
    own_process: bool,
    search_threads: int,
) -> VectorIndex:
    if scheme_of(url) == "qdrant-edge" and own_process:
        from ai_memory.adapters.index_process import IndexSpec, ProcessIndex

        return ProcessIndex(
            IndexSpec(
                str(url_path(url, "qdrant-edge") / embedder.name),
                embedder.dim,
                embedder.name,
                optimize_after=None,
                flush_interval=5.0,
                compaction=None if compaction is None else asdict(compaction),
                search_threads=search_threads,
            )
        )
    if scheme_of(url) == "qdrant-edge":
        # One index per embedding model: vectors from different models never mix. The
        # engine's HNSW build holds the GIL for its whole run (tens of seconds at 100k
        # points), so it never runs on a live server's interpreter: a serving process
        # compacts in a child process (adapters/edge_compaction.py); offline tools run
        # it in place (`ai-memory optimize`, the end of `replay --projection index`).
        root = url_path(url, "qdrant-edge")
        return QdrantEdgeIndex(
            root / embedder.name,
            dim=embedder.dim,
            model_name=embedder.name,
            optimize_after=None,
            flush_interval=5.0,
            compaction=compaction,
            search_threads=search_threads,
        )
    if scheme_of(url).startswith("qdrant+"):
        from ai_memory.adapters.qdrant_server_index import QdrantServerIndex

        return QdrantServerIndex.from_url(url, embedder.dim, embedder.name)
    if scheme_of(url) == "memory":
        from ai_memory.adapters.memory import MemoryVectorIndex

        return MemoryVectorIndex(embedder.dim)
    raise InvalidInput("AIMEM_INDEX", "scheme", f"unsupported index URL: {url!r}")


def build_dead_letters(s: Settings) -> DeadLetters:
    """Where projections park events they cannot apply: a table beside the embedded log,
    or the ``<topic>.dlq`` topic of a Kafka log (connected on first use)."""
    s = s.resolved()
    if scheme_of(s.event_log_url) == "kafka":
        from ai_memory.adapters.kafka.config import parse_kafka_url
        from ai_memory.adapters.kafka.dead_letters import KafkaDeadLetters

        return KafkaDeadLetters(parse_kafka_url(s.event_log_url))
    if scheme_of(s.event_log_url) == "memory":
        from ai_memory.adapters.memory import MemoryDeadLetters

        return MemoryDeadLetters()
    from ai_memory.adapters.sqlite_dead_letters import SqliteDeadLetters

    return SqliteDeadLetters(s.data_dir / "dead_letters.db")
