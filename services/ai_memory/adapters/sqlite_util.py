"""Shared SQLite plumbing for the embedded adapters: connections tuned for an
append-heavy single-writer workload, and driver-error translation."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ai_memory.core.errors import Unavailable
from ai_memory.core.events import Head
from ai_memory.core.timeparse import from_micros


def connect(path: Path | str) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves so a batch is one transaction.
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL is durable against application crashes in WAL mode; only an OS crash can lose
    # the last transactions, which the projections then simply never saw either.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


class Connections:
    """One writer connection (serialised by a lock) and one reader per thread.

    WAL lets readers proceed while the writer commits, so HTTP reads never queue behind
    a projection batch."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.writer = connect(self.path)
        self.write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()

    def reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.write_lock, translate_errors():
            self.writer.execute("BEGIN IMMEDIATE")
            try:
                yield self.writer
            except BaseException:
                self.writer.execute("ROLLBACK")
                raise
            self.writer.execute("COMMIT")

    def close(self) -> None:
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        with self.write_lock:
            self.writer.close()


def rows_for_ids(
    conn: sqlite3.Connection, sql_prefix: str, tenant: str, ids: Sequence[str]
) -> Iterator[Any]:
    """Rows of ``{sql_prefix} (?, ?, …)`` for a tenant and many ids, in chunks under
    SQLite's bound-parameter limit; ids are de-duplicated first."""
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        with translate_errors():
            rows = conn.execute(
                f"{sql_prefix} ({','.join('?' * len(chunk))})", (tenant, *chunk)
            ).fetchall()
        yield from rows


def head_from_row(row: Sequence[Any]) -> Head:
    """A head from ``memory_id, scope, version, content_sha256, deleted, position,
    created_at_us`` (the layout of the embedded log's heads and the SQLite head store)."""
    mid, scope, version, sha, deleted, position, created_us = row[:7]
    return Head(
        memory_id=mid,
        scope=scope,
        version=int(version),
        content_sha256=sha,
        deleted=bool(deleted),
        position=int(position),
        created_at=None if created_us is None else from_micros(int(created_us)),
    )


@contextmanager
def translate_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as e:
        # "database is locked", disk I/O errors, full disk: the caller may retry later.
        raise Unavailable(f"embedded store unavailable: {e}", retry_after=1.0) from e
    except sqlite3.DatabaseError as e:
        raise Unavailable(f"embedded store error: {e}", retry_after=5.0) from e
