"""The data-key vault contract against a real Cassandra (one fresh keyspace per test)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from ai_memory.adapters.cassandra import CassandraSession, migrate
from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault
from ai_memory.adapters.memory.event_log import MemoryEventLog
from ai_memory.core.data_keys import DataKeyVault, memory_key_id
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.vault_reconcile import reconcile_vault
from tests.contract.data_key_vault_contract import ROOT, DataKeyVaultContract, MakeVault
from tests.factories import deleted, written


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


def test_keys_stored_before_the_listing_existed_are_listed_once(cassandra_contact: str) -> None:
    url = f"cassandra://{cassandra_contact}/vault_{uuid.uuid4().hex[:16]}"
    session = CassandraSession.from_url(url)
    migrate(session)
    try:
        old = cassandra_vault(session, ROOT)
        key = old.create("acme", "memory/old")
        # As if stored by a version before migration 0006: not listed, no scan recorded.
        session.execute("TRUNCATE data_key_listing")
        session.execute("TRUNCATE vault_state")
        old.add_kek_version("acme")
        fresh = cassandra_vault(session, ROOT)  # a process that has not listed yet
        assert fresh.keys_below("acme", 2).key_ids == ("memory/old",)
        assert session.execute("SELECT * FROM vault_state").one() is not None
        assert fresh.rewrap("acme", "memory/old")
        fresh.destroy_kek("acme", 1)
        assert cassandra_vault(session, ROOT).get("acme", "memory/old") == key
    finally:
        session.execute(f"DROP KEYSPACE IF EXISTS {session.keyspace}")
        session.close()


def test_a_destroy_nulls_rewrapped_bytes_that_won_by_timestamp(cassandra_contact: str) -> None:
    """A re-wrap (a Paxos round) racing a destroy (a plain write) may carry the later
    timestamp and so outlive the destroy's null: the destroy reads the row back at the
    serial level and nulls the cell above the re-wrap's write time."""
    url = f"cassandra://{cassandra_contact}/vault_{uuid.uuid4().hex[:16]}"
    session = CassandraSession.from_url(url)
    migrate(session)
    try:
        vault = cassandra_vault(session, ROOT)
        vault.create("acme", "memory/m1")
        ahead = (time.time_ns() // 1000) + 60_000_000  # a coordinator a minute ahead
        session.execute(
            "UPDATE data_keys USING TIMESTAMP %s SET wrapped = 0x0102 "
            "WHERE tenant = 'acme' AND key_id = 'memory/m1'",
            (ahead,),
        )
        vault.destroy("acme", "memory/m1")
        row = session.execute(
            "SELECT wrapped, destroyed_at_us FROM data_keys "
            "WHERE tenant = 'acme' AND key_id = 'memory/m1'"
        ).one()
        assert row.wrapped is None and row.destroyed_at_us is not None
        assert vault.destroyed("acme", "memory/m1")
    finally:
        session.execute(f"DROP KEYSPACE IF EXISTS {session.keyspace}")
        session.close()


def test_reconcile_sweeps_a_key_a_fenced_creator_stored_after_the_forget(
    cassandra_contact: str,
) -> None:
    """A zombie partition owner issues a key for a memory after the forget's destroy read
    the memory's keys: the key never opens (the partition is marked), and ``vault
    reconcile`` nulls its wrapped bytes."""
    url = f"cassandra://{cassandra_contact}/vault_{uuid.uuid4().hex[:16]}"
    session = CassandraSession.from_url(url)
    migrate(session)
    try:
        vault = cassandra_vault(session, ROOT)
        subject = memory_key_id("m1")
        vault.issue_many("default", [subject], new=[subject])
        vault.destroy("default", subject)
        # The zombie's key, issued (a blind write) after the destroy.
        late_id, _ = vault.issue_many("default", [subject], new=[subject])[subject]
        suffix = late_id.rpartition("/~")[2]
        late = "SELECT wrapped FROM data_keys_by_subject WHERE tenant = 'default'"
        late += " AND subject = %s AND suffix = %s"
        assert session.execute(late, (subject, suffix)).one().wrapped is not None
        assert cassandra_vault(session, ROOT).get("default", late_id) is None
        assert cassandra_vault(session, ROOT).destroyed("default", late_id)

        log = MemoryEventLog(AvroEventSerializer())
        log.append([written(), deleted("m1")])
        assert reconcile_vault(log, vault).destroyed == []  # it was destroyed before

        assert session.execute(late, (subject, suffix)).one().wrapped is None
    finally:
        session.execute(f"DROP KEYSPACE IF EXISTS {session.keyspace}")
        session.close()
