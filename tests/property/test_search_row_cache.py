"""A search served from its cached rows answers as one reading the store
(``service.search_row_cache``): a cached row answers only for the version the index
holds, a cached row that does not open is read again, and a read count is at most the
cache's lifetime old."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.core.ports import HitFacts, IndexHit
from ai_memory.core.record import MemoryState, MemoryType, StoredRecord
from ai_memory.service.memory_service import MemoryService, SearchRequest
from ai_memory.service.search_reads import SearchHit
from ai_memory.service.search_row_cache import SearchRowCache
from tests.factories import T0, record
from tests.property.test_search_reads_contenders import Case, _shape, _Store, cases, service


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _RotatingStore(_Store):
    """A store whose rows named in ``rotated`` open only as read now, not as cached."""

    def __init__(self, *args: Any, rotated: set[str]) -> None:
        super().__init__(*args)
        self.rotated = rotated

    def unseal(self, tenant: str, records: Any) -> list[StoredRecord]:
        return [
            s
            for s in super().unseal(tenant, records)
            if not (s.record.id in self.rotated and s.content_sha256 == "old key")
        ]


def _service(store: _Store, hits: list[IndexHit], cache: SearchRowCache | None) -> MemoryService:
    return service(store, hits, cache)


def _search(svc: MemoryService, **body: Any) -> list[SearchHit]:
    return svc.search("t", SearchRequest.parse({"query": "tea", **body}, svc.limits))


def _at_positions(case: Case) -> list[IndexHit]:
    """The hits with the position of the version the index holds: the record's own."""
    out = []
    for h in case.hits:
        row = case.rows.get(h.memory_id)
        position = row.position if row is not None else 999
        assert h.facts is not None
        out.append(replace(h, facts=replace(h.facts, position=position)))
    return out


def _other_version(row: StoredRecord) -> StoredRecord:
    """The same memory at another position: a version the index no longer holds."""
    return replace(
        row,
        record=record(row.record.id, "an older version", type_=MemoryType.PREFERENCE),
        state=MemoryState.ACTIVE,
        position=row.position + 1000,
        read_count=row.read_count + 7,
    )


@settings(max_examples=300, deadline=None)
@given(cases(), st.integers(1, 12), st.booleans(), st.data())
def test_the_answer_is_the_one_the_store_gives(
    case: Case, top_k: int, rerank: bool, data: st.DataObject
) -> None:
    """Whatever the cache holds — the very rows, other versions of them, nothing — the
    answer is the one reading the store gives, and a cached row at the index's position
    is not read again."""
    hits = _at_positions(case)
    cache = SearchRowCache(1000, 1.0, _Clock())
    exact: set[str] = set()
    for mid, row in case.rows.items():
        held = data.draw(st.sampled_from(["exact", "other", "none"]), label=mid)
        if held == "exact":
            cache.put_many("t", [row])
            exact.add(mid)
        elif held == "other":
            cache.put_many("t", [_other_version(row)])
    want = _search(_service(_Store(case.rows, case.unopenable), hits, None), top_k=top_k,
                   rerank=rerank)  # fmt: skip
    store = _Store(case.rows, case.unopenable)
    got = _search(_service(store, hits, cache), top_k=top_k, rerank=rerank)
    assert _shape(got) == _shape(want)
    assert not exact & {m for m in store.read if m not in case.unopenable}


def _row(mid: str, *, position: int = 5, reads: int = 0, key: str = "x") -> StoredRecord:
    return StoredRecord(
        "t", record(mid, "tea", type_=MemoryType.FACT, created_at=T0), 1, MemoryState.ACTIVE,
        key, T0, position, read_count=reads,
    )  # fmt: skip


def _hit(mid: str, position: int = 5) -> IndexHit:
    return IndexHit(mid, 1.0, {"fused": 1.0}, HitFacts(MemoryType.FACT, T0, position))


def test_a_cached_row_that_does_not_open_is_read_again() -> None:
    """Its key was rotated under it (the store's row opens, the cached one does not): the
    search reads the store again instead of giving the hit up."""
    cache = SearchRowCache(10, 1.0, _Clock())
    cache.put_many("t", [_row("a", key="old key")])
    store = _RotatingStore({"a": _row("a", key="new key")}, set(), rotated={"a"})
    got = _search(_service(store, [_hit("a")], cache), top_k=1)
    assert [h.stored.record.id for h in got] == ["a"]
    assert got[0].stored.content_sha256 == "new key"
    assert store.read == ["a"]
    # And the row read again replaced the one that did not open.
    assert cache.get_many("t", {"a": 5})["a"].content_sha256 == "new key"


def test_a_row_cached_for_another_version_is_not_used() -> None:
    cache = SearchRowCache(10, 1.0, _Clock())
    cache.put_many("t", [_row("a", position=4)])  # the version before
    store = _Store({"a": _row("a", position=5, reads=3)}, set())
    got = _search(_service(store, [_hit("a", position=5)], cache), top_k=1)
    assert store.read == ["a"]
    assert got[0].stored.position == 5


def test_a_read_count_is_at_most_the_lifetime_old() -> None:
    clock = _Clock()
    cache = SearchRowCache(10, 1.0, clock)
    store = _Store({"a": _row("a", reads=0)}, set())
    svc = _service(store, [_hit("a")], cache)

    def read_count() -> Any:
        (hit,) = _search(svc, top_k=1)
        assert hit.explanation is not None
        return hit.explanation["inputs"]["read_count"]

    assert read_count() == 0
    store.rows = {"a": _row("a", reads=4)}  # recalls applied; same version
    clock.now += 0.9
    assert read_count() == 0  # within the lifetime: the cached count
    assert store.read == ["a"]
    clock.now += 0.2
    assert read_count() == 4  # past it: read again
    assert store.read == ["a", "a"]
