"""Webhook subscriptions and the dispatcher on the in-memory container: who may manage
them, which URLs are refused, and delivery — in order, at least once with the same
event ids, paused after failures and resumed from the acknowledged cursor, never
carrying content."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import pytest

from ai_memory.adapters.memory import MemoryWebhookStore
from ai_memory.adapters.webhook_http import SystemResolver
from ai_memory.bootstrap import Container
from ai_memory.core.access import AccessPrincipal
from ai_memory.core.errors import Forbidden, InvalidInput, NotFound, Unavailable
from ai_memory.core.ports import DeliveryAttempt
from ai_memory.core.webhooks.destinations import AddressPolicy
from ai_memory.core.webhooks.model import DeliveryState, Subscription
from ai_memory.core.webhooks.retries import RetryPolicy
from ai_memory.sdk.webhooks import verify_webhook
from ai_memory.service.webhook_dispatcher import DispatchTiming, WebhookDispatcher
from ai_memory.service.webhooks import WebhookRequest, WebhookService

CANARY = "canary-7f3a9c-never-delivered"


def admin(tenant: str) -> AccessPrincipal:
    return AccessPrincipal(tenant, "a1a1a1a1a1a1a1a1", "admin", ())


class FakeResolver:
    """Names a test controls (``rebind.test`` resolves to what the test says)."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table

    def resolve(self, host: str, port: int) -> list[str]:
        if host in self.table:
            return self.table[host]
        return SystemResolver().resolve(host, port)


@dataclass
class Receiver:
    """A receiver answering from a script of statuses (then 204)."""

    script: list[int] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    async def send(self, url: str, body: bytes, headers: dict[str, str]) -> DeliveryAttempt:
        self.bodies.append(body)
        self.headers.append(headers)
        status = self.script.pop(0) if self.script else 204
        return DeliveryAttempt(status, None if status < 300 else f"HTTP {status}")

    async def aclose(self) -> None:
        pass

    def acknowledged_events(self) -> list[dict[str, object]]:
        """Every event of every delivery, de-duplicated by event id, in arrival order."""
        seen: dict[str, dict[str, object]] = {}
        for body in self.bodies:
            for event in json.loads(body)["events"]:
                seen.setdefault(str(event["event_id"]), event)
        return list(seen.values())


@dataclass
class Rig:
    container: Container
    store: MemoryWebhookStore
    service: WebhookService
    receiver: Receiver
    dispatcher: WebhookDispatcher


def rig(container: Container, *, script: list[int] | None = None, max_failures: int = 50) -> Rig:
    feed = container.services.changes
    assert feed is not None
    store = MemoryWebhookStore()
    receiver = Receiver(script or [])
    dispatcher = WebhookDispatcher(
        store,
        feed,
        receiver,
        container.clock,
        RetryPolicy(base=0.01, cap=0.04, max_failures=max_failures),
        batch=7,
        timing=DispatchTiming(refresh=0.05, idle_wait=0.2),
    )
    service = WebhookService(
        store,
        feed,
        FakeResolver(
            {"rebind.test": ["93.184.216.34", "127.0.0.1"], "hooks.example.com": ["93.184.216.34"]}
        ),
        AddressPolicy(),
        container.clock,
        container.settings.limits,
        on_change=dispatcher.poke,
    )
    return Rig(container, store, service, receiver, dispatcher)


def write(c: Container, tenant: str, memory_id: str, scope: str, n: int) -> None:
    body = {"id": memory_id, "type": "fact", "scope": scope, "source_agent": "a"}
    c.service.write(tenant, {**body, "content": f"{CANARY} {memory_id} v{n}"})


