"""KEK rotation (``service.key_rotation``) over the in-memory vault, with an injected
clock and wait: writers with a stale KEK cache racing it, and runs killed part-way."""

from __future__ import annotations

from typing import Any

import pytest

from ai_memory.adapters.key_wrapping import WrappedVault
from ai_memory.adapters.memory.data_key_vault import MemoryVaultRows, VaultBacking
from ai_memory.core.data_keys import DataKeyVault, KeyPage
from ai_memory.service.key_rotation import rotate_kek

ROOT = bytes(range(32))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Setup:
    def __init__(self) -> None:
        self.backing = VaultBacking()
        self.clock = Clock()
        self.waited: list[float] = []

    def vault(self, clock: Clock | None = None) -> WrappedVault:
        return WrappedVault(MemoryVaultRows(self.backing), ROOT, clock=clock or self.clock)

    def wait(self, seconds: float) -> None:
        self.waited.append(seconds)
        self.clock.now += seconds


class Crash(Exception):
    pass


class Flaky:
    """A vault that dies (kill -9) at the n-th call of one method."""

    def __init__(self, inner: DataKeyVault, method: str, at: int) -> None:
        self._inner, self._method, self._left = inner, method, at

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name != self._method:
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self._left -= 1
            if self._left == 0:
                raise Crash(name)
            return attr(*args, **kwargs)

        return call


def _written(s: Setup, n: int, prefix: str = "memory/m") -> dict[str, bytes]:
    return s.vault().create_many("acme", [f"{prefix}{i}" for i in range(n)])


def _all_open(s: Setup, keys: dict[str, bytes]) -> None:
    fresh = s.vault()
    assert {k: fresh.get("acme", k) for k in keys} == keys


def test_a_rotation_rewraps_every_key_and_destroys_the_old_version() -> None:
    s = Setup()
    keys = _written(s, 12)
    other = s.vault().create("globex", "memory/g")
    done = rotate_kek(s.vault(), "acme", wait=s.wait, cache_seconds=5.0, page=5)
    assert (done.old_versions, done.new_version, done.rewrapped, done.resumed) == (
        (1,),
        2,
        12,
        False,
    )
    assert s.waited == [5.0]
    assert s.vault().kek_versions("acme") == [2]
    _all_open(s, keys)
    assert s.vault().get("globex", "memory/g") == other
    again = rotate_kek(s.vault(), "acme", wait=s.wait)
    assert (again.old_versions, again.new_version, again.rewrapped) == ((2,), 3, 12)
    _all_open(s, keys)


def test_a_stale_writer_racing_the_scan_keeps_its_key() -> None:
    s = Setup()
    keys = _written(s, 6)
    # A writer in another process: its own clock never moves, so its cached KEK v1
    # stays "fresh" for it through the whole rotation.
    writer = s.vault(Clock())
    writer.create("acme", "memory/warm")
    raced: dict[str, bytes] = {}

    def race(tenant: str) -> None:
        key_id = f"memory/late-{len(raced)}"
        raced[key_id] = writer.create(tenant, key_id)

    class Racing:
        """The stale writer stores a key after listing pages, and once more after the
        last pass found nothing — just before the old version is destroyed."""

        def __init__(self, inner: DataKeyVault) -> None:
            self._inner = inner
            self._listed_versions = 0

        def __getattr__(self, name: str) -> Any:
            return getattr(self._inner, name)

        def keys_below(
            self, tenant: str, version: int, cursor: str | None = None, limit: int = 500
        ) -> KeyPage:
            page = self._inner.keys_below(tenant, version, cursor, limit)
            if len(raced) < 3:
                race(tenant)
            return page

        def kek_versions(self, tenant: str, include_destroyed: bool = False) -> list[int]:
            self._listed_versions += 1
            if self._listed_versions == 2:  # the versions about to be destroyed
                race(tenant)
            return self._inner.kek_versions(tenant, include_destroyed)

    done = rotate_kek(Racing(s.vault()), "acme", wait=s.wait, page=2)
    assert done.old_versions == (1,)
    assert len(raced) == 4
    assert s.vault().kek_versions("acme") == [2]
    _all_open(s, {**keys, **raced})
    assert writer.get("acme", "memory/late-0") == raced["memory/late-0"]


def test_a_rotation_killed_at_any_step_is_finished_by_running_it_again() -> None:
    for method, at in [
        ("add_kek_version", 1),
        ("rewrap", 1),
        ("rewrap", 7),
        ("keys_below", 3),
        ("destroy_kek", 1),
    ]:
        s = Setup()
        keys = _written(s, 9)
        with pytest.raises(Crash):
            rotate_kek(Flaky(s.vault(), method, at), "acme", wait=s.wait, page=4)
        done = rotate_kek(s.vault(), "acme", wait=s.wait, page=4)
        assert done.resumed == (method != "add_kek_version"), method
        assert s.vault().kek_versions("acme") == [2], method
        _all_open(s, keys)


def test_a_rotation_killed_between_destroying_two_old_versions_resumes() -> None:
    s = Setup()
    keys = _written(s, 3)
    s.vault().add_kek_version("acme")  # rotations stopped after their step 1
    s.clock.now += 10
    keys |= _written(s, 3, "memory/v2-")
    s.vault().add_kek_version("acme")
    with pytest.raises(Crash):  # … and the next one killed after its first destroy
        rotate_kek(Flaky(s.vault(), "destroy_kek", 2), "acme", wait=s.wait)
    assert s.vault().kek_versions("acme") == [2, 3]
    done = rotate_kek(s.vault(), "acme", wait=s.wait)
    assert (done.resumed, done.old_versions, done.new_version) == (True, (2,), 3)
    assert s.vault().kek_versions("acme") == [3]
    _all_open(s, keys)


def test_a_key_left_under_a_destroyed_kek_is_marked_destroyed_not_rescanned() -> None:
    s = Setup()
    rows = MemoryVaultRows(s.backing)
    _written(s, 2)
    s.vault().add_kek_version("acme")
    s.vault().destroy_kek("acme", 1)  # as if a writer were killed before its post-check
    done = rotate_kek(s.vault(), "acme", wait=s.wait)
    assert done.rewrapped == 0
    assert rows.keys_below("acme", 99, None, 10).key_ids == ()
    assert s.vault().destroyed("acme", "memory/m0")


def test_a_tenant_without_a_kek_has_nothing_to_rotate() -> None:
    with pytest.raises(Exception) as e:
        rotate_kek(Setup().vault(), "acme", wait=lambda _: None)
    assert getattr(e.value, "code", "") == "kek_not_found"
