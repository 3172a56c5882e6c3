"""The webhook metrics move with deliveries: a 2xx counts as ``delivered``, a failure
as ``failed``, a destination the policy refuses at delivery time as
``refused_destination``; each attempt's duration lands in the histogram; a pause shows
in ``aimem_webhooks_paused`` and the unacknowledged change's age in
``aimem_webhook_backlog_seconds``. No series names a tenant or a URL."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, generate_latest

from ai_memory.adapters.memory import MemoryWebhookStore
from ai_memory.bootstrap import Container
from ai_memory.core.ports import DeliveryAttempt
from ai_memory.core.webhooks.destinations import AddressPolicy
from ai_memory.core.webhooks.retries import RetryPolicy
from ai_memory.entrypoints.http.metrics import observe_webhooks
from ai_memory.service.webhook_dispatcher import DispatchTiming, WebhookDispatcher
from ai_memory.service.webhooks import WebhookRequest, WebhookService
from tests.factories import FixedClock
from tests.service.test_webhooks import FakeResolver, admin, until, write

URL = "https://hooks.example.com/secret-path-7c1e"


@dataclass
class Scripted:
    """A sender answering from a script of attempts (then 204)."""

    script: list[DeliveryAttempt] = field(default_factory=list)
    sent: int = 0

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> DeliveryAttempt:
        self.sent += 1
        return self.script.pop(0) if self.script else DeliveryAttempt(204)

    async def aclose(self) -> None:
        pass


def setup(
    container: Container, script: list[DeliveryAttempt], max_failures: int
) -> tuple[WebhookDispatcher, WebhookService, CollectorRegistry]:
    feed = container.services.changes
    assert feed is not None
    store = MemoryWebhookStore()
    dispatcher = WebhookDispatcher(
        store,
        feed,
        Scripted(script),
        container.clock,
        RetryPolicy(base=0.01, cap=0.02, max_failures=max_failures),
        timing=DispatchTiming(refresh=0.05, idle_wait=0.2),
        leased=False,
    )
    service = WebhookService(
        store,
        feed,
        FakeResolver({"hooks.example.com": ["93.184.216.34"]}),
        AddressPolicy(),
        container.clock,
        container.settings.limits,
        on_change=dispatcher.poke,
    )
    registry = CollectorRegistry()
    observe_webhooks(dispatcher, registry)
    return dispatcher, service, registry


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    found = registry.get_sample_value(name, labels)
    assert found is not None, (name, labels)
    return found


def test_a_delivery_a_failure_and_a_refused_destination_move_their_counters(
    container: Container, tenant: str
) -> None:
    refused = DeliveryAttempt(None, "destination refused: 10.0.0.8", refused_destination=True)
    script = [refused, DeliveryAttempt(500, "HTTP 500"), DeliveryAttempt(None, "timed out")]
    dispatcher, service, registry = setup(container, script, max_failures=50)
    total = "aimem_webhook_deliveries_total"
    for outcome in ("delivered", "failed", "refused_destination"):  # exposed before any
        assert value(registry, total, outcome=outcome) == 0
    sub = service.create(admin(tenant), WebhookRequest(url=URL, scopes=["*"]))

    async def scenario() -> None:
        await dispatcher.start()
        try:
            write(container, tenant, "m1", "user:a", 1)
            await until(lambda: registry.get_sample_value(total, {"outcome": "delivered"}) == 1)
        finally:
            await dispatcher.stop()

    asyncio.run(scenario())
    assert value(registry, total, outcome="refused_destination") == 1
    assert value(registry, total, outcome="failed") == 2
    assert value(registry, "aimem_webhook_delivery_seconds_count") == 4
    assert value(registry, "aimem_webhooks_paused") == 0
    assert value(registry, "aimem_webhook_backlog_seconds") == 0  # caught up
    text = generate_latest(registry).decode()
    for leak in (tenant, "hooks.example.com", URL, sub.id, "93.184.216.34", "10.0.0.8"):
        assert leak not in text


def test_a_pause_shows_with_the_age_of_what_waits(
    container: Container, tenant: str, clock: FixedClock
) -> None:
    failing = [DeliveryAttempt(503, "HTTP 503")] * 2
    dispatcher, service, registry = setup(container, failing, max_failures=2)
    assert registry.get_sample_value("aimem_webhooks_paused") is None  # not started yet
    sub = service.create(admin(tenant), WebhookRequest(url=URL, scopes=["*"]))

    async def scenario() -> None:
        await dispatcher.start()
        try:
            write(container, tenant, "m2", "user:a", 1)
            await until(lambda: service.get(admin(tenant), sub.id).state.status == "paused")
            await until(lambda: registry.get_sample_value("aimem_webhooks_paused") == 1)
            clock.advance(120)
            assert value(registry, "aimem_webhook_backlog_seconds") >= 120
            await asyncio.to_thread(service.resume, admin(tenant), sub.id)
            await until(lambda: registry.get_sample_value("aimem_webhooks_paused") == 0)
            await until(lambda: registry.get_sample_value("aimem_webhook_backlog_seconds") == 0)
        finally:
            await dispatcher.stop()

    asyncio.run(scenario())
    assert value(registry, "aimem_webhook_deliveries_total", outcome="failed") == 2
    assert value(registry, "aimem_webhook_deliveries_total", outcome="delivered") == 1
