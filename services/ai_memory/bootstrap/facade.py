"""The facade an entry point is given: the use cases, and beside them the API keys, what
tenants see of log positions, the change feed and the webhooks on it, the audit trail,
subject erasure, usage and the rate limits."""

from __future__ import annotations

from dataclasses import dataclass

from ai_memory.core.access.rate import RateLimiter
from ai_memory.core.ports import Clock, KeyStore, WebhookStore
from ai_memory.projector.progress import Projections
from ai_memory.service.audit import AuditService
from ai_memory.service.changes import ChangeFeed
from ai_memory.service.facade import Services
from ai_memory.service.governance import GovernanceService
from ai_memory.service.health import HealthService
from ai_memory.service.keys import KeyService
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.notes import NotesService
from ai_memory.service.transfer import TransferService
from ai_memory.service.usage import UsageService
from ai_memory.service.writing import Writing
from ai_memory.settings import Settings

from .security import build_erasures, build_key_store, position_tokens
from .storage import Storage
from .webhooks import build_webhooks
from .write_path import WritePath


@dataclass(frozen=True)
class UseCases:
    memory: MemoryService
    notes: NotesService
    governance: GovernanceService
    writing: Writing  # what the use cases that decide writes beside ``memory`` are given
    health: HealthService


@dataclass(frozen=True)
class Facade:
    services: Services
    keys: KeyStore  # closed with the container
    webhooks: WebhookStore  # likewise


def build_facade(
    s: Settings,
    storage: Storage,
    projections: Projections,
    writes: WritePath,
    clock: Clock,
    use_cases: UseCases,
) -> Facade:
    log = storage.log
    key_store = build_key_store(s)
    tokens = position_tokens(s, storage.root)  # what tenants see of log positions
    feed = ChangeFeed(log, tokens)
    webhooks = build_webhooks(s, feed, clock, s.limits, storage.root)
    writing = use_cases.writing
    services = Services(
        s,
        use_cases.memory,
        use_cases.notes,
        use_cases.governance,
        TransferService(writing),
        use_cases.health,
        keys=KeyService(key_store, clock, cache_ttl=s.key_cache_seconds),
        audit=AuditService(log, tokens),  # the trail reads the log itself
        changes=feed,  # so does the change feed, and the webhooks built on it
        rates=RateLimiter(writes.limit_table),  # this gateway's buckets
        erasures=build_erasures(s, writing, log, projections, storage.sealer, tokens),
        usage=UsageService(writes.usage, writes.limit_table),
        index_compaction=storage.index.compaction_status,
        webhooks=webhooks.service,
        webhook_dispatcher=webhooks.dispatcher,
        positions=tokens,
    )
    return Facade(services, key_store, webhooks.store)
