"""The composition root: settings/URLs → adapters → service + projection drivers.

Every entry point (HTTP server, projector workers, CLI, tests, benchmarks) builds its
object graph here and nowhere else.

* ``AIMEM_EVENT_LOG``: ``sqlite:///data/events.db`` (default) or
  ``kafka://h:9092/aimem.events?partitions=6&replication_factor=1``
* ``AIMEM_RECORD_STORE``: ``sqlite:///data/records.db`` (default) or
  ``cassandra://h:9042/aimem?replication_factor=1``
* ``AIMEM_INDEX``: ``qdrant-edge:///data/index`` (default), ``qdrant+http://h:6333``, or
  ``qdrant+local:///path`` (Qdrant's local mode, one process)
* ``memory://`` for any of the three: the in-memory adapters (tests, embedded tools);
  nothing survives the process

Where projections run: a projection whose view can only be opened by one process (SQLite
record store, Qdrant Edge, Qdrant local mode) — or any projection of the embedded log —
is driven in this process by tailers. Otherwise it is driven by `ai-memory project`
workers and this process only reads its checkpoints (read-your-writes).

SQLite paths follow the SQLAlchemy convention: `sqlite:///rel/path` is relative,
`sqlite:////abs/path` absolute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ai_memory.adapters.data_dir_lock import DataDirLock
from ai_memory.adapters.edge_compaction import CompactionPolicy
from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.private_dir import ensure_private_dir
from ai_memory.adapters.projectability import ProjectabilityCheck
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.clock import SystemClock
from ai_memory.core.access.rate import RateLimiter
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import (
    Clock,
    DeadLetters,
    Embedder,
    EventLog,
    EventSerializer,
    KeyStore,
    RecordStore,
    UsageSource,
    VectorIndex,
    WebhookStore,
)
from ai_memory.projector.policy import RawOf
from ai_memory.projector.progress import Projections, ProjectionStatus
from ai_memory.projector.replay import Replay
from ai_memory.projector.sinks import IndexSink, ProjectionSink, RecordsSink
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.sealer import Sealer
from ai_memory.service.append_pipeline import AppendPipeline, source_interaction_keys
from ai_memory.service.audit import AuditService
from ai_memory.service.changes import ChangeFeed
from ai_memory.service.dead_letters import DeadLetterService
from ai_memory.service.facade import Services
from ai_memory.service.governance import GovernanceService
from ai_memory.service.governor import Governor
from ai_memory.service.health import HealthService
from ai_memory.service.keys import KeyService
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.notes import NoteRules, NotesService
from ai_memory.service.quotas import MemoryQuota
from ai_memory.service.recalls import RecallRecorder
from ai_memory.service.secret_policy import SecretGuard
from ai_memory.service.transfer import TransferService
from ai_memory.service.unit_of_work import UnitsOfWork
from ai_memory.service.usage import UsageService
from ai_memory.service.writing import Writing
from ai_memory.settings import Settings

from .policy import governance_params, model_plugins, tenant_limit_table
from .security import (
    build_data_key_vault,
    build_erasures,
    build_key_service,
    build_key_store,
    build_sealer,
    index_tag_key,
    note_id_key,
    position_tokens,
    receipt_signing_key,
    root_key,
    run_vault_reconcile,
    run_vault_rotate,
    view_tag_key,
)
from .settings_check import check_settings
from .urls import scheme_of, url_path
from .usage import build_usage_source, close_usage, quota_count, quota_ttl
from .webhooks import build_webhooks

# The composition root's face: what entry points (the command line) and tests may use.
__all__ = [
    "PROJECTIONS",
    "WORKERS",
    "Container",
    "Replay",
    "build",
    "build_dead_letter_service",
    "build_event_log",
    "build_index",
    "build_key_service",
    "build_projector_worker",
    "build_record_store",
    "build_sink",
    "build_usage_source",
    "check_settings",
    "governance_params",
    "open_replay",
    "receipt_signing_key",
    "run_projector_worker",
    "run_vault_reconcile",
    "run_vault_rotate",
    "scheme_of",
    "url_path",
]

PROJECTIONS = ("records", "index")


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
    governance: GovernanceService
    notes: NotesService
    services: Services  # the facade: all an entry point is given
    pipeline: AppendPipeline  # how every appender of this process writes to ``log``
    usage: UsageSource  # each tenant's live memories and bytes (``bootstrap.usage``)
    governor: Governor | None = None
    dead_letters: DeadLetters | None = None
    keys: KeyStore | None = None
    sealer: Sealer | None = None  # crypto-shredding (AIMEM_ENCRYPTION=on)
    lock: DataDirLock | None = None  # the embedded data directory's, until ``close``
    webhooks: WebhookStore | None = None  # subscriptions and their delivery state

    def start(self, *, governor: bool = False) -> None:
        """Start in-process projections and read reinforcement; ``governor``: also the
        periodic governor (the server does; tests and tools run passes explicitly)."""
        self.projections.start()
        self.index.start_compaction()
        if governor:
            self.governor = Governor(
                self.governance, self.settings.govern_tenants, self.settings.govern_interval
            )
            self.governor.start()
        if self.service.recalls is not None:
            self.service.recalls.start()

    def status(self) -> list[ProjectionStatus]:
        return self.projections.status()

    def catch_up(self) -> None:
        """Apply everything on the log to the views driven in this process, now."""
        self.projections.catch_up()

    def optimize_index(self) -> bool:
        """Build the index's search structures and purge deleted data (offline, slow):
        whether anything changed."""
        return self.index.optimize()

    def close(self) -> None:
        if self.governor is not None:
            self.governor.stop()
        if self.service.recalls is not None:
            self.service.recalls.stop()  # appends what is still pending
        if self.services.changes is not None:
            self.services.changes.close()  # the feed's watchers of the log
        close_usage(self.usage)  # the usage table's replica, if this gateway reads one
        self.projections.drain(timeout=5.0)
        self.projections.stop()
        if self.dead_letters is not None:
            self.dead_letters.close()
        if self.keys is not None:
            self.keys.close()
        if self.webhooks is not None:
            self.webhooks.close()
        if self.sealer is not None:
            self.sealer.vault.close()
        self.index.close()
        self.store.close()
        self.log.close()
        if self.lock is not None:
            self.lock.release()


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
) -> VectorIndex:
    """``tag_key`` (encryption on): the index stores keyed digests of tags, not tags.
    ``compaction``: how an embedded index compacts once ``start_compaction`` is called."""
    index = _build_index(url, embedder, compaction)
    if tag_key is not None:
        from ai_memory.adapters.tag_digest_index import TagDigestIndex

        return TagDigestIndex(index, tag_key)
    return index


def compaction_policy(s: Settings) -> CompactionPolicy | None:
    if s.index_compact_after == 0:
        return None
    return CompactionPolicy(after_points=s.index_compact_after, forget_delay=s.index_forget_delay)


def _build_index(url: str, embedder: Embedder, compaction: CompactionPolicy | None) -> VectorIndex:
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
        )
    if scheme_of(url).startswith("qdrant+"):
        from ai_memory.adapters.qdrant_server_index import QdrantServerIndex

        return QdrantServerIndex.from_url(url, embedder.dim, embedder.name)
    if scheme_of(url) == "memory":
        from ai_memory.adapters.memory import MemoryVectorIndex

        return MemoryVectorIndex(embedder.dim)
    raise InvalidInput("AIMEM_INDEX", "scheme", f"unsupported index URL: {url!r}")


def single_process(url: str) -> bool:
    """Views that only one process may open: they are projected where they are read."""
    return scheme_of(url) in ("sqlite", "qdrant-edge", "qdrant+local", "qdrant+memory", "memory")


def build(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    embedder: Embedder | None = None,
    writer: bool = True,
    owns_partitions: bool = True,
) -> Container:
    """The container of one process. ``writer=False``: a process that reads the log and
    drives projections but never appends (replay, re-drive); ``owns_partitions=False``:
    one that appends through the gateways that own the partitions (see build_event_log)."""
    s = (settings or Settings.from_env()).resolved()
    check_settings(s, embedder=embedder is None)  # before anything exists on disk
    ensure_private_dir(s.data_dir)
    # Embedded: this process projects every view of the directory; a second one would
    # open the same index files (adapters/data_dir_lock.py). Taken before any store opens.
    lock = DataDirLock.acquire(s.data_dir) if scheme_of(s.event_log_url) == "sqlite" else None
    try:
        container = _assemble(
            s, clock=clock, embedder=embedder, writer=writer, owns_partitions=owns_partitions
        )
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    container.lock = lock
    return container


def _assemble(
    s: Settings,
    *,
    clock: Clock | None,
    embedder: Embedder | None,
    writer: bool,
    owns_partitions: bool,
) -> Container:
    embedder = embedder or make_embedder(s.embedder)
    root = root_key(s)  # None unless AIMEM_ENCRYPTION=on
    sealer = None if root is None else Sealer(build_data_key_vault(s, root))
    # One serializer for the log and the append pipeline: what the pipeline encodes and
    # proves is what the log reads back.
    serializer = AvroEventSerializer(sealer=sealer)
    log = build_event_log(s, serializer, writer=writer, owns_partitions=owns_partitions)
    store = build_record_store(s.record_store_url, shred=sealer is not None)
    if sealer is not None and root is not None and seals_view_at_rest(s.record_store_url):
        store = SealedRecordStore(store, sealer, view_tag_key(root))
    index = build_index(
        s.index_url, embedder, tag_key=index_tag_key(root), compaction=compaction_policy(s)
    )
    embedded_log = scheme_of(s.event_log_url) in ("sqlite", "memory")
    projections = Projections(log, packed_positions=not embedded_log)
    dead_letters = build_dead_letters(s)
    sinks: list[tuple[ProjectionSink, str]] = [
        (RecordsSink(store), s.record_store_url),
        (IndexSink(index, embedder), s.index_url),
    ]
    for sink, url in sinks:
        if embedded_log or single_process(url):
            projections.tailers += [
                ProjectionTailer(
                    log,
                    sink,
                    batch_size=s.projector_batch,
                    partition=p,
                    dead_letters=dead_letters,
                    raw_of=raw_frames(serializer),  # parked raw bytes stay sealed
                )
                for p in log.partitions()
            ]
        else:
            projections.external.append(sink)
    clock = clock or SystemClock()
    # Every appender writes through the pipeline (service.append_pipeline: keys, encode
    # once, prove projectable, append, destroy the keys of what was forgotten);
    # projections and replays read ``log`` itself.
    pipeline = AppendPipeline(
        log,
        serializer,
        ProjectabilityCheck(serializer),
        keys=sealer,
        # A forget takes the key of the turn its memory was extracted from too.
        related=None if sealer is None else source_interaction_keys(store),
    )
    limit_table = tenant_limit_table(s)
    usage = build_usage_source(s, store, log.partitions)
    # Counted only when some tenant has a quota: otherwise no write pays for it.
    quota = (
        MemoryQuota(quota_count(usage, store), limit_table, ttl=quota_ttl(usage))
        if limit_table.any_memory_quota
        else None
    )
    # The Kafka log's partition writers check every expected version themselves, so units
    # run concurrently there (and are group-committed); the embedded log is serialised.
    units = UnitsOfWork(
        pipeline,
        clock,
        projections,
        wait_timeout=s.wait_timeout,
        serialize=embedded_log,
        quota=quota,
    )
    params = governance_params(s)
    secrets = SecretGuard(s.secret_policy, s.secret_policy_by_tenant)  # every write's screen
    service = MemoryService(
        store=store,
        index=index,
        embedder=embedder,
        clock=clock,
        waiter=projections,
        limits=s.limits,
        wait_timeout=s.wait_timeout,
        recalls=RecallRecorder(units),
        ranking=params,
        units=units,
        secrets=secrets,
    )
    extractor, detector = model_plugins(s)
    governance = GovernanceService(
        units=units,
        store=store,
        secrets=secrets,
        limits=s.limits,
        clock=clock,
        params=params,
        extractor=extractor,
        detector=detector,
        open_evidence=None if sealer is None else sealer.open_evidence,
    )
    # What the use cases that decide writes beside the memory service are given.
    writing = Writing(units=units, store=store, secrets=secrets, limits=s.limits, clock=clock)
    notes = NotesService(writing, NoteRules(quota=s.note_quota), id_key=note_id_key(root))
    health = HealthService(
        statuses=projections.status,
        drivers=projections.driver_states,
        dead_letters=dead_letters,
        embedder=embedder.name,
        writers=log.writers,
    )
    key_store = build_key_store(s)
    tokens = position_tokens(s, root)  # what tenants see of log positions
    feed = ChangeFeed(log, tokens)
    webhooks = build_webhooks(s, feed, clock, s.limits, root)
    services = Services(
        s,
        service,
        notes,
        governance,
        TransferService(writing),
        health,
        keys=KeyService(key_store, clock, cache_ttl=s.key_cache_seconds),
        audit=AuditService(log, tokens),  # the trail reads the log itself
        changes=feed,  # so does the change feed, and the webhooks built on it
        rates=RateLimiter(limit_table),  # this gateway's buckets
        erasures=build_erasures(s, writing, log, projections, sealer, tokens),
        usage=UsageService(usage, limit_table),
        index_compaction=index.compaction_status,
        webhooks=webhooks.service,
        webhook_dispatcher=webhooks.dispatcher,
        positions=tokens,
    )
    return Container(
        s,
        log,
        store,
        index,
        embedder,
        clock,
        projections,
        service,
        governance,
        notes,
        services,
        pipeline,
        usage,
        dead_letters=dead_letters,
        keys=key_store,
        sealer=sealer,
        webhooks=webhooks.store,
    )


def raw_frames(serializer: EventSerializer) -> RawOf:
    """The bytes a projection parks with a dead letter: the event as the log holds it."""
    return lambda logged: serializer.encode(logged.event)


def open_replay(settings: Settings) -> Replay:
    """``ai-memory replay``: the projections' rebuilds over a log opened without
    appending (stop an embedded server first)."""
    c = build(settings, writer=False)
    return Replay(
        c.log,
        packed_positions=c.projections.packed_positions,
        store=c.store,
        index=c.index,
        embedder=c.embedder,
        dead_letters=c.dead_letters,
        raw_of=raw_frames(AvroEventSerializer(sealer=c.sealer)),
        close=c.close,
    )


def build_dead_letter_service(settings: Settings, *, redrive: bool = False) -> DeadLetterService:
    """The dead-letter store behind ``ai-memory dead-letters``. Listing, showing and
    discarding touch only the store (they work while the server runs); ``redrive`` also
    builds the container, because re-driving reads the log and applies through a view."""
    serializer = AvroEventSerializer(sealer=build_sealer(settings))

    def describe(raw: bytes) -> str:
        return repr(serializer.decode(raw))

    if not redrive:
        return DeadLetterService(build_dead_letters(settings), describe=describe)
    c = build(settings, writer=False)
    store = c.dead_letters
    assert store is not None  # build always opens one
    return DeadLetterService(
        store,
        describe=describe,
        redrive_for=lambda name: c.projections.redriver(name, store),
        close=c.close,
    )


#: What ``ai-memory project`` runs: the projections, and the usage table.
WORKERS = (*PROJECTIONS, "usage")


def run_projector_worker(
    app: Any, worker: Any, *, loglevel: str = "info", logging_config: dict[str, Any] | None = None
) -> None:
    """Run a worker from ``build_projector_worker`` until it stops (SIGTERM)."""
    from ai_memory.projector.faust_worker import run_worker

    run_worker(app, loglevel=loglevel, stopping=worker.stopping, logging_config=logging_config)


def build_projector_worker(
    settings: Settings, projection: str, *, metrics_port: int | None = None
) -> tuple[Any, Any]:
    """A projector worker for one projection of a Kafka log (``ai-memory project``): a
    Faust app and its worker ``(ProjectorApp, ProjectorWorker)``; close the worker after
    the app stops."""
    from ai_memory.adapters.kafka.config import parse_kafka_url
    from ai_memory.adapters.kafka.event_log import KafkaEventLog
    from ai_memory.projector.faust_worker import create_app

    s = settings.resolved()
    if scheme_of(s.event_log_url) != "kafka":
        raise InvalidInput(
            "AIMEM_EVENT_LOG",
            "scheme",
            "projector workers follow a Kafka log (AIMEM_EVENT_LOG=kafka://…); "
            "the embedded server projects in-process",
        )
    # Open the log once so the topics exist (and match) before the worker subscribes.
    KafkaEventLog.from_url(s.event_log_url, AvroEventSerializer()).close()
    if projection == "usage":
        from ai_memory.projector.usage_worker import UsageWorker, usage_app

        usage = UsageWorker(AvroEventSerializer(sealer=build_sealer(s)))
        return usage_app(parse_kafka_url(s.event_log_url), usage), usage
    sink, _ = build_sink(s, projection)
    return create_app(
        projection,
        parse_kafka_url(s.event_log_url),
        sink,
        AvroEventSerializer(sealer=build_sealer(s)),
        build_dead_letters(s),
        metrics_port=metrics_port,
    )


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
        )
        index.start_compaction()  # a worker is a serving process
        return IndexSink(index, embedder), embedder
    raise InvalidInput("projection", "enum", f"projection must be one of {', '.join(PROJECTIONS)}")