async def until(done: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not done():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def subscribe(r: Rig, tenant: str, **kw: object) -> Subscription:
    args: dict[str, object] = {"url": "https://hooks.example.com/in", "scopes": ["*"], **kw}
    return r.service.create(admin(tenant), WebhookRequest(**args))  # type: ignore[arg-type]


# --- who may, and where to ---------------------------------------------------------


def test_only_an_admin_of_the_tenant_manages_webhooks(container: Container, tenant: str) -> None:
    r = rig(container)
    created = subscribe(r, tenant)
    assert created.secret.startswith("whsec_") and created.state.status == "active"
    for role, scopes in (("reader", ("*",)), ("writer", ("*",)), ("operator", ())):
        key = AccessPrincipal(tenant, "b2b2b2b2b2b2b2b2", role, scopes)  # type: ignore[arg-type]
        for call in (
            lambda k=key: r.service.list_of(k),
            lambda k=key: r.service.get(k, created.id),
            lambda k=key: r.service.delete(k, created.id),
            lambda k=key: r.service.resume(k, created.id),
            lambda k=key: subscribe_as(r, k),
        ):
            with pytest.raises(Forbidden) as refused:
                call()
            assert refused.value.code == "role_forbidden"
    other = admin("another-tenant")
    assert r.service.list_of(other) == []
    for call in (r.service.get, r.service.delete, r.service.resume):
        with pytest.raises(NotFound):
            call(other, created.id)
    assert r.service.get(admin(tenant), created.id).id == created.id  # untouched


def subscribe_as(r: Rig, caller: AccessPrincipal) -> Subscription:
    return r.service.create(caller, WebhookRequest("https://hooks.example.com/", ["*"]))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/in",
        "http://10.1.2.3/in",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:8080/in",
        "http://[::ffff:127.0.0.1]/in",
        "http://localhost:8080/in",  # a name that resolves to loopback
        "http://rebind.test/in",  # one public address and one private: refused
        "http://0x7f000001/in",  # an address in another spelling resolves to loopback
    ],
)
def test_a_private_destination_is_refused_naming_url(
    container: Container, tenant: str, url: str
) -> None:
    r = rig(container)
    with pytest.raises(InvalidInput) as refused:
        subscribe(r, tenant, url=url)
    assert (refused.value.field, refused.value.code) == ("url", "webhook_destination_refused")
    assert r.store.list_tenant(tenant) == []
    # The deployment may allow it.
    allowing = WebhookService(
        r.store,
        r.service._feed,
        FakeResolver({}),
        AddressPolicy(allow_private=True),
        container.clock,
        container.settings.limits,
    )
    if "0x7f" not in url and "rebind" not in url:
        assert allowing.create(admin(tenant), WebhookRequest(url, ["*"])).url == url


