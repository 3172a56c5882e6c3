"""Versioned Cassandra migrations: applied once, in order, safe to run concurrently."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from ai_memory.adapters.cassandra import CassandraSession, migrate
from ai_memory.adapters.cassandra.migrations import (
    TABLE_OPTIONS,
    Migration,
    applied,
    available,
    with_table_options,
)
from ai_memory.core.errors import PermanentError, Unavailable


@pytest.fixture
def url(cassandra_contact: str) -> Iterator[str]:
    url = f"cassandra://{cassandra_contact}/mig_{uuid.uuid4().hex[:16]}"
    yield url
    admin = CassandraSession.from_url(url)
    admin.execute(f"DROP KEYSPACE IF EXISTS {admin.keyspace}")
    admin.close()


def test_shipped_migrations_are_numbered_from_one() -> None:
    versions = [m.version for m in available()]
    assert versions == list(range(1, len(versions) + 1))
    assert all(m.statements() for m in available())


def test_migrate_applies_once_and_records_versions(url: str) -> None:
    session = CassandraSession.from_url(url)
    try:
        versions = [m.version for m in available()]
        assert migrate(session) == versions
        assert migrate(session) == []  # a no-op the second time
        assert sorted(applied(session)) == versions
        tables = {
            r.table_name
            for r in session.execute(
                "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s",
                (session.keyspace,),
            )
        }
        assert {"records", "records_by_scope", "tombstones", "api_keys"} <= tables
        assert "heads" not in tables  # 0004: versions are decided by the partition writers
    finally:
        session.close()


class Flaky:
    """``session.execute`` failing with ``Unavailable`` at the given call numbers (a ring
    still forming at start: "Cannot achieve consistency level", or a node restarting)."""

    def __init__(self, session: CassandraSession, failing: set[int]) -> None:
        self.calls, self._failing, self._execute = 0, failing, session.execute

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls in self._failing:
            raise Unavailable("cassandra unreachable: Cannot achieve consistency level QUORUM")
        return self._execute(*args, **kwargs)


def test_a_store_not_answering_yet_is_waited_for_not_fatal(url: str) -> None:
    """The first statements fail (every process starting with the cluster), then one in
    the middle of a migration and the lease's release after it: each is asked again, the
    lease left behind is still this call's own (no 120 s wait for it to expire), and
    every migration is applied once."""
    session = CassandraSession.from_url(url)
    try:
        flaky = Flaky(session, {1, 2, 3, 12, 13})
        session.execute = flaky  # type: ignore[method-assign]
        versions = [m.version for m in available()]
        assert migrate(session, wait_seconds=60) == versions
        assert sorted(applied(session)) == versions
        assert flaky.calls > 12
        lease = session.execute("SELECT owner FROM schema_migrations_lock").all()
        assert lease == []  # released at the end, not left to expire
    finally:
        session.close()


def test_a_store_that_never_answers_fails_after_the_wait(url: str) -> None:
    session = CassandraSession.from_url(url)
    try:
        session.execute = Flaky(session, set(range(1, 10_000)))  # type: ignore[method-assign]
        with pytest.raises(Unavailable):
            migrate(session, wait_seconds=2)
    finally:
        session.close()


def test_a_later_migration_is_applied_in_order(url: str) -> None:
    session = CassandraSession.from_url(url)
    try:
        migrate(session)
        extra = Migration(99, "extra", "CREATE TABLE IF NOT EXISTS extra (k int PRIMARY KEY);")
        assert migrate(session, [*available(), extra]) == [99]
        assert 99 in applied(session)
    finally:
        session.close()


def test_an_edited_migration_is_refused(url: str) -> None:
    session = CassandraSession.from_url(url)
    try:
        migrate(session)
        first = available()[0]
        edited = Migration(first.version, first.name, first.text + "\n-- edited\n")
        with pytest.raises(PermanentError) as raised:
            migrate(session, [edited])
        assert raised.value.code == "schema_checksum_mismatch"
    finally:
        session.close()


def test_concurrent_runners_apply_each_migration_once(url: str) -> None:
    sessions = [CassandraSession.from_url(url) for _ in range(4)]
    results: list[list[int] | BaseException] = [[] for _ in sessions]
    barrier = threading.Barrier(len(sessions))

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = migrate(sessions[i])
        except BaseException as e:  # reported by the assertion below
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not [r for r in results if isinstance(r, BaseException)], results
        applied_by_all = sorted(v for r in results if isinstance(r, list) for v in r)
        assert applied_by_all == [m.version for m in available()]
        assert sorted(applied(sessions[0])) == [m.version for m in available()]
    finally:
        for s in sessions:
            s.close()


def _retry_options(session: CassandraSession) -> dict[str, str]:
    rows = session.execute(
        "SELECT table_name, speculative_retry FROM system_schema.tables WHERE keyspace_name = %s",
        (session.keyspace,),
    )
    return {r.table_name: r.speculative_retry for r in rows}


def test_every_table_reads_past_a_frozen_replica_within_50_ms(url: str) -> None:
    """Every table, a later migration's too, asks another replica after at most 50 ms
    (0009: with the table default a frozen node failed 40 % of reads)."""
    session = CassandraSession.from_url(url)
    try:
        extra = Migration(99, "extra", "CREATE TABLE IF NOT EXISTS extra (k int PRIMARY KEY);")
        migrate(session, [*available(), extra])
        options = _retry_options(session)
        assert {"records", "api_keys", "tenant_keks", "data_keys_by_subject", "extra"} <= set(
            options
        )
        assert options == dict.fromkeys(options, "MIN(99p,50ms)")
    finally:
        session.close()


def test_tables_made_before_0009_are_brought_up_to_date(url: str) -> None:
    session = CassandraSession.from_url(url)
    try:
        migrate(session, [m for m in available() if m.version < 9])
        for table in _retry_options(session):  # as a keyspace made before 0009 has them
            session.execute(f"ALTER TABLE {table} WITH speculative_retry = '99p'")
        assert set(_retry_options(session).values()) == {"99p"}
        assert migrate(session) == [m.version for m in available() if m.version >= 9]
        assert set(_retry_options(session).values()) == {"MIN(99p,50ms)"}
    finally:
        session.close()


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("CREATE TABLE t (k int PRIMARY KEY)", "CREATE TABLE t (k int PRIMARY KEY) WITH {}"),
        ("create table if not exists t (k int PRIMARY KEY", None),  # Cassandra refuses it
        (
            "CREATE TABLE t (k int, c int, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC)",
            "CREATE TABLE t (k int, c int, PRIMARY KEY ((k), c)) "
            "WITH CLUSTERING ORDER BY (c DESC) AND {}",
        ),
        ("ALTER TABLE t WITH gc_grace_seconds = 1", None),
        ("CREATE INDEX i ON t (c)", None),
    ],
)
def test_the_runner_adds_the_table_options_to_every_create_table(
    statement: str, expected: str | None
) -> None:
    want = statement if expected is None else expected.format(TABLE_OPTIONS)
    assert with_table_options(statement) == want
