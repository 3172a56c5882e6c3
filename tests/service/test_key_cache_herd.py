"""Many requests missing one cache entry at once read the store once, not once each: the
API-key cache, "are keys in force" and a tenant's KEK versions (``core.single_flight``).
A slow store (a frozen replica) then costs one slow read, not one per request."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from ai_memory.adapters.key_wrapping import WrappedVault
from ai_memory.adapters.memory import KeyBacking, MemoryKeyStore
from ai_memory.adapters.memory.data_key_vault import MemoryVaultRows, VaultBacking
from ai_memory.core.errors import Unauthenticated
from ai_memory.service.keys import KeyService
from tests.factories import FixedClock
from tests.together import together

CALLERS = 8


class Held:
    """Wraps ``target``: calls of ``method`` are counted, and the first one is held until
    ``release`` (a store that is slow to answer), or raises ``error`` when released."""

    def __init__(self, target: Any, method: str, error: Exception | None = None) -> None:
        self._target, self._method, self._error = target, method, error
        self.calls = 0
        self.holding = threading.Event()
        self.release = threading.Event()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if name != self._method:
            return attr

        def held(*args: Any) -> Any:
            self.calls += 1
            if self.calls == 1:
                self.holding.set()
                assert self.release.wait(10)
                if self._error is not None:
                    raise self._error
            return attr(*args)

        return held


def _together(call: Callable[[], Any], held: Held, joined: Callable[[], int]) -> list[Any]:
    return together(call, CALLERS, holding=held.holding, release=held.release, joined=joined)


def test_requests_missing_one_key_read_the_store_once() -> None:
    clock = FixedClock()
    setup = KeyService(MemoryKeyStore(backing := KeyBacking()), clock)
    token = setup.create(tenant="acme", role="writer", scopes=["*"], name="a").token
    key_id = token.split("_")[1]
    store = Held(MemoryKeyStore(backing), "get")
    keys = KeyService(store, clock, cache_ttl=2)  # type: ignore[arg-type]
    out = _together(
        lambda: keys.authenticate(token), store, lambda: keys._key_reads.followers(key_id)
    )
    assert {p.tenant for p in out} == {"acme"} and store.calls == 1
    clock.advance(2)  # aged out: read again, once
    keys.authenticate(token)
    assert store.calls == 2


def test_a_shared_read_that_fails_fails_each_request_as_its_own_would() -> None:
    """With nothing read before, every caller of a failed shared read gets the error (503
    at the edge), none is let in; with an answer read within ``STALE_IF_ERROR``, every one
    of them falls back on it, as a lone caller would."""
    clock = FixedClock()
    backing = KeyBacking()
    token = (
        KeyService(MemoryKeyStore(backing), clock)
        .create(tenant="acme", role="writer", scopes=["*"], name="a")
        .token
    )
    key_id = token.split("_")[1]
    store = Held(MemoryKeyStore(backing), "get", error=TimeoutError("frozen replica"))
    keys = KeyService(store, clock, cache_ttl=2)  # type: ignore[arg-type]
    out = _together(
        lambda: keys.authenticate(token), store, lambda: keys._key_reads.followers(key_id)
    )
    assert store.calls == 1
    assert all(isinstance(o, TimeoutError) for o in out), out

    keys.authenticate(token)  # read and cached (the store answers after its first call)
    clock.advance(3)  # aged out: the next read is shared again, and fails
    failing = Held(MemoryKeyStore(backing), "get", error=TimeoutError("frozen replica"))
    keys._store = failing  # type: ignore[assignment]  # the same service, its store frozen
    out = _together(
        lambda: keys.authenticate(token), failing, lambda: keys._key_reads.followers(key_id)
    )
    assert failing.calls == 1
    assert [getattr(o, "tenant", o) for o in out] == ["acme"] * CALLERS


def test_a_late_joiner_does_not_make_a_shared_answer_look_younger() -> None:
    """A caller joining a read that began 1.5 s earlier caches its answer as of when the
    read began: a revocation still reaches this gateway within ``cache_ttl`` of the read."""
    clock = FixedClock()
    backing = KeyBacking()
    setup = KeyService(MemoryKeyStore(backing), clock)
    token = setup.create(tenant="acme", role="writer", scopes=["*"], name="a").token
    key_id = token.split("_")[1]
    store = Held(MemoryKeyStore(backing), "get")
    keys = KeyService(store, clock, cache_ttl=2)  # type: ignore[arg-type]
    with ThreadPoolExecutor(2) as pool:
        leader = pool.submit(keys.authenticate, token)
        assert store.holding.wait(10)
        clock.advance(1.5)
        late = pool.submit(keys.authenticate, token)
        while keys._key_reads.followers(key_id) < 1:
            time.sleep(0.005)
        store.release.set()
        assert leader.result(10).tenant == late.result(10).tenant == "acme"
    setup.revoke(key_id)
    clock.advance(0.5)  # 2 s after the read began, 0.5 s after the late caller asked
    with pytest.raises(Unauthenticated):
        keys.authenticate(token)
    assert store.calls == 2


def test_are_keys_in_force_is_read_once_for_all_waiting() -> None:
    store = Held(MemoryKeyStore(), "has_keys")
    keys = KeyService(store, FixedClock())  # type: ignore[arg-type]
    out = _together(keys.required, store, lambda: keys._any_key_reads.followers(None))
    assert out == [False] * CALLERS and store.calls == 1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_expired_kek_cache_is_refreshed_once_for_all_waiting() -> None:
    backing, clock = VaultBacking(), Clock()
    key = WrappedVault(MemoryVaultRows(backing), bytes(32), clock=clock).create("acme", "k1")
    rows = Held(MemoryVaultRows(backing), "keks")
    vault = WrappedVault(rows, bytes(32), clock=clock)  # type: ignore[arg-type]
    out = _together(
        lambda: vault.get("acme", "k1"), rows, lambda: vault._kek_reads.followers("acme")
    )
    assert out == [key] * CALLERS and rows.calls == 1


def test_a_read_that_must_see_a_change_never_joins_an_older_one() -> None:
    """``fresh`` reads (a version just added, or one the cache does not know) go to the
    store themselves: joining a read started before the change would miss it."""
    backing, clock = VaultBacking(), Clock()
    WrappedVault(MemoryVaultRows(backing), bytes(32), clock=clock).create("acme", "k1")
    rows = Held(MemoryVaultRows(backing), "keks")
    vault = WrappedVault(rows, bytes(32), clock=clock)  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(vault.get, "acme", "k1")  # holds a non-fresh read
        assert rows.holding.wait(10)
        assert vault.add_kek_version("acme") == 2  # fresh reads, not held behind it
        assert vault.kek_versions("acme") == [1, 2]
        rows.release.set()
        assert slow.result(10) is not None
    assert rows.calls >= 3


def test_a_kek_answer_joined_late_expires_from_when_its_read_began() -> None:
    backing, clock = VaultBacking(), Clock()
    WrappedVault(MemoryVaultRows(backing), bytes(32), clock=clock).create("acme", "k1")
    rows = Held(MemoryVaultRows(backing), "keks")
    vault = WrappedVault(rows, bytes(32), clock=clock, kek_cache_seconds=5)  # type: ignore[arg-type]
    with ThreadPoolExecutor(2) as pool:
        leader = pool.submit(vault.get, "acme", "k1")
        assert rows.holding.wait(10)
        clock.now += 3
        late = pool.submit(vault.get, "acme", "k1")
        while vault._kek_reads.followers("acme") < 1:
            time.sleep(0.005)
        rows.release.set()
        assert leader.result(10) == late.result(10)
    clock.now += 1.9  # 4.9 s after the read began: still cached
    vault.get("acme", "k1")
    assert rows.calls == 1
    clock.now += 0.2  # 5.1 s after it (2.1 s after the late caller asked): read again
    vault.get("acme", "k1")
    assert rows.calls == 2
