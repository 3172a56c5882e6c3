"""Versioned schema migrations for the Cassandra keyspace.

Migrations are the numbered ``migrations/NNNN_name.cql`` files next to this module,
applied in order and recorded in ``schema_migrations`` (version, name, checksum), so
running ``migrate`` again is a no-op. The keyspace itself is created first, from the
URL's replication settings, because the ledger lives inside it.

Concurrent runners (several gateways or projectors starting at once) must not break
each other: schema changes from several coordinators at the same time can disagree, so
a runner first takes a lease — ``INSERT ... IF NOT EXISTS USING TTL`` on a lock row, a
lightweight transaction — and the others wait for it and then find nothing to do. Every
statement is also idempotent (``IF NOT EXISTS``) and each ledger row is written with
``IF NOT EXISTS``, so even a runner whose lease expired mid-way cannot corrupt anything.
A migration file edited after it was applied is refused (checksum mismatch): write a
new migration instead.

Every table is created with ``TABLE_OPTIONS``: the runner adds them to each
``CREATE TABLE`` it executes, the ledger's included, so no migration can forget them
(0009 brought the tables created before them up to date; on a new keyspace its
statements change nothing and cost a few milliseconds, where a real schema change waits
for every node to agree — about a second each on three nodes). What the options are for
is told in ``migrations/0009_speculative_retry.cql``.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from dataclasses import dataclass
from importlib import resources
from typing import Final

import tenacity

from ai_memory.core.errors import PermanentError, RetryableError, Unavailable

from .session import CassandraSession

LEASE_SECONDS = 120
# A read waits at most 50 ms for a replica before asking another (see 0009).
TABLE_OPTIONS: Final = "speculative_retry = 'MIN(99p,50ms)'"
_CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s", re.IGNORECASE)
_WITH = re.compile(r"\bWITH\b", re.IGNORECASE)
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.cql$")
_LEDGER = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version int PRIMARY KEY, name text, checksum text, applied_at timestamp, applied_by text)"""
_LOCK = """CREATE TABLE IF NOT EXISTS schema_migrations_lock (
    name text PRIMARY KEY, owner text)"""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    text: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def statements(self) -> list[str]:
        """The CQL statements of the file: ``--`` comments dropped, split on ``;``."""
        lines = [line.split("--", 1)[0] for line in self.text.splitlines()]
        return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def available() -> list[Migration]:
    """The migrations shipped with this package, by version."""
    folder = resources.files(__package__).joinpath("migrations")
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise PermanentError(f"duplicate migration versions: {versions}", code="schema_invalid")
    return found


def applied(session: CassandraSession) -> dict[int, str]:
    """Applied version → checksum (empty when the ledger does not exist yet)."""
    rows = session.execute(f"SELECT version, checksum FROM {session.keyspace}.schema_migrations")
    return {int(r.version): str(r.checksum) for r in rows}


def migrate(
    session: CassandraSession,
    migrations: list[Migration] | None = None,
    *,
    wait_seconds: float = 300.0,
) -> list[int]:
    """Bring the keyspace up to date; return the versions this call applied.

    Leaves ``session`` bound to the keyspace. A store that cannot answer yet — a ring
    still forming when every process starts at once, a node restarting — is asked again
    with backoff for up to ``wait_seconds`` rather than failing the process at start: the
    statements are idempotent and the lease expires on its own."""
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(RetryableError),
        stop=tenacity.stop_after_delay(wait_seconds),
        wait=tenacity.wait_exponential(multiplier=0.5, max=5.0),
        reraise=True,
    )
    done: list[int] = []  # across attempts: what an interrupted one applied counts too
    # One owner across attempts: a lease an interrupted attempt could not release is
    # still this call's own, so the next attempt goes on rather than waiting it out.
    owner = str(uuid.uuid4())
    retrying(_migrate, session, migrations, time.monotonic() + wait_seconds, owner, done)
    return done


def _migrate(
    session: CassandraSession,
    migrations: list[Migration] | None,
    deadline: float,
    owner: str,
    done: list[int],
) -> None:
    pending_all = available() if migrations is None else migrations
    ks = session.keyspace
    session.execute(
        f"CREATE KEYSPACE IF NOT EXISTS {ks} WITH replication = {session.settings.replication()}"
    )
    for ledger, name in ((_LEDGER, "schema_migrations"), (_LOCK, "schema_migrations_lock")):
        session.execute(with_table_options(ledger.replace(name, f"{ks}.{name}", 1)))
    session.use_keyspace()
    while True:
        pending = _pending(session, pending_all)
        if not pending:
            return
        if _acquire(session, owner):
            try:
                for migration in _pending(session, pending_all):
                    _apply(session, migration, owner)
                    done.append(migration.version)
            finally:
                _release(session, owner)
            return
        if time.monotonic() > deadline:
            raise Unavailable("another process holds the schema migration lease", retry_after=10.0)
        time.sleep(0.5)


def _pending(session: CassandraSession, migrations: list[Migration]) -> list[Migration]:
    done = applied(session)
    for m in migrations:
        if m.version in done and done[m.version] != m.checksum:
            raise PermanentError(
                f"migration {m.version:04d}_{m.name} changed after it was applied; "
                "add a new migration instead of editing an applied one",
                code="schema_checksum_mismatch",
            )
    return [m for m in migrations if m.version not in done]


def _acquire(session: CassandraSession, owner: str) -> bool:
    row = session.execute(
        "INSERT INTO schema_migrations_lock (name, owner) VALUES ('migrate', %s)"
        f" IF NOT EXISTS USING TTL {LEASE_SECONDS}",
        (owner,),
    ).one()
    # Not applied: the row answered is the lease held, which may be this owner's own.
    return bool(row[0]) or getattr(row, "owner", None) == owner


def _release(session: CassandraSession, owner: str) -> None:
    session.execute(
        "DELETE FROM schema_migrations_lock WHERE name = 'migrate' IF owner = %s", (owner,)
    )


def _apply(session: CassandraSession, migration: Migration, owner: str) -> None:
    for statement in migration.statements():
        # The driver waits for schema agreement after each DDL statement.
        session.execute(with_table_options(statement))
    session.execute(
        "INSERT INTO schema_migrations (version, name, checksum, applied_at, applied_by)"
        " VALUES (%s, %s, %s, toTimestamp(now()), %s) IF NOT EXISTS",
        (migration.version, migration.name, migration.checksum, owner),
    )


def with_table_options(statement: str) -> str:
    """``statement`` with ``TABLE_OPTIONS`` added when it creates a table."""
    if not _CREATE_TABLE.match(statement):
        return statement
    depth, end = 0, -1
    for i, char in enumerate(statement):  # the column list's closing parenthesis
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                end = i
                break
    if end < 0:
        return statement  # not a table definition Cassandra accepts either
    joiner = " AND " if _WITH.search(statement, end) else " WITH "
    return statement.rstrip() + joiner + TABLE_OPTIONS
