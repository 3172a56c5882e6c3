"""The container of one process: what ``build`` assembled, started and closed as one."""

from __future__ import annotations

from dataclasses import dataclass

from ai_memory.adapters.data_dir_lock import DataDirLock
from ai_memory.core.ports import (
    Clock,
    DeadLetters,
    Embedder,
    EventLog,
    KeyStore,
    RecordStore,
    UsageSource,
    VectorIndex,
    WebhookStore,
)
from ai_memory.projector.progress import Projections, ProjectionStatus
from ai_memory.serialization.sealer import Sealer
from ai_memory.service.append_pipeline import AppendPipeline
from ai_memory.service.facade import Services
from ai_memory.service.governance import GovernanceService
from ai_memory.service.governor import Governor
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.notes import NotesService
from ai_memory.settings import Settings

from .usage import close_usage


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
