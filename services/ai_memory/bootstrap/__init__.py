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

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.projectable_log import ProjectableLog
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.clock import SystemClock
from ai_memory.core import positions
from ai_memory.core.access.rate import RateLimiter
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import (
    Clock,
    DeadLetter,
    DeadLetters,
    Embedder,
    EventLog,
    EventSerializer,
    KeyStore,
    RecordStore,
    VectorIndex,
)
from ai_memory.projector.progress import Projections, ProjectionStatus
from ai_memory.projector.redrive import redrive
from ai_memory.projector.sinks import IndexSink, ProjectionSink, RecordsSink
from ai_memory.projector.tailer import ProgressCallback, ProjectionTailer, rebuild_all
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.encode_once import EncodeOnce
from ai_memory.serialization.sealer import Sealer
from ai_memory.service.audit import AuditService
from ai_memory.service.changes import ChangeFeed
from ai_memory.service.dead_letters import DeadLetterService, Redrive, Redriven
from ai_memory.service.facade import Services
from ai_memory.service.governance import GovernanceService
from ai_memory.service.governor import Governor
from ai_memory.service.health import DriverState, HealthService
from ai_memory.service.keys import KeyService
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.notes import NotesService, rules_from_env
from ai_memory.service.quotas import MemoryQuota
from ai_memory.service.recalls import RecallRecorder
from ai_memory.service.secret_policy import SecretGuard
from ai_memory.service.shredding import ShreddingLog, source_interaction_keys
from ai_memory.service.transfer import TransferService
from ai_memory.service.unit_of_work import UnitsOfWork
from ai_memory.settings import Settings

from .policy import governance_params, model_plugins, tenant_limit_table
from .security import (
    build_data_key_vault,
    build_erasures,
    build_key_store,
    build_sealer,
    index_tag_key,
    root_key,
)
from .urls import scheme_of, url_path

