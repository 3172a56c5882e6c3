"""The KeyStore contract: the in-memory, SQLite and Cassandra stores pass it.

``make_store`` returns a factory: every call opens another store on the same backing
data, as the CLI and the server (or two gateways) would."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta

import pytest

from ai_memory.core.access import ApiKey, IssuedKey, check_key, issue_key, parse_key
from ai_memory.core.errors import Conflict
from ai_memory.core.ports import KeyStore
from tests.factories import T0

MakeStore = Callable[[], KeyStore]


def issue(tenant: str = "acme", **kw: object) -> IssuedKey:
    args: dict[str, object] = {
        "tenant": tenant,
        "role": "writer",
        "scopes": ["user:*", "team:data"],
        "name": "planner",
        "now": T0,
        **kw,
    }
    return issue_key(**args)  # type: ignore[arg-type]


def authenticate(store: KeyStore, token: str, at: object = T0) -> object:
    """What a gateway does with a bearer token (the service adds only a cache)."""
    parsed = parse_key(token)
    if parsed is None:
        return None
    return check_key(store.get(parsed.key_id), parsed, at)  # type: ignore[arg-type]


class KeyStoreContract:
    @pytest.fixture
    def make_store(self) -> MakeStore:
        raise NotImplementedError

    def test_create_then_get_by_id_round_trips_exactly(self, make_store: MakeStore) -> None:
        store = make_store()
        assert not store.has_keys()
        issued = issue(expires_at=T0 + timedelta(days=30, microseconds=7))
        store.create(issued.key)
        assert store.has_keys()
        assert make_store().get(issued.key.key_id) == issued.key  # another process sees it
        assert store.get("0123456789abcdef") is None

    def test_an_id_is_never_issued_twice(self, make_store: MakeStore) -> None:
        store = make_store()
        issued = issue()
        store.create(issued.key)
        twin = ApiKey(dataclasses.replace(issued.key.info, tenant="other"), "0" * 64)
        with pytest.raises(Conflict) as e:
            make_store().create(twin)
        assert e.value.code == "key_exists"
        assert store.get(issued.key.key_id) == issued.key
        assert store.list_keys("other") == []

    def test_list_by_tenant_shows_no_digest_and_no_other_tenant(
        self, make_store: MakeStore
    ) -> None:
        store = make_store()
        a1 = issue("acme", name="first")
        a2 = issue("acme", name="second", now=T0 + timedelta(seconds=1), role="reader")
        b = issue("globex")
        for issued in (a1, a2, b):
            store.create(issued.key)
        listed = store.list_keys("acme")
        assert listed == [a1.key.info, a2.key.info]
        assert store.list_keys("globex") == [b.key.info]
        assert store.list_keys("nobody") == []
        for info in listed:
            text = repr(info)
            secret = a1.token.split("_", 2)[2]  # the whole secret: it may hold "_"
            assert a1.key.secret_hash not in text and secret not in text
            assert not hasattr(info, "secret_hash")

    def test_revocation_is_final_and_keeps_the_first_time(self, make_store: MakeStore) -> None:
        store = make_store()
        issued = issue()
        store.create(issued.key)
        assert authenticate(store, issued.token) is not None
        revoked = store.revoke(issued.key.key_id, T0 + timedelta(hours=1))
        assert revoked is not None and revoked.revoked_at == T0 + timedelta(hours=1)
        again = make_store().revoke(issued.key.key_id, T0 + timedelta(hours=2))
        assert again is not None and again.revoked_at == T0 + timedelta(hours=1)
        assert store.list_keys("acme")[0].revoked_at == T0 + timedelta(hours=1)
        assert authenticate(make_store(), issued.token, T0 + timedelta(hours=3)) is None
        assert store.revoke("0123456789abcdef", T0) is None
        assert store.get("0123456789abcdef") is None  # revoking an unknown id creates nothing
        assert store.has_keys()  # a revoked key still counts: the server stays closed

    def test_expiry_is_kept_and_enforced(self, make_store: MakeStore) -> None:
        store = make_store()
        issued = issue(expires_at=T0 + timedelta(days=1))
        store.create(issued.key)
        assert authenticate(store, issued.token, T0 + timedelta(hours=23)) is not None
        assert authenticate(store, issued.token, T0 + timedelta(days=1)) is None

    def test_every_bad_key_is_refused_the_same_way(self, make_store: MakeStore) -> None:
        store = make_store()
        good, revoked, expired = issue(), issue(), issue(expires_at=T0 + timedelta(seconds=1))
        for issued in (good, revoked, expired):
            store.create(issued.key)
        store.revoke(revoked.key.key_id, T0)
        prefix, key_id, _ = good.token.split("_", 2)
        wrong_secret = f"{prefix}_{key_id}_{'A' * 43}"
        unknown = issue().token  # well formed, never stored
        later = T0 + timedelta(seconds=2)
        answers = [
            authenticate(store, token, later)
            for token in (wrong_secret, unknown, revoked.token, expired.token, "garbage")
        ]
        assert answers == [None] * 5
        principal = authenticate(store, good.token, later)
        assert principal is not None

    def test_a_key_of_one_tenant_is_never_another_tenants(self, make_store: MakeStore) -> None:
        store = make_store()
        a, b = issue("acme"), issue("globex")
        store.create(a.key)
        store.create(b.key)
        principal = authenticate(store, a.token)
        assert getattr(principal, "tenant", None) == "acme"
        assert [i.key_id for i in store.list_keys("globex")] == [b.key.key_id]
