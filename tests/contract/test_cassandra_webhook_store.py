"""The webhook-store contract against a real Cassandra (one fresh keyspace per test)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from ai_memory.adapters.cassandra import CassandraSession, CassandraWebhookStore, migrate
from ai_memory.core.ports import WebhookStore
from tests.contract.webhook_store_contract import MakeStore, WebhookStoreContract


class TestCassandraWebhookStore(WebhookStoreContract):
    @pytest.fixture
    def make_store(self, cassandra_contact: str) -> Iterator[MakeStore]:
        url = f"cassandra://{cassandra_contact}/webhooks_{uuid.uuid4().hex[:16]}"
        admin = CassandraSession.from_url(url)
        migrate(admin)
        sessions: list[CassandraSession] = []

        def make() -> WebhookStore:
            # A separate driver session per store, as separate gateways would.
            session = CassandraSession.from_url(url)
            session.use_keyspace()
            sessions.append(session)
            return CassandraWebhookStore(session)

        yield make
        for session in sessions:
            session.close()
        admin.execute(f"DROP KEYSPACE IF EXISTS {admin.keyspace}")
        admin.close()
