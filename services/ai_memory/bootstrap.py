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

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.projectable_log import ProjectableLog
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.clock import SystemClock
from ai_memory.core import positions
from ai_memory.core.access.rate import RateLimiter
from ai_memory.core.access.tenant_limits import LimitTable, TenantLimits
from ai_memory.core.data_keys import DataKeyVault
from ai_memory.core.errors import InvalidInput
from ai_memory.core.governance import GovernanceParams
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
from ai_memory.core.sealing import derived_key
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
from ai_memory.service.erasure import ErasureService, KeyVault
from ai_memory.service.facade import Services
from ai_memory.service.governance import GovernanceService
from ai_memory.service.governor import Governor
from ai_memory.service.health import DriverState, HealthService
from ai_memory.service.key_rotation import KekRotated, rotate_kek
from ai_memory.service.keys import KeyService
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.notes import NotesService, rules_from_env
from ai_memory.service.quotas import MemoryQuota
from ai_memory.service.recalls import RecallRecorder
from ai_memory.service.secret_policy import SecretGuard
from ai_memory.service.shredding import ShreddingLog, source_interaction_keys
from ai_memory.service.transfer import TransferService
from ai_memory.service.unit_of_work import UnitsOfWork
from ai_memory.service.vault_reconcile import VaultReconciled, reconcile_vault
from ai_memory.settings import Settings

PROJECTIONS = ("records", "index")


def url_path(url: str, scheme: str) -> Path:
    prefix = f"{scheme}:///"
    if not url.startswith(prefix):
        raise InvalidInput("settings", "url", f"expected a {prefix}<path> URL, got {url!r}")
    return Path(url[len(prefix) :])


