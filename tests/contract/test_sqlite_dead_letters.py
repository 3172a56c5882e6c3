from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_dead_letters import SqliteDeadLetters
from ai_memory.core.ports import DeadLetters
from tests.contract.dead_letters_contract import DeadLettersContract, MakeStore


class TestSqliteDeadLetters(DeadLettersContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[MakeStore]:
        opened: list[SqliteDeadLetters] = []

        def make() -> DeadLetters:
            store = SqliteDeadLetters(tmp_path / "dead_letters.db")
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()
