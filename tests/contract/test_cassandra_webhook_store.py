"""The webhook-store contract against a real Cassandra (one fresh keyspace per test)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, cast

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


class _ExpiresBeforeRenewal:
    """A session whose lease row expires just before each renewal runs: the moment
    between the owner's insert finding its own lease and its renewal."""

    def __init__(self, session: CassandraSession) -> None:
        self._session = session
        self.expired = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def execute(self, statement: Any, params: Any = None, **kwargs: Any) -> Any:
        if getattr(statement, "query_string", "").startswith("UPDATE webhook_leases"):
            lease = params[2]
            self._session.execute("DELETE FROM webhook_leases WHERE name = %s IF EXISTS", (lease,))
            self.expired += 1
        return self._session.execute(statement, params, **kwargs)


def test_an_owner_whose_lease_expires_while_renewing_takes_it_again(
    cassandra_contact: str,
) -> None:
    url = f"cassandra://{cassandra_contact}/webhooks_{uuid.uuid4().hex[:16]}"
    admin = CassandraSession.from_url(url)
    migrate(admin)
    session = CassandraSession.from_url(url)
    session.use_keyspace()
    try:
        racing = _ExpiresBeforeRenewal(session)
        store = CassandraWebhookStore(cast(CassandraSession, racing))
        other = CassandraWebhookStore(session)
        now = datetime.now(UTC)
        assert store.claim("lease-1", "gateway-a", 30.0, now)
        assert racing.expired == 0  # taken by the insert: nothing to renew
        assert store.claim("lease-1", "gateway-a", 30.0, now)  # expired mid-renewal
        assert racing.expired == 1
        assert not other.claim("lease-1", "gateway-b", 30.0, now)  # a holds it again
    finally:
        session.close()
        admin.execute(f"DROP KEYSPACE IF EXISTS {admin.keyspace}")
        admin.close()
