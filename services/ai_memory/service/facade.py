"""The services facade: everything an entry point (HTTP, MCP, A2A, an in-process client)
may call. The composition root builds it; entry points receive it and never see the
adapters, the log or the projections behind it.

Every use case takes its **caller** first (``service.access``: an API key's principal,
or the deployment itself where no key is in force) and decides what that caller may do
— role, scopes, tenant, what it may learn of what it may not reach — before it reads or
writes; an entry point only turns a credential into a caller and passes it.

* ``memory``: write (one memory or a batch), read, forget, search, read-your-writes
  waits;
* ``notes``: an agent's notebook; ``governance``: interactions, persona, episodes,
  lineage, the governor; ``transfer``: export and import bundles;
* ``health``: projection positions, stuck projections, dead letters;
* ``keys``: API keys — issue, list, revoke, and the door's ``authenticate``;
* ``audit``: who did what in a tenant, read from the log;
* ``changes``: the change feed of a tenant's scopes, read from the log;
* ``erasures``: subject erasure and its signed receipts;
* ``usage``: a tenant's live memories, their bytes and its quota;
* ``webhooks``: a tenant's webhook subscriptions; ``webhook_dispatcher`` delivers them
  (run with the app's lifespan);
* ``rates``: this process's request-rate buckets per tenant and per key (the HTTP door);
* ``settings``: the deployment's limits and edge configuration;
* ``positions``: what a tenant is shown of log positions (``service.position_tokens``:
  its own tokens; every entry point shows and takes positions through it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ai_memory.core.access.rate import RateLimiter
from ai_memory.settings import Settings

from .audit import AuditService
from .changes import ChangeFeed
from .erasure import ErasureService
from .governance import GovernanceService
from .health import HealthService
from .keys import KeyService
from .memory_service import MemoryService
from .notes import NotesService
from .position_tokens import PositionTokens
from .transfer import TransferService
from .usage import UsageService
from .webhook_dispatcher import WebhookDispatcher
from .webhooks import WebhookService


@dataclass(frozen=True)
class Services:
    settings: Settings
    memory: MemoryService
    notes: NotesService
    governance: GovernanceService
    transfer: TransferService
    health: HealthService
    keys: KeyService | None = None  # None: no key store, every caller is ``default``
    audit: AuditService | None = None  # None: the trail is not served (a client-only build)
    changes: ChangeFeed | None = None  # None: no change feed (a client-only build)
    rates: RateLimiter | None = None  # None: no request is rate-limited
    erasures: ErasureService | None = None  # None: erasures are not served
    usage: UsageService | None = None  # None: usage is not served
    # The index's background compaction, for /metrics (VectorIndex.compaction_status).
    index_compaction: Callable[[], dict[str, float]] | None = None
    webhooks: WebhookService | None = None  # None: webhooks are not served
    webhook_dispatcher: WebhookDispatcher | None = None  # None: nothing is delivered
    # No secret by default (a bare Services of a test): positions are shown as they are.
    positions: PositionTokens = field(default_factory=lambda: PositionTokens(None))
