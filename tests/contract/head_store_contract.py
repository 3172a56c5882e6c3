"""The HeadStore contract: the embedded SQLite store and the Cassandra store pass it.

``make_store`` returns a factory: every call opens another store on the same backing
data, as separate gateway processes would."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

import pytest

from ai_memory.core.heads import HeadStore, HeadUpdate, head_update
from tests.factories import T0, deleted, record, written

MakeStore = Callable[[], HeadStore]


def write(
    memory_id: str = "m1", version: int = 1, tenant: str = "default", **kw: str
) -> HeadUpdate:
    update = head_update(written(record(memory_id, **kw), version=version, tenant=tenant))
    assert update is not None
    return update


def delete(memory_id: str = "m1", version: int = 1, tenant: str = "default") -> HeadUpdate:
    update = head_update(deleted(memory_id, version=version, tenant=tenant))
    assert update is not None
    return update


class HeadStoreContract:
    @pytest.fixture
    def make_store(self) -> MakeStore:
        raise NotImplementedError

    def test_create_then_read(self, make_store: MakeStore) -> None:
        store = make_store()
        update = write()
        assert store.compare_and_set(update) == (True, update.event_id)
        head = store.get_many("default", ["m1", "missing"])
        assert list(head) == ["m1"]
        assert head["m1"] == update.head
        assert head["m1"].created_at == T0 and not head["m1"].deleted

    def test_second_create_fails_and_names_the_winner(self, make_store: MakeStore) -> None:
        store = make_store()
        first, second = write(), write(content="other")
        assert store.compare_and_set(first)[0]
        assert store.compare_and_set(second) == (False, first.event_id)
        assert store.get_many("default", ["m1"])["m1"].content_sha256 == first.head.content_sha256

    def test_retried_event_is_recognised_by_its_id(self, make_store: MakeStore) -> None:
        store = make_store()
        update = write()
        assert store.compare_and_set(update)[0]
        applied, stored_id = store.compare_and_set(update)  # the caller never heard back
        assert not applied and stored_id == update.event_id

    def test_versions_advance_one_at_a_time(self, make_store: MakeStore) -> None:
        store = make_store()
        assert store.compare_and_set(write(version=1))[0]
        v2 = write(version=2, content="v2")
        assert store.compare_and_set(v2) == (True, v2.event_id)
        stale = write(version=2, content="racing v2")  # decided on version 1 as well
        assert store.compare_and_set(stale) == (False, v2.event_id)
        skipped = write(version=4, content="v4")
        assert store.compare_and_set(skipped) == (False, v2.event_id)
        assert store.get_many("default", ["m1"])["m1"].version == 2

    def test_update_of_unknown_id_fails(self, make_store: MakeStore) -> None:
        store = make_store()
        assert store.compare_and_set(write(version=3)) == (False, None)
        assert store.compare_and_set(delete(version=2)) == (False, None)
        assert store.get_many("default", ["m1"]) == {}

    def test_delete_ends_the_memory(self, make_store: MakeStore) -> None:
        store = make_store()
        assert store.compare_and_set(write(version=1))[0]
        gone = delete(version=1)
        assert store.compare_and_set(gone) == (True, gone.event_id)
        head = store.get_many("default", ["m1"])["m1"]
        assert head.deleted and head.version == 1
        assert store.compare_and_set(write(version=2)) == (False, gone.event_id)
        assert store.compare_and_set(delete(version=1)) == (False, gone.event_id)

    def test_delete_of_a_never_seen_id_records_it(self, make_store: MakeStore) -> None:
        store = make_store()
        gone = delete("imported-tombstone", version=0)
        assert store.compare_and_set(gone) == (True, gone.event_id)
        assert store.get_many("default", ["imported-tombstone"])["imported-tombstone"].deleted
        assert not store.compare_and_set(write("imported-tombstone"))[0]

    def test_set_position_only_for_the_current_event(self, make_store: MakeStore) -> None:
        store = make_store()
        v1 = write(version=1)
        store.compare_and_set(v1)
        store.set_position("default", "m1", v1.event_id, 42)
        assert store.get_many("default", ["m1"])["m1"].position == 42
        v2 = write(version=2, content="v2")
        store.compare_and_set(v2)
        store.set_position("default", "m1", v1.event_id, 7)  # late: the head moved on
        assert store.get_many("default", ["m1"])["m1"].position == 0
        store.set_position("default", "m1", v2.event_id, 50)
        assert store.get_many("default", ["m1"])["m1"].position == 50

    def test_revert_restores_the_previous_head(self, make_store: MakeStore) -> None:
        store = make_store()
        v1 = write(version=1)
        store.compare_and_set(v1)
        store.set_position("default", "m1", v1.event_id, 10)
        previous = store.get_many("default", ["m1"])["m1"]
        v2 = write(version=2, content="v2")
        assert store.compare_and_set(v2)[0]
        store.revert(v2, previous)
        assert store.get_many("default", ["m1"])["m1"] == previous
        # The slot is free again: another writer deciding on version 1 can now win.
        assert store.compare_and_set(write(version=2, content="other v2"))[0]

    def test_revert_of_a_create_removes_the_head(self, make_store: MakeStore) -> None:
        store = make_store()
        v1 = write()
        store.compare_and_set(v1)
        store.revert(v1, None)
        assert store.get_many("default", ["m1"]) == {}
        assert store.compare_and_set(write())[0]

    def test_revert_never_undoes_someone_elses_head(self, make_store: MakeStore) -> None:
        store = make_store()
        v1 = write()
        store.compare_and_set(v1)
        loser = replace(write(content="lost the race"), event_id="never-applied")
        store.revert(loser, None)
        assert store.get_many("default", ["m1"])["m1"] == v1.head

    def test_tenants_are_isolated(self, make_store: MakeStore) -> None:
        store = make_store()
        acme = write(tenant="acme")
        assert store.compare_and_set(acme)[0]
        assert store.get_many("default", ["m1"]) == {}
        assert store.compare_and_set(write(tenant="default"))[0]
        assert store.get_many("acme", ["m1"])["m1"] == acme.head

    def test_concurrent_compare_and_set_has_exactly_one_winner(self, make_store: MakeStore) -> None:
        stores = [make_store() for _ in range(4)]
        stores[0].compare_and_set(write(version=1))
        contenders = [write(version=2, content=f"v2 by writer {i}") for i in range(12)]
        results: list[tuple[bool, str | None]] = [(False, None)] * len(contenders)
        barrier = threading.Barrier(len(contenders))

        def run(i: int) -> None:
            barrier.wait()
            results[i] = stores[i % len(stores)].compare_and_set(contenders[i])

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(contenders))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners = [c for c, (ok, _) in zip(contenders, results, strict=True) if ok]
        assert len(winners) == 1
        # Every loser learns who won, so none of them mistakes itself for a retry.
        assert {eid for ok, eid in results if not ok} == {winners[0].event_id}
        assert stores[0].get_many("default", ["m1"])["m1"] == winners[0].head
