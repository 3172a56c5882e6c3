from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_head_store import SqliteHeadStore
from ai_memory.core.heads import HeadStore
from tests.contract.head_store_contract import HeadStoreContract, MakeStore


class TestSqliteHeadStore(HeadStoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[MakeStore]:
        opened: list[SqliteHeadStore] = []

        def make() -> HeadStore:
            store = SqliteHeadStore(tmp_path / "heads.db")
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()
