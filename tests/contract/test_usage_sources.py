"""The usage-source contract against every source of the embedded and the in-memory
deployments, and the stop-gap scan (over the in-memory store here; over Cassandra in
``test_cassandra_record_store.py``); then the composition root's source against the
fold over the real log its writes went to."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.memory import MemoryRecordStore
from ai_memory.adapters.memory.data_key_vault import memory_vault
from ai_memory.adapters.record_scan_usage import RecordScanUsage
from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.bootstrap import build
from ai_memory.bootstrap.usage import record_store_usage
from ai_memory.core.usage import UsageFold, tenants_in, usage_of
from ai_memory.serialization.sealer import Sealer
from ai_memory.settings import Settings
from tests.contract.sealed_view_contract import TAG_KEY
from tests.contract.usage_source_contract import Stack, UsageSourceContract
from tests.factories import FixedClock


class TestMemoryRecordStoreUsage(UsageSourceContract):
    @pytest.fixture
    def stack(self) -> Iterator[Stack]:
        store = MemoryRecordStore()
        yield Stack(store, store)


class TestSqliteRecordStoreUsage(UsageSourceContract):
    @pytest.fixture
    def stack(self, tmp_path: Path) -> Iterator[Stack]:
        store = SqliteRecordStore(tmp_path / "records.db")
        yield Stack(store, store)
        store.close()


class TestSealedSqliteRecordStoreUsage(UsageSourceContract):
    """Rows sealed at rest: the store sums the sizes their sealed values name (what the
    embedded deployment does with encryption on, ``bootstrap.usage``)."""

    @pytest.fixture
    def stack(self, tmp_path: Path) -> Iterator[Stack]:
        store = SqliteRecordStore(tmp_path / "records.db", shred=True)
        sealed = SealedRecordStore(store, Sealer(memory_vault(os.urandom(32))), TAG_KEY)
        yield Stack(sealed, record_store_usage(sealed, lambda: [0]))
        store.close()


class TestRecordScanUsage(UsageSourceContract):
    lists_tenants = False

    @pytest.fixture
    def stack(self) -> Iterator[Stack]:
        store = MemoryRecordStore()
        yield Stack(store, RecordScanUsage(store, lambda: [0, 3]))


@pytest.mark.parametrize("url", ["sqlite", "memory://"])
def test_the_containers_source_answers_as_the_fold_over_its_log(tmp_path: Path, url: str) -> None:
    """Writes, rewrites and forgets through the services, with encryption on (the
    forgotten memories' writes read back sealed): the container's usage source and the
    fold over the log it appended to agree for every tenant."""
    settings = Settings(data_dir=tmp_path / "data", index_url="memory://")
    if url != "sqlite":
        settings = Settings(
            data_dir=tmp_path / "data", index_url=url, event_log_url=url, record_store_url=url
        )
    c = build(settings, clock=FixedClock())
    c.start()
    try:
        memory = c.services.memory
        for tenant, n in (("acme", 6), ("globex", 3)):
            for i in range(n):
                body = {"type": "fact", "content": f"{tenant} 二 {i}" * (i + 1), "scope": "user:a"}
                memory.write(tenant, body | {"source_agent": "t"}, memory_id=f"m{i}", wait=True)
            memory.write(tenant, body | {"source_agent": "t", "content": "short"}, memory_id="m0")
            memory.delete(tenant, "m1", actor="t", wait=True)
        c.catch_up()
        table: dict[str, list[int]] = {}
        fold = UsageFold(table)
        for p in c.log.partitions():
            fold.apply(p, c.log.read(after=0, limit=10_000, partition=p))
        assert tenants_in(table) == ["acme", "globex"] == c.usage.tenants()
        for tenant in ("acme", "globex"):
            want, got = usage_of(table.items(), tenant), c.usage.usage(tenant)
            assert (got.memories, got.bytes) == (want.memories, want.bytes)
            assert got.memories == c.store.count(tenant)
            assert got.positions == {0: c.log.last_position(0)}
    finally:
        c.close()
