"""The cost benchmark's census of a Cassandra node (``loadtest.cassandra_census``) against
a real node — and the node behaviour ``write_grouped`` is ordered for: the rows of one
partition in one unlogged batch are one partition write, rows of one partition sent in
batches of their own are one each."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from loadtest import cassandra_census

from ai_memory.adapters.cassandra import CassandraSession


@pytest.fixture
def session(cassandra_contact: str) -> Iterator[CassandraSession]:
    s = CassandraSession.from_url(f"cassandra://{cassandra_contact}/census_{uuid.uuid4().hex[:12]}")
    s.execute(
        f"CREATE KEYSPACE IF NOT EXISTS {s.keyspace} WITH replication ="
        " {'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    s.use_keyspace()
    s.execute("CREATE TABLE rows_of (k text, c int, v text, PRIMARY KEY (k, c))")
    s.execute("CREATE TABLE other (k text PRIMARY KEY, v text)")
    yield s
    s.execute(f"DROP KEYSPACE IF EXISTS {s.keyspace}")
    s.close()


def test_a_partitions_rows_in_one_batch_are_one_write_and_apart_are_many(
    session: CassandraSession,
) -> None:
    insert = session.prepare("INSERT INTO rows_of (k, c, v) VALUES (?, ?, ?)")
    before = cassandra_census.counts(session.session, session.keyspace)
    # 40 rows of one partition, one grouped call: ordered into one batch.
    session.write_grouped([(insert, ("one", c, "v")) for c in range(40)])
    together = cassandra_census.counts(session.session, session.keyspace)
    # 40 rows of one partition, a call each: 40 batches of one.
    for c in range(40):
        session.write_grouped([(insert, ("apart", c, "v"))])
    apart = cassandra_census.counts(session.session, session.keyspace)
    assert together["write:rows_of"] - before.get("write:rows_of", 0) == 1
    assert apart["write:rows_of"] - together["write:rows_of"] == 40


def test_the_census_counts_each_table_and_reads_per_unit(session: CassandraSession) -> None:
    before = cassandra_census.counts(session.session, session.keyspace)
    other = session.prepare("INSERT INTO other (k, v) VALUES (?, ?)")
    session.write_grouped([(other, (f"k{n}", "v")) for n in range(10)])
    select = session.prepare("SELECT v FROM other WHERE k = ?")
    for n in range(4):
        session.execute(select, (f"k{n}",))
    census = cassandra_census.per_unit(
        before, cassandra_census.counts(session.session, session.keyspace), 2
    )
    # One grouped write (a batch) and four reads from this test; every client of the
    # node is counted (the census's own queries, whatever else talks to it), so at least.
    assert census.pop("requests") >= 5 / 2
    assert census == {"write:other": 5.0, "read:other": 2.0}
    said = cassandra_census.line(census | {"requests": 2.5}, "memory")
    assert said == (
        "partitions per memory: writes other 5.00 (5.00); reads other 2.00 (2.00); requests 2.50"
    )
    assert cassandra_census.line({}, "memory") == ""


def test_requests_are_summed_over_connections_and_a_closed_one_takes_nothing() -> None:
    before = {"client:10.0.0.1:5000": 100, "client:10.0.0.1:5001": 40, "write:t": 7}
    after = {"client:10.0.0.1:5000": 130, "client:10.0.0.1:5002": 10, "write:t": 9}
    # 30 more on a connection kept, 10 on a new one; the closed one is left out.
    assert cassandra_census.per_unit(before, after, 10) == {"requests": 4.0, "write:t": 0.2}
    assert cassandra_census.per_unit(after, after, 10) == {}
