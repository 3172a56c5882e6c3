"""The WebhookStore contract: the in-memory, SQLite and Cassandra stores pass it.

``make_store`` returns a factory: every call opens another store on the same backing
data, as a restarted server (or another gateway) would."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from ai_memory.core.errors import Conflict
from ai_memory.core.ports import WebhookStore
from ai_memory.core.webhooks.model import DeliveryState, Subscription, new_id, new_secret
from tests.factories import T0

MakeStore = Callable[[], WebhookStore]


def subscription(tenant: str = "acme", **kw: object) -> Subscription:
    args: dict[str, object] = {
        "id": new_id(),
        "tenant": tenant,
        "url": "https://hooks.example.com/in",
        "scopes": ("user:alice", "team:ops"),
        "kinds": ("written", "forgotten"),
        "description": "the planner's inbox",
        "secret": new_secret(),
        "created_at": T0,
        "created_by": "key:0123456789abcdef",
        "state": DeliveryState(cursor="YzF8MDo3"),
        **kw,
    }
    return Subscription(**args)  # type: ignore[arg-type]


class WebhookStoreContract:
    @pytest.fixture
    def make_store(self) -> MakeStore:
        raise NotImplementedError

    def test_create_then_read_back_exactly_from_another_store(self, make_store: MakeStore) -> None:
        store = make_store()
        every = subscription(scopes=None, kinds=("written", "state_changed", "forgotten"))
        some = subscription(created_at=T0 + timedelta(microseconds=1))
        store.create(some)
        store.create(every)
        other = make_store()  # a restart, or another gateway
        assert other.get("acme", some.id) == some
        assert other.get("acme", every.id) == every
        assert [s.id for s in other.list_tenant("acme")] == [every.id, some.id]  # oldest first

    def test_an_id_is_never_taken_twice(self, make_store: MakeStore) -> None:
        store = make_store()
        first = subscription()
        store.create(first)
        with pytest.raises(Conflict) as taken:
            store.create(replace(first, url="https://other.example.com/"))
        assert taken.value.code == "webhook_exists"
        assert make_store().get("acme", first.id) == first

    def test_tenants_see_only_their_own(self, make_store: MakeStore) -> None:
        store = make_store()
        mine, theirs = subscription("acme"), subscription("globex")
        store.create(mine)
        store.create(theirs)
        assert store.get("globex", mine.id) is None
        assert [s.id for s in store.list_tenant("globex")] == [theirs.id]
        assert not store.delete("globex", mine.id)
        assert store.get("acme", mine.id) == mine
        assert {s.id for s in store.list_all()} >= {mine.id, theirs.id}

    def test_the_delivery_state_survives_a_reopen(self, make_store: MakeStore) -> None:
        store = make_store()
        s = subscription()
        store.create(s)
        state = DeliveryState(
            cursor="YzF8MDoxMjM",
            status="paused",
            failures=10,
            failing_since=T0 + timedelta(seconds=1, microseconds=5),
            last_attempt_at=T0 + timedelta(seconds=9),
            last_success_at=T0,
            last_status=503,
            last_error="HTTP 503",
            paused_reason="10 consecutive failed deliveries",
            delivered=4_000_000_000,
        )
        assert store.save_state("acme", s.id, state)
        assert make_store().get("acme", s.id) == replace(s, state=state)
        cleared = DeliveryState(cursor="YzF8MDoxMjQ", last_status=None, last_error=None)
        assert store.save_state("acme", s.id, cleared)
        assert make_store().get("acme", s.id) == replace(s, state=cleared)

    def test_a_state_saved_after_a_delete_does_not_bring_it_back(
        self, make_store: MakeStore
    ) -> None:
        store = make_store()
        s = subscription()
        store.create(s)
        assert make_store().delete("acme", s.id)
        assert not make_store().delete("acme", s.id)
        assert not store.save_state("acme", s.id, DeliveryState(cursor="YzF8MDo5"))
        assert store.get("acme", s.id) is None
        assert s.id not in {x.id for x in store.list_all()}
        assert not store.save_state("globex", "wh_0000000000000000", DeliveryState(cursor="x"))

    def test_one_owner_holds_the_lease_until_it_expires(self, make_store: MakeStore) -> None:
        a, b = make_store(), make_store()
        lease = f"lease-{new_id()}"
        now = datetime.now(UTC)
        assert a.claim(lease, "gateway-a", 1.0, now)
        assert a.claim(lease, "gateway-a", 1.0, now)  # renewed by its owner
        assert not b.claim(lease, "gateway-b", 1.0, now)
        time.sleep(2.1)  # a store may expire leases on its own clock (a TTL)
        later = now + timedelta(seconds=2.1)
        assert b.claim(lease, "gateway-b", 30.0, later)
        assert not a.claim(lease, "gateway-a", 30.0, later)
