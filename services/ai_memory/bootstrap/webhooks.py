"""The composition root's webhook builders: the store (beside the API keys), the use
cases and the dispatcher, with the deployment's address policy and retry policy."""

from __future__ import annotations

from dataclasses import dataclass

from ai_memory.core.ports import Clock, WebhookStore
from ai_memory.core.record import Limits
from ai_memory.core.webhooks.destinations import AddressPolicy
from ai_memory.core.webhooks.retries import RetryPolicy
from ai_memory.service.changes import ChangeFeed
from ai_memory.service.webhook_dispatcher import WebhookDispatcher
from ai_memory.service.webhooks import WebhookService
from ai_memory.settings import Settings

from .urls import scheme_of


def build_webhook_store(s: Settings, root: bytes | None = None) -> WebhookStore:
    """Subscriptions live with the API keys: in Cassandra for a distributed deployment
    (every gateway sees them, one delivers), else ``webhooks.db`` in the data directory;
    with a root key (encryption on) their signing secrets are sealed at rest."""
    store = _webhook_store(s)
    if root is None:
        return store
    from ai_memory.adapters.webhook_secret_sealing import SealedSecretWebhookStore

    return SealedSecretWebhookStore(store, root)


def _webhook_store(s: Settings) -> WebhookStore:
    s = s.resolved()
    if scheme_of(s.record_store_url) == "cassandra":
        from ai_memory.adapters.cassandra.webhook_store import CassandraWebhookStore

        return CassandraWebhookStore.from_url(s.record_store_url)
    if scheme_of(s.record_store_url) == "memory":
        from ai_memory.adapters.memory import MemoryWebhookStore

        return MemoryWebhookStore()
    from ai_memory.adapters.sqlite_webhook_store import SqliteWebhookStore

    return SqliteWebhookStore(s.data_dir / "webhooks.db")


@dataclass(frozen=True)
class Webhooks:
    store: WebhookStore
    service: WebhookService
    dispatcher: WebhookDispatcher


def build_webhooks(
    s: Settings, feed: ChangeFeed, clock: Clock, limits: Limits, root: bytes | None
) -> Webhooks:
    from ai_memory.adapters.webhook_http import HttpWebhookSender, SystemResolver

    policy = AddressPolicy.of(s.webhook_allow_private, s.webhook_allowed_cidrs)
    store = build_webhook_store(s, root)
    resolver = SystemResolver()
    dispatcher = WebhookDispatcher(
        store,
        feed,
        HttpWebhookSender(policy, timeout=s.webhook_timeout, resolver=resolver),
        clock,
        RetryPolicy(
            base=s.webhook_backoff_base,
            cap=s.webhook_backoff_max,
            max_failures=s.webhook_max_failures,
            pause_after=s.webhook_pause_after,
        ),
        batch=s.webhook_batch,
        # Embedded, the data directory's lock makes this the one process: no lease.
        leased=scheme_of(s.event_log_url) == "kafka",
    )
    service = WebhookService(
        store,
        feed,
        resolver,
        policy,
        clock,
        limits,
        max_per_tenant=s.webhook_max_per_tenant,
        on_change=dispatcher.poke,
    )
    return Webhooks(store, service, dispatcher)
