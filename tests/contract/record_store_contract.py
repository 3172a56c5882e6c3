"""The RecordStore contract: the embedded SQLite store and the Cassandra store pass it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest

from ai_memory.core.ports import RecordStore
from ai_memory.core.projection import AddReads, PutRecord, PutTombstone, RemoveRecord, SetState
from ai_memory.core.record import MemoryState, StoredRecord, Tombstone
from tests.contract.record_listing_contract import RecordListingContract
from tests.factories import T0, record


def stored(
    memory_id: str = "m1",
    content: str = "Alice prefers tea.",
    *,
    position: int = 1,
    version: int = 1,
    tenant: str = "default",
    scope: str = "user:alice",
) -> StoredRecord:
    rec = record(memory_id, content, scope=scope, tags=("drinks",), meta={"k": [1, "二"]})
    return StoredRecord(
        tenant=tenant,
        record=rec,
        version=version,
        state=MemoryState.ACTIVE,
        content_sha256=rec.fingerprint(),
        updated_at=T0,
        position=position,
    )


def tombstone(
    memory_id: str = "m1", *, position: int, tenant: str = "default", scope: str = "user:alice"
) -> Tombstone:
    return Tombstone(
        tenant, memory_id, scope, T0 + timedelta(hours=1), "user_request", "api", position
    )


class RecordStoreContract(RecordListingContract):
    @pytest.fixture
    def store(self) -> Iterator[RecordStore]:
        raise NotImplementedError

    def test_put_and_get_round_trip(self, store: RecordStore) -> None:
        s = stored()
        store.apply([PutRecord(s)], checkpoint=1)
        assert store.get("default", "m1") == s
        assert store.get("default", "missing") is None
        assert store.checkpoint() == 1

    def test_reapplying_is_idempotent(self, store: RecordStore) -> None:
        batch = [PutRecord(stored(position=3)), PutRecord(stored("m2", position=4))]
        store.apply(batch, checkpoint=4)
        snapshot = list(store.scan_records("default"))
        store.apply(batch, checkpoint=4)
        assert list(store.scan_records("default")) == snapshot
        assert store.count("default") == 2

    def test_stale_write_never_overwrites_newer(self, store: RecordStore) -> None:
        store.apply([PutRecord(stored(content="new", position=5, version=2))], checkpoint=5)
        store.apply([PutRecord(stored(content="old", position=2, version=1))], checkpoint=5)
        got = store.get("default", "m1")
        assert isinstance(got, StoredRecord) and got.record.content == "new"

    def test_delete_leaves_a_tombstone_and_old_write_cannot_resurrect(
        self, store: RecordStore
    ) -> None:
        store.apply([PutRecord(stored(position=1))], checkpoint=1)
        store.apply(
            [RemoveRecord("default", "m1", 2), PutTombstone(tombstone(position=2))], checkpoint=2
        )
        assert isinstance(store.get("default", "m1"), Tombstone)
        # Replaying the original write (duplicate delivery) must not bring it back.
        store.apply([PutRecord(stored(position=1))], checkpoint=2)
        assert isinstance(store.get("default", "m1"), Tombstone)
        assert store.tombstoned("default", ["m1", "m2"]) == {"m1"}
        assert store.count("default") == 0

    def test_state_changes_are_order_safe(self, store: RecordStore) -> None:
        store.apply([PutRecord(stored(position=1))], checkpoint=1)
        store.apply([SetState("default", "m1", MemoryState.HISTORICAL, T0, 3)], checkpoint=3)
        store.apply([SetState("default", "m1", MemoryState.ARCHIVED, T0, 2)], checkpoint=3)
        got = store.get("default", "m1")
        assert isinstance(got, StoredRecord) and got.state == MemoryState.HISTORICAL

    def test_read_counts_count_each_recall_event_once(self, store: RecordStore) -> None:
        store.apply([PutRecord(stored(position=1))], checkpoint=1)
        recall = AddReads("default", ("m1", "m1"), T0, 2)
        store.apply([recall], checkpoint=2)
        store.apply([recall], checkpoint=2)  # re-delivered
        store.apply([AddReads("default", ("m1",), T0, 3)], checkpoint=3)
        got = store.get("default", "m1")
        assert isinstance(got, StoredRecord) and got.read_count == 2

    def test_tenants_are_isolated(self, store: RecordStore) -> None:
        store.apply([PutRecord(stored(tenant="acme", position=1))], checkpoint=1)
        assert store.get("default", "m1") is None
        assert store.get_many("default", ["m1"]) == {}
        assert list(store.scan_records("default")) == []
        assert store.count("acme") == 1

    def test_scan_filters_by_scope_and_pages(self, store: RecordStore) -> None:
        muts = [
            PutRecord(stored(f"a{i:03}", scope="user:alice", position=i + 1)) for i in range(25)
        ]
        muts += [
            PutRecord(stored(f"b{i:03}", scope="team:data", position=100 + i)) for i in range(5)
        ]
        store.apply(muts, checkpoint=200)
        alice = list(store.scan_records("default", scopes=["user:alice"], batch=7))
        assert [s.record.id for s in alice] == [f"a{i:03}" for i in range(25)]
        assert len(list(store.scan_records("default", batch=4))) == 30
        store.apply(
            [PutTombstone(tombstone("gone", position=300, scope="team:data"))], checkpoint=300
        )
        assert [t.memory_id for t in store.scan_tombstones("default", scopes=["team:data"])] == [
            "gone"
        ]
        assert list(store.scan_tombstones("default", scopes=["user:alice"])) == []

    def test_get_many_returns_only_live_records(self, store: RecordStore) -> None:
        store.apply(
            [
                PutRecord(stored("m1", position=1)),
                PutRecord(stored("m2", position=2)),
                RemoveRecord("default", "m2", 3),
                PutTombstone(tombstone("m2", position=3)),
            ],
            checkpoint=3,
        )
        assert set(store.get_many("default", ["m1", "m2", "m3"])) == {"m1"}

    def test_a_sealed_read_finds_what_get_many_finds_and_unseal_opens_it(
        self, store: RecordStore
    ) -> None:
        expiring = replace(stored("m4", position=4), record=replace(record("m4"), ttl=60))
        store.apply(
            [
                PutRecord(stored("m1", position=1)),
                PutRecord(stored("m2", position=2)),
                PutRecord(stored("m3", position=3, tenant="acme")),
                PutRecord(expiring),
                RemoveRecord("default", "m2", 5),
                PutTombstone(tombstone("m2", position=5)),
                # State and read cells of ids that hold no record: never a record.
                SetState("default", "ghost", MemoryState.ARCHIVED, T0, 6),
                AddReads("default", ("m1", "m2", "ghost"), T0, 7),
                SetState("default", "m1", MemoryState.HISTORICAL, T0, 8),
            ],
            checkpoint=8,
        )
        ids = ["m1", "m2", "m3", "m4", "ghost", "missing", "m1"]
        whole = store.get_many("default", ids)
        rows = store.get_many("default", ids, sealed=True)
        assert set(rows) == set(whole) == {"m1", "m4"}
        # What a search ranks and filters by is never sealed.
        for mid, row in rows.items():
            s = whole[mid]
            assert (row.state, row.version, row.read_count, row.position) == (
                s.state,
                s.version,
                s.read_count,
                s.position,
            )
            assert (row.record.type, row.record.created_at, row.record.ttl) == (
                s.record.type,
                s.record.created_at,
                s.record.ttl,
            )
            assert row.record.scope == s.record.scope
        assert rows["m1"].state == MemoryState.HISTORICAL and rows["m1"].read_count == 1
        assert store.unseal("default", [rows["m4"], rows["m1"]]) == [whole["m4"], whole["m1"]]
        assert store.unseal("default", []) == []
        assert store.get_many("default", [], sealed=True) == {}

    def test_checkpoint_never_moves_backwards_and_reset_clears(self, store: RecordStore) -> None:
        store.apply([PutRecord(stored(position=9))], checkpoint=9)
        store.apply([], checkpoint=4)
        assert store.checkpoint() == 9
        store.reset()
        assert store.checkpoint() == 0
        assert store.get("default", "m1") is None

    def test_newer_version_replaces_and_keeps_read_count(self, store: RecordStore) -> None:
        store.apply(
            [PutRecord(stored(position=1)), AddReads("default", ("m1",), T0, 2)], checkpoint=2
        )
        newer = replace(stored(content="Alice prefers green tea.", position=3, version=2))
        store.apply([PutRecord(newer)], checkpoint=3)
        got = store.get("default", "m1")
        assert isinstance(got, StoredRecord)
        assert got.version == 2 and got.record.content == "Alice prefers green tea."
        assert got.read_count == 1

    def test_checkpoints_are_kept_per_partition(self, store: RecordStore) -> None:
        store.apply([PutRecord(stored(position=9))], checkpoint=9, partition=0)
        store.apply([PutRecord(stored("m2", position=4097))], checkpoint=4097, partition=1)
        store.apply([], checkpoint=1025, partition=1)  # backwards: ignored
        assert store.checkpoint(0) == 9
        assert store.checkpoint(1) == 4097
        assert store.checkpoint(2) == 0
        store.reset()
        assert (store.checkpoint(0), store.checkpoint(1)) == (0, 0)

    def test_lineage_is_kept_in_order_idempotently_and_outlives_deletion(
        self, store: RecordStore
    ) -> None:
        from ai_memory.core.projection import LineageEntry, PutLineage

        def entry(pos: int, kind: str, **detail: object) -> PutLineage:
            return PutLineage(LineageEntry("default", "m1", pos, T0, kind, dict(detail)))

        batch = [
            PutRecord(stored(position=1)),
            entry(1, "written", version=1, cause="api"),
            entry(4, "state_changed", to="historical", decision={"superseded_by": "m2"}),
        ]
        store.apply(batch, checkpoint=4)
        store.apply(batch, checkpoint=4)  # re-delivered
        store.apply(
            [
                RemoveRecord("default", "m1", 7),
                PutTombstone(tombstone(position=7)),
                entry(7, "deleted", reason="user_request"),
            ],
            checkpoint=7,
        )
        got = store.lineage("default", "m1")
        assert [(e.position, e.kind) for e in got] == [
            (1, "written"),
            (4, "state_changed"),
            (7, "deleted"),
        ]
        assert got[1].detail == {"to": "historical", "decision": {"superseded_by": "m2"}}
        assert store.lineage("acme", "m1") == []
