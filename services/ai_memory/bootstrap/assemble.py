"""``build``: the container of one process, assembled in the order its parts need each
other — storage, projections, the write path, the use cases, the facade."""

from __future__ import annotations

from ai_memory.adapters.data_dir_lock import DataDirLock
from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.private_dir import ensure_private_dir
from ai_memory.clock import SystemClock
from ai_memory.core.ports import Clock, Embedder
from ai_memory.projector.sinks import IndexSink, ProjectionSink, RecordsSink
from ai_memory.service.governance import GovernanceService
from ai_memory.service.health import HealthService
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.notes import NoteRules, NotesService
from ai_memory.service.recalls import RecallRecorder
from ai_memory.service.search_row_cache import SearchRowCache
from ai_memory.service.secret_policy import SecretGuard
from ai_memory.service.writing import Writing
from ai_memory.settings import Settings

from .by_url import build_dead_letters
from .container import Container
from .facade import UseCases, build_facade
from .policy import governance_params, model_plugins
from .projections import build_projections
from .security import note_id_key
from .settings_check import check_settings
from .storage import open_storage
from .urls import scheme_of
from .write_path import build_write_path


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
    one that appends through the gateways that own the partitions (see
    ``by_url.build_event_log``)."""
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
    storage = open_storage(s, embedder, writer=writer, owns_partitions=owns_partitions)
    log, store, index, sealer = storage.log, storage.store, storage.index, storage.sealer
    embedded_log = scheme_of(s.event_log_url) in ("sqlite", "memory")
    dead_letters = build_dead_letters(s)
    views: list[tuple[ProjectionSink, str]] = [
        (RecordsSink(store), s.record_store_url),
        (IndexSink(index, embedder), s.index_url),
    ]
    projections = build_projections(
        s, log, views, storage.serializer, dead_letters, embedded_log=embedded_log
    )
    if storage.serializer.decoded is not None:  # what the proof decodes, they read back
        storage.serializer.decoded.read_by(len(projections.tailers))
    clock = clock or SystemClock()
    writes = build_write_path(s, storage, projections, clock, embedded_log=embedded_log)
    units = writes.units
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
        row_cache=(
            SearchRowCache(s.search_cache_rows, s.search_cache_seconds)
            if s.search_cache_rows
            else None
        ),
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
    notes = NotesService(writing, NoteRules(quota=s.note_quota), id_key=note_id_key(storage.root))
    health = HealthService(
        statuses=projections.status,
        drivers=projections.driver_states,
        dead_letters=dead_letters,
        embedder=embedder.name,
        writers=log.writers,
    )
    use_cases = UseCases(service, notes, governance, writing, health)
    facade = build_facade(s, storage, projections, writes, clock, use_cases)
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
        facade.services,
        writes.pipeline,
        writes.usage,
        dead_letters=dead_letters,
        keys=facade.keys,
        sealer=sealer,
        webhooks=facade.webhooks,
    )
