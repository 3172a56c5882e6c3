"""The webhook-store contract on the in-memory and SQLite stores, and on the SQLite store
behind the decorator that seals secrets at rest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.memory import MemoryWebhookStore, WebhookBacking
from ai_memory.adapters.sqlite_webhook_store import SqliteWebhookStore
from ai_memory.adapters.webhook_secret_sealing import SealedSecretWebhookStore
from ai_memory.core.ports import WebhookStore
from tests.contract.webhook_store_contract import MakeStore, WebhookStoreContract


class TestMemoryWebhookStore(WebhookStoreContract):
    @pytest.fixture
    def make_store(self) -> MakeStore:
        backing = WebhookBacking()
        return lambda: MemoryWebhookStore(backing)


class TestSqliteWebhookStore(WebhookStoreContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[MakeStore]:
        opened: list[SqliteWebhookStore] = []

        def make() -> WebhookStore:
            store = SqliteWebhookStore(tmp_path / "webhooks.db")
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()


class TestSealedSecretSqliteWebhookStore(WebhookStoreContract):
    """The decorator that seals secrets at rest keeps every promise of the store."""

    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[MakeStore]:
        opened: list[WebhookStore] = []
        root = bytes(range(32))

        def make() -> WebhookStore:
            store = SealedSecretWebhookStore(SqliteWebhookStore(tmp_path / "webhooks.db"), root)
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()
