"""The key service: issuing, listing, revoking, and authentication with its TTL cache."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ai_memory.adapters.memory import KeyBacking, MemoryKeyStore
from ai_memory.core.access import ApiKey, generate_token
from ai_memory.core.errors import Forbidden, InvalidInput, NotFound, Unauthenticated, Unavailable
from ai_memory.service import access
from ai_memory.service.keys import KeyService
from tests.factories import T0, FixedClock


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def backing() -> KeyBacking:
    return KeyBacking()


@pytest.fixture
def keys(backing: KeyBacking, clock: FixedClock) -> KeyService:
    return KeyService(MemoryKeyStore(backing), clock)


def test_create_shows_the_secret_once_and_list_never(keys: KeyService) -> None:
    issued = keys.create(tenant="acme", role="writer", scopes=["user:*"], name="planner")
    secret = issued.token.split("_", 2)[2]
    listed = keys.list("acme")
    assert [i.key_id for i in listed] == [issued.key.key_id]
    assert secret not in repr(listed) and issued.key.secret_hash not in repr(listed)
    principal = keys.authenticate(issued.token)
    assert (principal.tenant, principal.role) == ("acme", "writer")
    assert keys.authenticate(f"  {issued.token} ").key_id == issued.key.key_id


def test_expiry_is_judged_on_every_call_not_cached(keys: KeyService, clock: FixedClock) -> None:
    issued = keys.create(
        tenant="acme", role="reader", scopes=["*"], name="x", expires_in=timedelta(seconds=60)
    )
    keys.authenticate(issued.token)
    clock.advance(59)
    keys.authenticate(issued.token)
    clock.advance(1)
    with pytest.raises(Unauthenticated):
        keys.authenticate(issued.token)


def test_a_revocation_elsewhere_is_seen_within_the_ttl(
    keys: KeyService, backing: KeyBacking, clock: FixedClock
) -> None:
    issued = keys.create(tenant="acme", role="reader", scopes=["*"], name="x")
    keys.authenticate(issued.token)  # cached by this gateway
    other_gateway = KeyService(MemoryKeyStore(backing), clock)
    other_gateway.revoke(issued.key.key_id)
    with pytest.raises(Unauthenticated):
        other_gateway.authenticate(issued.token)  # the revoking gateway: at once
    clock.advance(4.9)
    keys.authenticate(issued.token)  # still cached here: the documented window
    clock.advance(0.1)
    with pytest.raises(Unauthenticated):
        keys.authenticate(issued.token)  # 5 s after: refused everywhere


def test_every_bad_token_gets_the_same_error(keys: KeyService) -> None:
    good = keys.create(tenant="acme", role="reader", scopes=["*"], name="x")
    revoked = keys.create(tenant="acme", role="reader", scopes=["*"], name="y")
    keys.revoke(revoked.key.key_id)
    prefix, key_id, _ = good.token.split("_", 2)
    answers = set()
    for token in ("nonsense", f"{prefix}_{key_id}_{'A' * 43}", revoked.token, issue_other()):
        with pytest.raises(Unauthenticated) as e:
            keys.authenticate(token)
        answers.add((e.value.code, e.value.message))
    assert len(answers) == 1 and answers.pop()[0] == "invalid_api_key"
    for missing in (None, "", "  "):
        with pytest.raises(Unauthenticated) as e:
            keys.authenticate(missing)
        assert e.value.code == "api_key_required"  # no key at all: nothing to hide


def issue_other() -> str:
    """A well-formed key of another deployment: unknown here."""
    return (
        KeyService(MemoryKeyStore(), FixedClock())
        .create(tenant="acme", role="reader", scopes=["*"], name="x")
        .token
    )


def test_revoke_is_final_and_an_unknown_id_is_not_found(
    keys: KeyService, clock: FixedClock
) -> None:
    issued = keys.create(tenant="acme", role="reader", scopes=["*"], name="x")
    first = keys.revoke(issued.key.key_id)
    clock.advance(10)
    assert keys.revoke(issued.key.key_id).revoked_at == first.revoked_at == T0
    with pytest.raises(NotFound):
        keys.revoke("0123456789abcdef")


def test_keys_are_required_once_one_exists_even_revoked(
    keys: KeyService, backing: KeyBacking, clock: FixedClock
) -> None:
    assert not keys.required()
    other = KeyService(MemoryKeyStore(backing), clock)
    issued = other.create(tenant="acme", role="reader", scopes=["*"], name="x")
    assert not keys.required()  # this gateway read "no keys" under a second ago
    clock.advance(5)
    assert keys.required()
    other.revoke(issued.key.key_id)
    clock.advance(60)
    assert keys.required()


def test_an_authenticated_key_is_judged_with_the_policy_codes(keys: KeyService) -> None:
    token = keys.create(tenant="acme", role="writer", scopes=["user:*"], name="x").token
    principal = keys.authenticate(token)
    access.require(principal, "write", "user:alice")
    with pytest.raises(Forbidden) as e:
        access.require(principal, "write", "team:x")
    assert e.value.code == "scope_forbidden"
    with pytest.raises(Forbidden) as e:
        access.require(principal, "manage_keys")
    assert e.value.code == "role_forbidden"
    assert access.readable(principal, ["user:bob", "public"]) == ["user:bob", "public"]
    with pytest.raises(Forbidden) as e:
        access.readable(principal, None)
    assert e.value.code == "scope_required"


def test_the_cache_ttl_is_at_most_five_seconds(backing: KeyBacking, clock: FixedClock) -> None:
    with pytest.raises(InvalidInput):
        KeyService(MemoryKeyStore(backing), clock, cache_ttl=6)


class FlakyStore(MemoryKeyStore):
    """The memory store that can be switched off, like a Cassandra that died."""

    down = False

    def get(self, key_id: str) -> ApiKey | None:
        if self.down:
            raise Unavailable("key store unreachable")
        return super().get(key_id)

    def has_keys(self) -> bool:
        if self.down:
            raise Unavailable("key store unreachable")
        return super().has_keys()


def test_a_key_store_outage_serves_what_was_read_for_a_while_then_fails_closed(
    backing: KeyBacking, clock: FixedClock
) -> None:
    store = FlakyStore(backing)
    keys = KeyService(store, clock)
    issued = keys.create(tenant="acme", role="reader", scopes=["*"], name="x")
    assert keys.required()
    keys.authenticate(issued.token)
    store.down = True
    clock.advance(60)  # past the cache TTL: the store is asked, and cannot answer
    assert keys.required()  # still closed: an outage never opens the door
    assert keys.authenticate(issued.token).key_id == issued.key.key_id
    with pytest.raises(Unavailable):  # never read before: not guessed
        keys.authenticate(issue_other())
    clock.advance(300)
    with pytest.raises(Unavailable):  # stale for too long: 503, not a stale "yes"
        keys.authenticate(issued.token)
    store.down = False
    keys.authenticate(issued.token)


def test_an_outage_before_anything_was_read_is_unavailable(
    backing: KeyBacking, clock: FixedClock
) -> None:
    store = FlakyStore(backing)
    store.down = True
    with pytest.raises(Unavailable):
        KeyService(store, clock).required()


def test_the_cached_paths_answer_like_the_full_ones(keys: KeyService, clock: FixedClock) -> None:
    """What the door asks on the event loop: the same answers, or None for "read the
    store" — never a different decision."""
    assert keys.required_if_known() is None  # never read
    assert keys.required() is False
    assert keys.required_if_known() is False
    issued = keys.create(tenant="acme", role="reader", scopes=["*"], name="x")
    clock.advance(5)
    assert keys.required_if_known() is None  # "no keys" is re-read after the TTL
    assert keys.required() is True
    assert keys.required_if_known() is True  # once required, always
    assert keys.authenticate_if_cached(issued.token) is None  # not cached yet
    keys.authenticate(issued.token)
    cached = keys.authenticate_if_cached(issued.token)
    assert cached is not None and cached.key_id == issued.key.key_id
    wrong = issued.token[:-4] + ("aaaa" if not issued.token.endswith("aaaa") else "bbbb")
    with pytest.raises(Unauthenticated):
        keys.authenticate_if_cached(wrong)
    with pytest.raises(Unauthenticated):
        keys.authenticate_if_cached(None)
    clock.advance(5)
    assert keys.authenticate_if_cached(issued.token) is None  # aged out: read again