__all__ = [
    "PROJECTIONS",
    "Container",
    "Replay",
    "build",
    "build_dead_letter_service",
    "build_event_log",
    "build_index",
    "build_projector_worker",
    "build_record_store",
    "build_sink",
    "governance_params",
    "open_replay",
    "run_projector_worker",
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
    governor: Governor | None = None
    dead_letters: DeadLetters | None = None
    keys: KeyStore | None = None
    sealer: Sealer | None = None  # crypto-shredding (AIMEM_ENCRYPTION=on)

    def start(self, *, governor: bool = False) -> None:
        """Start in-process projections and read reinforcement; ``governor``: also the
        periodic governor (the server does; tests and tools run passes explicitly)."""
        self.projections.start()
        if governor:
            self.governor = Governor(
                self.governance, self.settings.govern_tenants, self.settings.govern_interval
            )
            self.governor.start()
        if self.service.recalls is not None:
            self.service.recalls.start()

    def status(self) -> list[ProjectionStatus]:
        return self.projections.status()

    def close(self) -> None:
        if self.governor is not None:
            self.governor.stop()
        if self.service.recalls is not None:
            self.service.recalls.stop()  # appends what is still pending
        if self.services.changes is not None:
            self.services.changes.close()  # the feed's watchers of the log
        self.projections.drain(timeout=5.0)
        self.projections.stop()
        if self.dead_letters is not None:
            self.dead_letters.close()
        if self.keys is not None:
            self.keys.close()
        if self.sealer is not None:
            self.sealer.vault.close()
        self.index.close()
        self.store.close()
        self.log.close()


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


def build_index(url: str, embedder: Embedder, *, tag_key: bytes | None = None) -> VectorIndex:
    """``tag_key`` (encryption on): the index stores keyed digests of tags, not tags."""
    index = _build_index(url, embedder)
    if tag_key is not None:
        from ai_memory.adapters.tag_digest_index import TagDigestIndex

        return TagDigestIndex(index, tag_key)
    return index


def _build_index(url: str, embedder: Embedder) -> VectorIndex:
    if scheme_of(url) == "qdrant-edge":
        # One index per embedding model: vectors from different models never mix. The
        # engine's HNSW build holds the GIL for its whole run (tens of seconds at 100k
        # points), so it never runs inside a live server: `ai-memory replay --projection
        # index` and `ai-memory optimize` run it offline. Scoped queries stay fast without
        # it because the engine filters on payload indexes first.
        root = url_path(url, "qdrant-edge")
        return QdrantEdgeIndex(
            root / embedder.name,
            dim=embedder.dim,
            model_name=embedder.name,
            optimize_after=None,
            flush_interval=5.0,
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
    s.data_dir.mkdir(parents=True, exist_ok=True)
    embedder = embedder or make_embedder(s.embedder)
    # One serializer for the log and the projectability guard in front of it: the guard
    # encodes every event to prove it readable, and the log then reuses that frame.
    root = root_key(s)  # None unless AIMEM_ENCRYPTION=on
    sealer = None if root is None else Sealer(build_data_key_vault(s, root))
    appender_serializer = EncodeOnce(AvroEventSerializer(sealer=sealer))
    log = build_event_log(s, appender_serializer, writer=writer, owns_partitions=owns_partitions)
    store = build_record_store(s.record_store_url, shred=sealer is not None)
    index = build_index(s.index_url, embedder, tag_key=index_tag_key(root))
    embedded_log = scheme_of(s.event_log_url) in ("sqlite", "memory")
    projections = Projections(log, packed_positions=not embedded_log)
    dead_letters = build_dead_letters(s)
    serializer = AvroEventSerializer(sealer=sealer)  # parked raw bytes stay sealed
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
                    raw_of=lambda logged: serializer.encode(logged.event),
                )
                for p in log.partitions()
            ]
        else:
            projections.external.append(sink)
    clock = clock or SystemClock()
    # Every appender gets the guarded log: only projectable events can land on it.
    # Projections and replays read ``log`` itself.
    appender: EventLog = ProjectableLog(log, appender_serializer)
    if sealer is not None:  # a forget destroys the memory's data key once its tombstone is on
        related = source_interaction_keys(store)  # and the turn it was extracted from
        appender = ShreddingLog(appender, sealer.forget, sealer.prepare, related)
    # The Kafka log's partition writers check every expected version themselves, so units
    # run concurrently there (and are group-committed); the embedded log is serialised.
    limit_table = tenant_limit_table(s)
    # Counted only when some tenant has a quota: otherwise no write pays for it.
    quota = MemoryQuota(store.count, limit_table) if limit_table.any_memory_quota else None
    units = UnitsOfWork(
        appender,
        clock,
        projections,
        wait_timeout=s.wait_timeout,
        serialize=embedded_log,
        quota=quota,
    )
    recalls = RecallRecorder(units)
    params = governance_params(s)
    secrets = SecretGuard(s.secret_policy, s.secret_policy_by_tenant)  # every write's screen
    service = MemoryService(
        log=appender,
        store=store,
        index=index,
        embedder=embedder,
        clock=clock,
        waiter=projections,
        limits=s.limits,
        wait_timeout=s.wait_timeout,
        recalls=recalls,
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
    notes = NotesService(service, rules_from_env())
    health = HealthService(
        statuses=projections.status,
        drivers=lambda: driver_states(projections),
        dead_letters=dead_letters,
        embedder=embedder.name,
        writers=getattr(log, "writers", dict),
    )
    key_store = build_key_store(s)
    keys = KeyService(key_store, clock, cache_ttl=s.key_cache_seconds)
    services = Services(s, service, notes, governance, TransferService(service), health, keys)
    services = replace(services, rates=RateLimiter(limit_table))  # this gateway's buckets
    services = replace(services, audit=AuditService(log))  # the trail reads the log itself
    services = replace(services, changes=ChangeFeed(log))  # so does the change feed
    erasures = build_erasures(s, service, log, clock, projections, sealer)
    services = replace(services, erasures=erasures)
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
        dead_letters=dead_letters,
        keys=key_store,
        sealer=sealer,
    )


def driver_states(projections: Projections) -> list[DriverState]:
    """What health and metrics report of the projections driven in this process."""
    states = []
    for tailer in projections.tailers:
        stuck = tailer.policy.stuck
        states.append(
            DriverState(
                name=tailer.name,
                projection=tailer.sink.name,
                partition=tailer.partition,
                failures=tailer.failures,
                stuck=None
                if stuck is None
                else {
                    "partition": stuck.partition,
                    "position": stuck.position,
                    "since": stuck.since.isoformat().replace("+00:00", "Z"),
                    "attempts": stuck.attempts,
                    "retryable": stuck.retryable,
                    "last_error": stuck.error,
                },
                dead_lettered_by_reason=dict(tailer.policy.dead_lettered_by_reason),
            )
        )
    return states


