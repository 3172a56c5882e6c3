from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.ports import RecordStore
from tests.contract.record_store_contract import RecordStoreContract
from tests.contract.sealed_view_contract import SealedViewContract


class TestSqliteRecordStore(RecordStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[RecordStore]:
        store = SqliteRecordStore(tmp_path / "records.db")
        yield store
        store.close()


class TestSealedSqliteRecordStore(SealedViewContract):
    @pytest.fixture
    def inner(self, tmp_path: Path) -> Iterator[RecordStore]:
        store = SqliteRecordStore(tmp_path / "records.db", shred=True)
        yield store
        store.close()
