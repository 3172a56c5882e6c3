"""The data-key vault contract against a real Cassandra (one fresh keyspace per test)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from ai_memory.adapters.cassandra import CassandraSession, migrate
from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault
from ai_memory.core.data_keys import DataKeyVault
from tests.contract.data_key_vault_contract import DataKeyVaultContract, MakeVault


class TestCassandraDataKeyVault(DataKeyVaultContract):
    @pytest.fixture
    def make_vault(self, cassandra_contact: str) -> Iterator[MakeVault]:
        url = f"cassandra://{cassandra_contact}/vault_{uuid.uuid4().hex[:16]}"
        admin = CassandraSession.from_url(url)
        migrate(admin)
        sessions: list[CassandraSession] = []

        def make(root: bytes) -> DataKeyVault:
            # A separate driver session per vault, as separate gateways would.
            session = CassandraSession.from_url(url)
            session.use_keyspace()
            sessions.append(session)
            return cassandra_vault(session, root)

        yield make
        for session in sessions:
            session.close()
        admin.execute(f"DROP KEYSPACE IF EXISTS {admin.keyspace}")
        admin.close()
