from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_key_store import SqliteKeyStore
from ai_memory.core.ports import KeyStore
from tests.contract.key_store_contract import KeyStoreContract, MakeStore


class TestSqliteKeyStore(KeyStoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[MakeStore]:
        opened: list[SqliteKeyStore] = []

        def make() -> KeyStore:
            store = SqliteKeyStore(tmp_path / "keys.db")
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()
