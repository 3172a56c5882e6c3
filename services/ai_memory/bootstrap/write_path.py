"""How every appender of this process writes: the append pipeline, and the units of work
over it with the tenants' stored-memories quota (``docs/design/WRITE_PATH.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from ai_memory.adapters.projectability import ProjectabilityCheck
from ai_memory.core.access.tenant_limits import LimitTable
from ai_memory.core.ports import Clock, UsageSource
from ai_memory.projector.progress import Projections
from ai_memory.service.append_pipeline import AppendPipeline, source_interaction_keys
from ai_memory.service.quotas import MemoryQuota
from ai_memory.service.unit_of_work import UnitsOfWork
from ai_memory.settings import Settings

from .policy import tenant_limit_table
from .storage import Storage
from .usage import build_usage_source, quota_count, quota_ttl


@dataclass(frozen=True)
class WritePath:
    pipeline: AppendPipeline
    units: UnitsOfWork
    usage: UsageSource  # each tenant's live memories and bytes (``bootstrap.usage``)
    limit_table: LimitTable  # the rates and quotas per tenant


def build_write_path(
    s: Settings, storage: Storage, projections: Projections, clock: Clock, *, embedded_log: bool
) -> WritePath:
    log, store, sealer = storage.log, storage.store, storage.sealer
    # Every appender writes through the pipeline (service.append_pipeline: keys, encode
    # once, prove projectable, append, destroy the keys of what was forgotten);
    # projections and replays read ``log`` itself.
    pipeline = AppendPipeline(
        log,
        storage.serializer,
        ProjectabilityCheck(storage.serializer),
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
    return WritePath(pipeline, units, usage, limit_table)