def scheme_of(url: str) -> str:
    return url.split(":", 1)[0]


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
        secrets=SecretGuard(s.secret_policy, s.secret_policy_by_tenant),
    )
    governance = GovernanceService(
        service,
        params,
        *model_plugins(s),
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


def root_key(s: Settings) -> bytes | None:
    """The root of the key hierarchy when encryption is on (``adapters.root_key``)."""
    from ai_memory.adapters.root_key import ROOT_KEY_FILE, load_root_key

    s = s.resolved()
    if s.encryption != "on":
        on_disk = scheme_of(s.event_log_url) != "memory"
        if on_disk and (s.data_dir / ROOT_KEY_FILE).exists():
            # Its log holds sealed writes: read without the vault, every one of them
            # would look forgotten.
            raise InvalidInput(
                "AIMEM_ENCRYPTION",
                "stays_on",
                f"{s.data_dir} was written with encryption on (it has {ROOT_KEY_FILE}); "
                "it cannot be read with AIMEM_ENCRYPTION=off",
            )
        return None
    configured = s.root_key.get_secret_value()
    if scheme_of(s.event_log_url) == "memory" and not configured.strip():
        return os.urandom(32)  # nothing survives the process, so neither does its key
    s.data_dir.mkdir(parents=True, exist_ok=True)
    shared = scheme_of(s.record_store_url) == "cassandra"
    return load_root_key(configured, s.data_dir, embedded=not shared)


def index_tag_key(root: bytes | None) -> bytes | None:
    return None if root is None else derived_key(root, "index-tags")


def build_data_key_vault(s: Settings, root: bytes) -> DataKeyVault:
    """Data keys (crypto-shredding) live with the records: in Cassandra for a distributed
    deployment (every gateway and projector shares them; AIMEM_ROOT_KEY required), in
    memory beside an in-memory log, else ``vault.db`` in the data directory."""
    s = s.resolved()
    if scheme_of(s.record_store_url) == "cassandra":
        from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault_from_url

        return cassandra_vault_from_url(s.record_store_url, root)
    if scheme_of(s.event_log_url) == "memory":
        from ai_memory.adapters.memory.data_key_vault import memory_vault

        return memory_vault(root)
    from ai_memory.adapters.sqlite_data_key_vault import sqlite_vault

    return sqlite_vault(s.data_dir / "vault.db", root)


def build_sealer(s: Settings) -> Sealer | None:
    """The sealing stage of every serializer of this process, when encryption is on."""
    root = root_key(s)
    return None if root is None else Sealer(build_data_key_vault(s, root))


def run_vault_reconcile(settings: Settings) -> VaultReconciled:
    """``ai-memory vault reconcile``: destroy again every key whose forget is on the log
    (after restoring a vault backup, or a destroy that failed)."""
    s = settings.resolved()
    root = root_key(s)
    if root is None:
        raise InvalidInput("AIMEM_ENCRYPTION", "on", "the vault is used only with encryption on")
    # Tombstones and interaction ids are clear: the log is read without opening anything.
    log = build_event_log(s, AvroEventSerializer(), writer=False)
    vault = build_data_key_vault(s, root)
    try:
        return reconcile_vault(log, vault)
    finally:
        vault.close()
        log.close()


def run_vault_rotate(
    settings: Settings, tenant: str, *, wait: Callable[[float], None] | None = None
) -> KekRotated:
    """``ai-memory vault rotate``: a new KEK version for ``tenant``, every data key wrapped
    again under it, the old versions destroyed (safe while the server runs)."""
    s = settings.resolved()
    root = root_key(s)
    if root is None:
        raise InvalidInput("AIMEM_ENCRYPTION", "on", "the vault is used only with encryption on")
    vault = build_data_key_vault(s, root)
    try:
        return rotate_kek(vault, tenant) if wait is None else rotate_kek(vault, tenant, wait=wait)
    finally:
        vault.close()


def build_key_store(s: Settings) -> KeyStore:
    """API keys live with the records: in Cassandra for a distributed deployment (every
    gateway shares them), else ``keys.db`` in the data directory."""
    s = s.resolved()
    if scheme_of(s.record_store_url) == "cassandra":
        from ai_memory.adapters.cassandra.key_store import CassandraKeyStore

        return CassandraKeyStore.from_url(s.record_store_url)
    if scheme_of(s.record_store_url) == "memory":
        from ai_memory.adapters.memory import MemoryKeyStore

        return MemoryKeyStore()
    from ai_memory.adapters.sqlite_key_store import SqliteKeyStore

    return SqliteKeyStore(s.data_dir / "keys.db")


def build_key_service(settings: Settings) -> KeyService:
    """The key store alone behind ``ai-memory keys`` (works while the server runs);
    ``close()`` it when done."""
    return KeyService(build_key_store(settings), SystemClock())


def tenant_limit_table(s: Settings) -> LimitTable:
    """Rates and quotas per tenant: the ``AIMEM_KEY_*``/``AIMEM_TENANT_*`` defaults and
    the ``AIMEM_TENANT_LIMITS`` overrides (a bad override fails the start, naming it)."""
    default = TenantLimits(
        rate=s.tenant_rate,
        burst=s.tenant_burst,
        key_rate=s.key_rate,
        key_burst=s.key_burst,
        max_memories=s.tenant_max_memories,
        max_request_bytes=s.tenant_max_request_bytes,
    )
    return LimitTable.parse(default, s.tenant_limits)


def governance_params(s: Settings) -> GovernanceParams:
    """Deployment overrides of the governance defaults (``AIMEM_GOVERNANCE`` JSON)."""
    if not s.governance:
        return GovernanceParams()
    try:
        raw = json.loads(s.governance)
    except ValueError as e:
        raise InvalidInput("AIMEM_GOVERNANCE", "json", "AIMEM_GOVERNANCE must be JSON") from e
    if not isinstance(raw, dict):
        raise InvalidInput("AIMEM_GOVERNANCE", "json_object", "AIMEM_GOVERNANCE: a JSON object")
    return GovernanceParams.from_mapping(raw)


def model_plugins(s: Settings) -> tuple[Any, Any]:
    """(extractor, detector) backed by an OpenAI-compatible model, or the rule-based
    defaults (None) when no ``AIMEM_LLM_URL`` is configured."""
    if not s.llm_url:
        return None, None
    from ai_memory.adapters.llm_openai import ModelExtractor, OpenAICompatibleClient
    from ai_memory.core.governance import LLMJudgeDetector

    unknown = set(s.llm_roles) - {"judge", "extract"}
    if unknown or not s.llm_model:
        raise InvalidInput(
            "AIMEM_LLM_ROLES", "enum", "AIMEM_LLM_MODEL is required and roles are judge,extract"
        )
    client = OpenAICompatibleClient(s.llm_url, s.llm_model, api_key=s.llm_api_key or None)
    extractor = ModelExtractor(client) if "extract" in s.llm_roles else None
    detector = LLMJudgeDetector(client) if "judge" in s.llm_roles else None
    return extractor, detector


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


def build_erasures(
    s: Settings,
    service: MemoryService,
    log: EventLog,
    clock: Clock,
    projections: Projections,
    sealer: Sealer | None,
) -> ErasureService:
    """Subject erasure over the process's forget path; its receipts are signed with
    AIMEM_RECEIPT_KEY, or a generated data_dir/receipt.key (embedded), read when first
    needed so a process that never signs never makes one."""

    @functools.cache
    def signing_key() -> Ed25519PrivateKey:
        return receipt_signing_key(s)

    vault = (
        None
        if sealer is None
        else KeyVault(
            sealer.forget,
            sealer.vault.destroyed,
            sealer.vault.destroyed_at,
            sealer.vault.kek_versions,
            sealer.vault.destroy_kek,
        )
    )
    return ErasureService(
        service,
        log,
        clock,
        signing_key,
        projections.status,
        vault,
        packed_positions=projections.packed_positions,
    )


def receipt_signing_key(s: Settings) -> Ed25519PrivateKey:
    """AIMEM_RECEIPT_KEY, or data_dir/receipt.key (generated on first use) when embedded."""
    from ai_memory.adapters.receipt_key import load_receipt_key

    s = s.resolved()
    shared = scheme_of(s.record_store_url) == "cassandra"
    configured = s.receipt_key.get_secret_value()
    return load_receipt_key(configured, s.data_dir, embedded=not shared)
