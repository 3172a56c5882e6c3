"""``SearchRowCache``: a row answers only at its own position, within its lifetime, for
its own tenant; the cache stays within its bound and sheds what outlived its lifetime."""

from __future__ import annotations

import pytest

from ai_memory.core.record import MemoryState, StoredRecord
from ai_memory.service.search_row_cache import SearchRowCache
from tests.factories import T0, record


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def row(mid: str, position: int = 5, tenant: str = "acme") -> StoredRecord:
    return StoredRecord(tenant, record(mid), 1, MemoryState.ACTIVE, "x", T0, position)


def test_a_row_answers_only_at_its_position() -> None:
    cache = SearchRowCache(10, 1.0, _Clock())
    cache.put_many("acme", [row("a", 5)])
    assert cache.get_many("acme", {"a": 5}) == {"a": row("a", 5)}
    assert cache.get_many("acme", {"a": 6}) == {}
    assert cache.get_many("acme", {"a": 4}) == {}
    assert (cache.hits, cache.misses) == (1, 2)


def test_a_row_answers_for_its_own_tenant_only() -> None:
    cache = SearchRowCache(10, 1.0, _Clock())
    cache.put_many("acme", [row("a")])
    assert cache.get_many("globex", {"a": 5}) == {}


def test_a_row_lives_its_lifetime_and_then_leaves() -> None:
    clock = _Clock()
    cache = SearchRowCache(10, 1.0, clock)
    cache.put_many("acme", [row("a"), row("b")])
    clock.now = 0.99
    assert set(cache.get_many("acme", {"a": 5, "b": 5})) == {"a", "b"}
    clock.now = 1.0
    assert cache.get_many("acme", {"a": 5}) == {}  # looked up: gone
    assert len(cache) == 1
    cache.put_many("acme", [row("c")])  # a store sheds what outlived its lifetime
    assert len(cache) == 1
    assert cache.get_many("acme", {"c": 5}) == {"c": row("c")}


def test_the_oldest_make_room() -> None:
    clock = _Clock()
    cache = SearchRowCache(2, 10.0, clock)
    for i, mid in enumerate("abc"):
        clock.now = float(i)
        cache.put_many("acme", [row(mid)])
    assert len(cache) == 2
    assert set(cache.get_many("acme", {"a": 5, "b": 5, "c": 5})) == {"b", "c"}
    cache.put_many("acme", [row("b", 6)])  # stored again: the newest now
    cache.put_many("acme", [row("d")])
    assert set(cache.get_many("acme", {"b": 6, "c": 5, "d": 5})) == {"b", "d"}


def test_dropped_rows_are_gone() -> None:
    cache = SearchRowCache(10, 1.0, _Clock())
    cache.put_many("acme", [row("a"), row("b")])
    cache.drop("acme", ["a", "zz"])
    assert set(cache.get_many("acme", {"a": 5, "b": 5})) == {"b"}


@pytest.mark.parametrize(("entries", "ttl"), [(0, 1.0), (1, 0.0)])
def test_a_cache_needs_room_and_a_lifetime(entries: int, ttl: float) -> None:
    with pytest.raises(ValueError, match="room and a lifetime"):
        SearchRowCache(entries, ttl)