# --- a key adopted from a deployment's secret (AIMEM_ADMIN_KEY) -------------------------
def test_an_adopted_key_is_an_admin_of_its_tenant_and_adopting_again_changes_nothing(
    keys: KeyService, backing: KeyBacking
) -> None:
    token = generate_token()
    info = keys.adopt(token, tenant="acme", name="AIMEM_ADMIN_KEY")
    assert keys.adopt(token, tenant="acme", name="AIMEM_ADMIN_KEY") == info
    principal = keys.authenticate(token)
    assert (principal.tenant, principal.role, principal.key_id) == ("acme", "admin", info.key_id)
    stored = next(iter(backing.keys.values()))
    assert token.split("_", 2)[2] not in repr(stored)  # only its digest is kept


def test_an_adopted_key_cannot_be_hijacked_or_brought_back(keys: KeyService) -> None:
    token = generate_token()
    info = keys.adopt(token, tenant="acme", name="AIMEM_ADMIN_KEY")
    forged = f"aimem_{info.key_id}_{generate_token().split('_', 2)[2]}"
    with pytest.raises(InvalidInput) as e:
        keys.adopt(forged, tenant="acme", name="AIMEM_ADMIN_KEY")  # same id, other secret
    assert e.value.rule == "key_conflict"
    with pytest.raises(InvalidInput):
        keys.adopt(token, tenant="globex", name="AIMEM_ADMIN_KEY")  # same key, other tenant
    keys.revoke(info.key_id)
    again = keys.adopt(token, tenant="acme", name="AIMEM_ADMIN_KEY")  # a restart
    assert again.revoked_at is not None
    with pytest.raises(Unauthenticated):
        keys.authenticate(token)


@pytest.mark.parametrize("token", ["", "secret", "aimem_zz_short", "aimem_" + "0" * 16 + "_x"])
def test_a_malformed_secret_is_not_adopted(keys: KeyService, token: str) -> None:
    with pytest.raises(InvalidInput) as e:
        keys.adopt(token, tenant="acme", name="AIMEM_ADMIN_KEY")
    assert e.value.rule == "key_format"
    assert not keys.required()