@pytest.mark.parametrize(
    ("body", "field_name"),
    [
        ({"scopes": []}, "scopes"),
        ({"scopes": ["*", "user:a"]}, "scopes"),
        ({"scopes": ["Not A Scope"]}, "scopes"),
        ({"kinds": ["deleted"]}, "kinds"),
        ({"description": "x" * 501}, "description"),
        ({"url": "ftp://hooks.example.com/"}, "url"),
        ({"url": "https://u:p@hooks.example.com/"}, "url"),
    ],
)
def test_bad_input_names_its_field(
    container: Container, tenant: str, body: dict[str, object], field_name: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        subscribe(rig(container), tenant, **body)
    assert refused.value.field == field_name


# --- delivery -------------------------------------------------------------------------


def test_deliveries_follow_the_feed_in_order_signed_and_without_content(
    container: Container, tenant: str
) -> None:
    r = rig(container)
    write(container, tenant, "before", "team:a", 0)  # before the subscription: not sent
    sub = subscribe(r, tenant, scopes=["team:a"], kinds=["written", "forgotten"])

    async def scenario() -> None:
        await r.dispatcher.start()
        try:
            await until(lambda: r.store.get(tenant, sub.id) is not None)
            for n in range(1, 4):
                for m in range(5):
                    write(container, tenant, f"m{m}", "team:a", n)
                    write(container, tenant, f"elsewhere{m}", "team:b", n)
            container.service.delete(tenant, "m0", actor="t", reason="test")
            await until(lambda: len(r.receiver.acknowledged_events()) >= 16)
        finally:
            await r.dispatcher.stop()

    write(container, tenant, "before", "team:a", 1)  # only this version is sent
    asyncio.run(scenario())
    events = r.receiver.acknowledged_events()
    assert {e["scope"] for e in events} == {"team:a"}
    assert [e["version"] for e in events if e["id"] == "before"] == [2]
    for m in range(5):
        versions = [e["version"] for e in events if e["id"] == f"m{m}" and e["kind"] == "written"]
        assert versions == [1, 2, 3]  # in order per memory
    assert events[-1]["kind"] == "forgotten" and events[-1]["id"] == "m0"
    for body, headers in zip(r.receiver.bodies, r.receiver.headers, strict=True):
        assert CANARY.encode() not in body
        now = container.clock.now().timestamp()
        delivery = verify_webhook(sub.secret, headers, body, now=now)
        assert headers["X-AIMemory-Event-Id"] == delivery["delivery_id"]
        assert len(delivery["events"]) <= 7  # the batch size
    state = r.store.get(tenant, sub.id)
    assert state is not None and state.state.delivered == len(events)


def test_a_failing_receiver_is_retried_then_paused_and_resumed_from_its_cursor(
    container: Container, tenant: str
) -> None:
    r = rig(container, script=[500, 503, 502, 500], max_failures=4)
    sub = subscribe(r, tenant)

    async def scenario() -> None:
        await r.dispatcher.start()
        try:
            write(container, tenant, "x", "user:a", 1)
            await until(lambda: _state(r, tenant, sub.id).status == "paused")
            paused = _state(r, tenant, sub.id)
            assert paused.failures == 4 and paused.last_status == 500
            assert paused.paused_reason and "4 consecutive" in paused.paused_reason
            assert paused.cursor == sub.state.cursor  # nothing acknowledged, nothing skipped
            write(container, tenant, "x", "user:a", 2)  # while paused
            await asyncio.sleep(0.3)
            assert len(r.receiver.bodies) == 4  # no attempt while paused
            await asyncio.to_thread(r.service.resume, admin(tenant), sub.id)
            await until(lambda: _state(r, tenant, sub.id).delivered == 2)
        finally:
            await r.dispatcher.stop()

    asyncio.run(scenario())
    state = _state(r, tenant, sub.id)
    assert (state.status, state.failures, state.last_status) == ("active", 0, 204)
    events = r.receiver.acknowledged_events()
    assert [(e["id"], e["version"]) for e in events] == [("x", 1), ("x", 2)]
    # Each retry sent the same batch: the same delivery id, the same body.
    first = r.receiver.bodies[:4]
    assert len(set(first)) == 1


class SaveFailsOnce(MemoryWebhookStore):
    """A store that loses the first acknowledged cursor (a crash between the receiver's
    2xx and the save)."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def save_state(self, tenant: str, webhook_id: str, state: DeliveryState) -> bool:
        if state.delivered and not self.failed:
            self.failed = True
            raise Unavailable("the store went away")
        return super().save_state(tenant, webhook_id, state)


def test_an_acknowledgement_lost_before_its_save_sends_the_same_events_again(
    container: Container, tenant: str
) -> None:
    r = rig(container)
    store = SaveFailsOnce()
    r.dispatcher._store = store
    r.service.store = store
    sub = subscribe(r, tenant)

    async def scenario() -> None:
        await r.dispatcher.start()
        try:
            for n in range(1, 4):
                write(container, tenant, "y", "user:a", n)
            await until(lambda: _state_of(store, tenant, sub.id).delivered >= 3)
        finally:
            await r.dispatcher.stop()

    asyncio.run(scenario())
    assert store.failed
    sent = [json.loads(b) for b in r.receiver.bodies]
    ids = [e["event_id"] for d in sent for e in d["events"]]
    assert len(ids) > len(set(ids))  # some event sent twice — with the same id
    assert sent[0]["delivery_id"] == sent[1]["delivery_id"]
    versions = [e["version"] for e in r.receiver.acknowledged_events()]
    assert versions == [1, 2, 3]


def test_a_deleted_webhook_stops_and_is_not_brought_back(container: Container, tenant: str) -> None:
    r = rig(container, script=[500] * 1000)
    sub = subscribe(r, tenant)

    async def scenario() -> None:
        await r.dispatcher.start()
        try:
            write(container, tenant, "z", "user:a", 1)
            await until(lambda: len(r.receiver.bodies) >= 2)
            await asyncio.to_thread(r.service.delete, admin(tenant), sub.id)
            await asyncio.sleep(0.3)
            attempts = len(r.receiver.bodies)
            await asyncio.sleep(0.3)
            assert len(r.receiver.bodies) == attempts
        finally:
            await r.dispatcher.stop()

    asyncio.run(scenario())
    assert r.store.get(tenant, sub.id) is None


def _state(r: Rig, tenant: str, webhook_id: str) -> DeliveryState:
    return _state_of(r.store, tenant, webhook_id)


def _state_of(store: MemoryWebhookStore, tenant: str, webhook_id: str) -> DeliveryState:
    found = store.get(tenant, webhook_id)
    assert found is not None
    return found.state


def test_two_gateways_one_deliverer_and_a_take_over(container: Container, tenant: str) -> None:
    """Two dispatchers on one store (two gateways): only the lease holder delivers, so no
    change is sent twice while both run; when it stops the other takes over from the
    saved cursor."""
    first = rig(container)
    feed = container.services.changes
    assert feed is not None
    second_receiver = Receiver()
    second = WebhookDispatcher(
        first.store,
        feed,
        second_receiver,
        SystemClockForLeases(),
        RetryPolicy(base=0.01, cap=0.04),
        batch=7,
        timing=DispatchTiming(refresh=0.05, idle_wait=0.2),
    )
    first.dispatcher._clock = SystemClockForLeases()  # leases expire on a moving clock
    sub = subscribe(first, tenant)

    async def scenario() -> None:
        await first.dispatcher.start()
        await asyncio.sleep(0.2)  # the first takes the lease
        await second.start()
        try:
            for n in range(1, 11):
                write(container, tenant, f"w{n % 3}", "user:a", n)
                await asyncio.sleep(0.01)
            await until(lambda: _state(first, tenant, sub.id).delivered == 10)
            assert second_receiver.bodies == []  # never both
            await first.dispatcher.stop()  # releases the lease
            for n in range(11, 16):
                write(container, tenant, f"w{n % 3}", "user:a", n)
            await until(lambda: _state(first, tenant, sub.id).delivered == 15)
        finally:
            await second.stop()

    asyncio.run(scenario())
    both = first.receiver.acknowledged_events() + second_receiver.acknowledged_events()
    assert len(first.receiver.acknowledged_events()) == 10
    assert len(second_receiver.acknowledged_events()) == 5
    assert len({e["event_id"] for e in both}) == 15


class SystemClockForLeases:
    def now(self) -> datetime:
        return datetime.now(UTC)


def test_a_cursor_saved_before_cursors_were_sealed_resumes_where_it_was(
    container: Container, tenant: str
) -> None:
    """A subscription whose delivery state holds a cursor in the plain form of earlier
    releases (``c1|partition:position``) resumes after it — neither stuck on a cursor the
    feed now refuses from callers, nor sent the log from its start again — and its saved
    cursor is sealed from then on."""
    r = rig(container)
    write(container, tenant, "old", "team:a", 0)  # delivered before the upgrade
    sub = subscribe(r, tenant, scopes=["team:a"])
    head = container.log.last_position()
    legacy = base64.urlsafe_b64encode(f"c1|0:{head}".encode()).rstrip(b"=").decode()
    r.store.save_state(tenant, sub.id, replace(sub.state, cursor=legacy))
    with pytest.raises(InvalidInput):  # a caller may not send one
        container.services.changes.page(admin(tenant), None, since=legacy)  # type: ignore[union-attr]

    async def scenario() -> None:
        await r.dispatcher.start()
        try:
            write(container, tenant, "new", "team:a", 1)
            await until(lambda: len(r.receiver.acknowledged_events()) >= 1)
        finally:
            await r.dispatcher.stop()

    asyncio.run(scenario())
    assert [e["id"] for e in r.receiver.acknowledged_events()] == ["new"]
    saved = _state(r, tenant, sub.id).cursor
    assert saved != legacy and "c1|" not in base64.urlsafe_b64decode(saved + "==").decode("latin-1")
