"""The listing part of the RecordStore contract (``list_records``): keyset pages in id
order, filters applied by the store, tenants apart. Mixed into ``RecordStoreContract``."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from ai_memory.core.listing import ListQuery
from ai_memory.core.ports import RecordStore
from ai_memory.core.projection import PutRecord, PutTombstone, RemoveRecord, SetState
from ai_memory.core.record import MemoryState, MemoryType, StoredRecord, Tombstone
from tests.factories import T0, record

_positions = iter(range(1, 10**9))


def item(
    memory_id: str,
    *,
    tenant: str = "default",
    scope: str = "user:alice",
    type_: MemoryType = MemoryType.FACT,
    tags: tuple[str, ...] = (),
    ttl: int | None = None,
) -> StoredRecord:
    rec = record(memory_id, f"memory {memory_id}", scope=scope, type_=type_, tags=tags, ttl=ttl)
    return StoredRecord(
        tenant=tenant,
        record=rec,
        version=1,
        state=MemoryState.ACTIVE,
        content_sha256=rec.fingerprint(),
        updated_at=T0,
        position=next(_positions),
    )


def put(store: RecordStore, *items: StoredRecord) -> None:
    store.apply([PutRecord(s) for s in items], checkpoint=max(s.position for s in items))


def walk(store: RecordStore, query: ListQuery, between: Any = None) -> list[list[str]]:
    """Every page's ids, following the cursor; ``between(n)`` runs after page n."""
    pages: list[list[str]] = []
    while True:
        page = store.list_records(query)
        assert len(page.items) <= query.limit
        pages.append([s.record.id for s in page.items])
        if page.next_after is None:
            return pages
        assert len(pages) < 1000, "a listing must end"
        if between is not None:
            between(len(pages))
        query = replace(query, after=page.next_after)


def flat(pages: list[list[str]]) -> list[str]:
    return [mid for page in pages for mid in page]


class RecordListingContract:
    def test_pages_visit_every_memory_once_in_id_order(self, store: RecordStore) -> None:
        ids = [f"m{i:03d}" for i in range(23)]
        put(store, *(item(m, scope="user:alice" if i % 2 else "team:x") for i, m in enumerate(ids)))
        for limit in (1, 5, 23, 1000):
            assert flat(walk(store, ListQuery("default", limit=limit))) == ids

    def test_records_hold_the_stored_memory(self, store: RecordStore) -> None:
        s = item("m1", tags=("a", "b"))
        put(store, s)
        page = store.list_records(ListQuery("default"))
        assert page.items == [store.get("default", "m1")]
        assert page.next_after is None

    def test_concurrent_writes_between_pages(self, store: RecordStore) -> None:
        """Written, updated or forgotten between pages: each memory that matched all
        along is visited exactly once, and no memory twice."""
        base = [f"m{i:03d}" for i in range(0, 40, 2)]
        put(store, *(item(m) for m in base))
        added: list[str] = []

        def churn(n: int) -> None:
            new = [f"m{n * 3 + k:03d}x" for k in range(3)] + [f"a{n:03d}", f"z{n:03d}"]
            added.extend(new)
            put(store, *(item(m) for m in new))
            put(store, *(replace(item(m), version=2) for m in base[::3]))  # newer versions

        pages = walk(store, ListQuery("default", limit=4), churn)
        seen = flat(pages)
        assert len(seen) == len(set(seen)), "a memory was visited twice"
        assert set(base) <= set(seen)
        assert seen == sorted(seen)
        assert set(seen) <= set(base) | set(added)

    def test_forgotten_between_pages_is_not_listed(self, store: RecordStore) -> None:
        put(store, *(item(f"m{i}") for i in range(6)))
        first = store.list_records(ListQuery("default", limit=2))
        assert [s.record.id for s in first.items] == ["m0", "m1"]
        assert first.next_after == "m1"
        grave = Tombstone("default", "m4", "user:alice", T0, "user_request", "api", 10**8)
        store.apply([RemoveRecord("default", "m4", 10**8), PutTombstone(grave)], checkpoint=1)
        rest = walk(store, ListQuery("default", limit=2, after=first.next_after))
        assert flat(rest) == ["m2", "m3", "m5"]

    def test_scopes_are_filtered(self, store: RecordStore) -> None:
        put(
            store,
            item("a", scope="user:alice"),
            item("b", scope="user:bob"),
            item("c", scope="public"),
            item("d", scope="team:x"),
        )
        only = ListQuery("default", scopes=["user:alice", "public"], limit=1)
        assert flat(walk(store, only)) == ["a", "c"]
        assert flat(walk(store, ListQuery("default", scopes=["user:nobody"]))) == []
        assert flat(walk(store, ListQuery("default", scopes=[]))) == []

    def test_type_state_tag_and_expiry_filters(self, store: RecordStore) -> None:
        put(
            store,
            item("a", type_=MemoryType.FACT, tags=("x", "y")),
            item("b", type_=MemoryType.PREFERENCE, tags=("y",)),
            item("c", type_=MemoryType.SKILL),
            item("d", ttl=60),
        )
        store.apply([SetState("default", "c", MemoryState.HISTORICAL, T0, 10**8)], checkpoint=10**8)

        def ids(**kw: Any) -> list[str]:
            return flat(walk(store, ListQuery("default", limit=1, **kw)))

        assert ids() == ["a", "b", "d"]  # active by default
        assert ids(states=[MemoryState.HISTORICAL]) == ["c"]
        assert ids(states=list(MemoryState)) == ["a", "b", "c", "d"]
        assert ids(types=[MemoryType.PREFERENCE, MemoryType.SKILL]) == ["b"]
        assert ids(tag="y") == ["a", "b"]
        assert ids(tag="x", types=[MemoryType.PREFERENCE]) == []
        assert ids(now=T0 + timedelta(seconds=59)) == ["a", "b", "d"]
        assert ids(now=T0 + timedelta(seconds=60)) == ["a", "b"]

    def test_tenants_are_apart(self, store: RecordStore) -> None:
        put(store, item("m1", tenant="t1"), item("m2", tenant="t2"), item("m3", tenant="t1"))
        assert flat(walk(store, ListQuery("t1", limit=1))) == ["m1", "m3"]
        assert flat(walk(store, ListQuery("t2", scopes=["user:alice"]))) == ["m2"]
        assert flat(walk(store, ListQuery("t3"))) == []

    def test_a_cursor_past_the_end_or_between_ids(self, store: RecordStore) -> None:
        put(store, item("b"), item("d"))
        assert flat(walk(store, ListQuery("default", after="c"))) == ["d"]
        assert flat(walk(store, ListQuery("default", after="d"))) == []
        assert flat(walk(store, ListQuery("default", after="zzz"))) == []