def replay_tailers(c: Container, sink: ProjectionSink) -> list[ProjectionTailer]:
    """Tailers that replay the log into ``sink`` synchronously (``ai-memory replay``),
    dead-lettering what they cannot apply exactly as the live projections do."""
    serializer = AvroEventSerializer(sealer=c.sealer)
    return [
        ProjectionTailer(
            c.log,
            sink,
            partition=p,
            dead_letters=c.dead_letters,
            raw_of=lambda logged: serializer.encode(logged.event),
        )
        for p in c.log.partitions()
    ]


class Replay:
    """``ai-memory replay`` over a built container: the command drives the progress and
    the output, this runs the projections' rebuilds (stop an embedded server first)."""

    def __init__(self, container: Container) -> None:
        self._c = container

    def log_size(self) -> int:
        """Events on the log (upper bound), for the progress bar."""
        log, packed = self._c.log, self._c.projections.packed_positions
        total = 0
        for p in log.partitions():
            last = log.last_position(p)
            total += (positions.offset_of(last) + 1 if last else 0) if packed else last
        return total

    def clear_dead_letters(self, name: str) -> None:
        """The replay meets every parked event again and parks only what still fails."""
        store = self._c.dead_letters
        if store is not None:
            for entry in store.entries(name, limit=1_000_000):
                store.resolve(entry.projection, entry.position)

    def run(
        self, name: str, progress: ProgressCallback, *, switching: Callable[[], None]
    ) -> tuple[int, int]:
        """Replay one projection from position 0: ``(applied, dead-lettered)``.
        ``switching`` is called just before a rebuilt index replaces the live one."""
        c = self._c
        if name == "records":
            tailers = replay_tailers(c, RecordsSink(c.store))
            applied = rebuild_all(tailers, progress)
            return applied, sum(t.dead_lettered for t in tailers)
        # The index's own rebuild (a port operation): a new generation switched in by alias
        # on a Qdrant server, the live index reset and compacted in place otherwise.
        rebuild = c.index.rebuild()
        try:
            tailers = replay_tailers(c, IndexSink(rebuild.target, c.embedder))
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
        self._c.close()


def open_replay(settings: Settings) -> Replay:
    return Replay(build(settings, writer=False))


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
        store, describe=describe, redrive_for=lambda name: _redrive(c, store, name), close=c.close
    )


def _redrive(c: Container, store: DeadLetters, projection: str) -> Redrive:
    sinks = [t.sink for t in c.projections.tailers] + c.projections.external
    sink = next((s for s in sinks if s.name == projection), None)
    if sink is None:
        raise InvalidInput("projection", "absent", f"no {projection} projection in this deployment")

    def one(letter: DeadLetter) -> Redriven:
        done = redrive(letter, c.log, sink, store, packed=c.projections.packed_positions)
        return Redriven(done.letter, done.resolved, done.error)

    return one


def run_projector_worker(app: Any) -> None:
    """Run a worker from ``build_projector_worker`` until it stops (SIGTERM)."""
    from ai_memory.projector.kafka_worker import run_worker

    run_worker(app)


def build_projector_worker(
    settings: Settings, projection: str, *, metrics_port: int | None = None
) -> tuple[Any, Any]:
    """A projector worker for one projection of a Kafka log (``ai-memory project``):
    ``(ProjectorApp, ProjectorWorker)``; close the worker after the app stops."""
    from ai_memory.adapters.kafka.config import parse_kafka_url
    from ai_memory.adapters.kafka.event_log import KafkaEventLog
    from ai_memory.projector.kafka_worker import create_app

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
        index = build_index(s.index_url, embedder, tag_key=index_tag_key(root_key(s)))
        return IndexSink(index, embedder), embedder
    raise InvalidInput("projection", "enum", f"projection must be one of {', '.join(PROJECTIONS)}")
