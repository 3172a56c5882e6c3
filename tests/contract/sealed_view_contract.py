"""The records view sealed at rest (``adapters.sealed_record_store``) over every record
store: the whole ``RecordStoreContract`` through the decorator, and attacks on the seal —
a row read after its key was destroyed, a row written after, a sealed value copied onto
another memory, tenant or version, a malformed one — plus what the rows hold at rest.

A subclass gives ``inner``: a fresh store of its adapter."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace

import pytest

from ai_memory.adapters.memory.data_key_vault import memory_vault
from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.core.data_keys import DataKeyVault, memory_key_id
from ai_memory.core.listing import ListQuery
from ai_memory.core.ports import RecordStore
from ai_memory.core.projection import PutRecord, PutTombstone, RemoveRecord
from ai_memory.core.record import StoredRecord, Tombstone
from ai_memory.core.sealing import derived_key
from ai_memory.core.view_sealing import PREFIX, parse_sealed
from ai_memory.serialization.sealer import Sealer
from tests.contract.record_store_contract import RecordStoreContract, stored, tombstone
from tests.factories import record

CANARY = "Canary-7f3a secret diagnosis"
TAG = "canary-tag-91c2"
META = "canary-meta-5d0e"
TAG_KEY = derived_key(b"\x01" * 32, "view-tags")


def canary(memory_id: str = "m1", *, tenant: str = "default", position: int = 1) -> StoredRecord:
    rec = record(memory_id, f"{CANARY} {memory_id}", tags=(TAG, "kept"), meta={"note": META})
    return StoredRecord(
        tenant=tenant,
        record=rec,
        version=1,
        state=stored().state,
        content_sha256=rec.fingerprint(),
        updated_at=stored().updated_at,
        position=position,
    )


class CountingVault:
    """A vault that counts the reads the view makes."""

    def __init__(self, inner: DataKeyVault) -> None:
        self.inner = inner
        self.gets = 0
        self.get_manys = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def get(self, tenant: str, key_id: str) -> bytes | None:
        self.gets += 1
        return self.inner.get(tenant, key_id)

    def get_many(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]:
        self.get_manys += 1
        return self.inner.get_many(tenant, key_ids)


def _holds(s: StoredRecord, *needles: str) -> list[str]:
    """The needles a row holds anywhere in its personal columns."""
    r = s.record
    text = r.content + json.dumps(list(r.tags)) + json.dumps(dict(r.meta)) + s.content_sha256
    return [n for n in needles if n in text]


class SealedViewContract(RecordStoreContract):
    @pytest.fixture
    def inner(self) -> Iterator[RecordStore]:
        raise NotImplementedError

    @pytest.fixture
    def vault(self) -> CountingVault:
        return CountingVault(memory_vault(os.urandom(32)))

    @pytest.fixture
    def sealer(self, vault: CountingVault) -> Sealer:
        return Sealer(vault)  # type: ignore[arg-type]  # a counting proxy of a vault

    @pytest.fixture
    def store(self, inner: RecordStore, sealer: Sealer) -> Iterator[RecordStore]:
        yield SealedRecordStore(inner, sealer, TAG_KEY)

    def test_rows_at_rest_hold_no_personal_field(
        self, store: RecordStore, inner: RecordStore
    ) -> None:
        s = canary()
        store.apply([PutRecord(s)], checkpoint=1)
        raw = inner.get("default", "m1")
        assert isinstance(raw, StoredRecord) and raw.record.content.startswith(PREFIX)
        plain_sha = hashlib.sha256(s.record.content.encode()).hexdigest()
        assert _holds(raw, CANARY, TAG, "kept", META, plain_sha) == []
        assert store.get("default", "m1") == s  # and it reads back whole

    def test_a_row_whose_key_was_destroyed_reads_as_absent(
        self, store: RecordStore, sealer: Sealer
    ) -> None:
        store.apply([PutRecord(canary("m1")), PutRecord(canary("m2"))], checkpoint=2)
        sealer.forget("default", memory_key_id("m1"))
        # The row is still there (the tombstone has not reached the view): it says nothing.
        assert store.get("default", "m1") is None
        assert list(store.get_many("default", ["m1", "m2"])) == ["m2"]
        # Read sealed (a search's candidates), it is ranked, never opened: unseal drops it.
        rows = store.get_many("default", ["m1", "m2"], sealed=True)
        assert _holds(rows["m1"], CANARY, TAG, META) == []
        assert [s.record.id for s in store.unseal("default", list(rows.values()))] == ["m2"]
        assert [s.record.id for s in store.scan_records("default")] == ["m2"]
        listed = store.list_records(ListQuery(tenant="default", tag=TAG))
        assert [s.record.id for s in listed.items] == ["m2"]
        # Another process, with nothing cached, reads the same.
        other = SealedRecordStore(_inner_of(store), Sealer(sealer.vault), TAG_KEY)
        assert other.get("default", "m1") is None
        got = other.get("default", "m2")
        assert isinstance(got, StoredRecord) and got.record.content == f"{CANARY} m2"

    def test_a_row_written_after_its_key_was_destroyed_never_opens(
        self, store: RecordStore, inner: RecordStore, sealer: Sealer
    ) -> None:
        sealer.forget("default", memory_key_id("m1"))
        store.apply([PutRecord(canary("m1"))], checkpoint=1)  # the projector lagging a forget
        raw = inner.get("default", "m1")
        assert isinstance(raw, StoredRecord) and _holds(raw, CANARY, TAG, "kept", META) == []
        assert store.get("default", "m1") is None

    def test_a_sealed_value_moved_elsewhere_does_not_open(
        self, store: RecordStore, inner: RecordStore
    ) -> None:
        store.apply([PutRecord(canary("a")), PutRecord(canary("b", position=2))], checkpoint=2)
        store.apply([PutRecord(canary("a", tenant="globex", position=3))], checkpoint=3)
        raw = inner.get("default", "a")
        assert isinstance(raw, StoredRecord)
        # a's row copied onto memory b, onto globex's memory a, onto a later version of a
        moved_b = replace(raw, record=replace(raw.record, id="b"), position=10)
        moved_t = replace(raw, tenant="globex", position=11)
        bumped = replace(raw, version=2, position=12)
        inner.apply([PutRecord(moved_b), PutRecord(moved_t), PutRecord(bumped)], checkpoint=12)
        assert store.get("default", "b") is None
        assert store.get("globex", "a") is None
        assert store.get("default", "a") is None
        # the size it names (usage reads it without opening) is bound too
        store.apply([PutRecord(canary("c", position=13))], checkpoint=13)
        c = inner.get("default", "c")
        assert isinstance(c, StoredRecord)
        value = parse_sealed(c.record.content)
        resized = replace(value, content_bytes=value.content_bytes - 1).encode()
        inner.apply(
            [PutRecord(replace(c, record=replace(c.record, content=resized), position=14))],
            checkpoint=14,
        )
        assert store.get("default", "c") is None

    def test_a_malformed_sealed_value_reads_as_absent(
        self, store: RecordStore, inner: RecordStore
    ) -> None:
        malformed = [
            PREFIX,
            PREFIX + "12\x00memory/m1\x00%%%",
            PREFIX + "x\x00k\x00AAAA",
            PREFIX + "4\x00k\x00AAAA",
            PREFIX + "4\x00memory/m1",
        ]
        for i, content in enumerate(malformed):
            bad = stored(content=content, position=i + 1)
            inner.apply([PutRecord(bad)], checkpoint=i + 1)
            assert store.get("default", "m1") is None

    def test_a_row_written_in_clear_before_sealing_still_reads(
        self, store: RecordStore, inner: RecordStore
    ) -> None:
        s = canary()
        inner.apply([PutRecord(s)], checkpoint=1)
        assert store.get("default", "m1") == s
        assert store.list_records(ListQuery(tenant="default")).items == [s]

    def test_listing_by_tag_filters_in_the_store(
        self, store: RecordStore, inner: RecordStore
    ) -> None:
        tagged = canary("m1")
        other = replace(
            canary("m2", position=2), record=replace(canary("m2").record, tags=("else",))
        )
        theirs = canary("m3", tenant="globex", position=3)
        store.apply([PutRecord(tagged), PutRecord(other), PutRecord(theirs)], checkpoint=3)
        page = store.list_records(ListQuery(tenant="default", tag=TAG))
        assert page.items == [tagged]
        assert store.list_records(ListQuery(tenant="default", tag="missing")).items == []
        # the store itself filters on the digest: asked for the clear tag, it finds nothing
        assert inner.list_records(ListQuery(tenant="default", tag=TAG)).items == []

    def test_reads_ask_the_vault_once_per_batch(
        self, store: RecordStore, vault: CountingVault, sealer: Sealer
    ) -> None:
        ids = [f"m{i:02d}" for i in range(40)]
        store.apply(
            [PutRecord(canary(m, position=i + 1)) for i, m in enumerate(ids)], checkpoint=40
        )
        cold = SealedRecordStore(_inner_of(store), Sealer(sealer.vault), TAG_KEY)
        vault.gets = vault.get_manys = 0
        assert len(cold.get_many("default", ids)) == 40
        assert (vault.gets, vault.get_manys) == (0, 1)
        cold = SealedRecordStore(_inner_of(store), Sealer(sealer.vault), TAG_KEY)
        vault.get_manys = 0
        assert len(cold.list_records(ListQuery(tenant="default", limit=40)).items) == 40
        assert (vault.gets, vault.get_manys) == (0, 1)

    def test_forget_then_tombstone_leaves_a_tombstone(
        self, store: RecordStore, sealer: Sealer
    ) -> None:
        store.apply([PutRecord(canary("m1"))], checkpoint=1)
        sealer.forget("default", memory_key_id("m1"))
        store.apply(
            [RemoveRecord("default", "m1", 2), PutTombstone(tombstone("m1", position=2))],
            checkpoint=2,
        )
        assert isinstance(store.get("default", "m1"), Tombstone)


def _inner_of(store: RecordStore) -> RecordStore:
    assert isinstance(store, SealedRecordStore)
    return store.inner
