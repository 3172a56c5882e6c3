"""SqliteDeadLetters: the embedded dead-letter store.

One table beside the embedded log, keyed by (projection, position): the event's bytes, the
reason and the last error, how often it failed and when. WAL mode lets the CLI list and
discard entries while the server runs. Times are stored as UTC microseconds.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ai_memory.core.ports import DeadLetter

from .sqlite_util import Connections, translate_errors

_SCHEMA = """
CREATE TABLE IF NOT EXISTS dead_letters (
    projection     TEXT NOT NULL,
    position       INTEGER NOT NULL,
    partition      INTEGER NOT NULL,
    reason         TEXT NOT NULL,
    error          TEXT NOT NULL,
    raw            BLOB NOT NULL,
    attempts       INTEGER NOT NULL,
    first_failed_us INTEGER NOT NULL,
    last_failed_us  INTEGER NOT NULL,
    PRIMARY KEY (projection, position)
) WITHOUT ROWID
"""

_COLUMNS = (
    "projection, position, partition, reason, error, raw, attempts, first_failed_us, last_failed_us"
)


class SqliteDeadLetters:
    def __init__(self, path: Path | str) -> None:
        self._db = Connections(path)
        with self._db.transaction() as conn:
            conn.execute(_SCHEMA)

    def put(self, letter: DeadLetter) -> DeadLetter:
        with self._db.transaction() as conn:
            conn.execute(
                f"INSERT INTO dead_letters ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (projection, position) DO UPDATE SET"
                " reason = excluded.reason, error = excluded.error,"
                " raw = CASE WHEN length(excluded.raw) > 0 THEN excluded.raw ELSE raw END,"
                " attempts = attempts + excluded.attempts,"
                " last_failed_us = excluded.last_failed_us",
                (
                    letter.projection,
                    letter.position,
                    letter.partition,
                    letter.reason,
                    letter.error,
                    letter.raw,
                    letter.attempts,
                    _micros(letter.first_failed_at),
                    _micros(letter.last_failed_at),
                ),
            )
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM dead_letters WHERE projection = ? AND position = ?",
                (letter.projection, letter.position),
            ).fetchone()
        return _letter(row)

    def get(self, projection: str, position: int) -> DeadLetter | None:
        row = self._query(
            f"SELECT {_COLUMNS} FROM dead_letters WHERE projection = ? AND position = ?",
            (projection, position),
        )
        return _letter(row[0]) if row else None

    def entries(self, projection: str | None = None, *, limit: int = 1000) -> list[DeadLetter]:
        if projection is None:
            rows = self._query(
                f"SELECT {_COLUMNS} FROM dead_letters ORDER BY projection, position LIMIT ?",
                (limit,),
            )
        else:
            rows = self._query(
                f"SELECT {_COLUMNS} FROM dead_letters WHERE projection = ?"
                " ORDER BY position LIMIT ?",
                (projection, limit),
            )
        return [_letter(row) for row in rows]

    def counts(self) -> dict[str, int]:
        rows = self._query(
            "SELECT projection, COUNT(*) FROM dead_letters GROUP BY projection ORDER BY 1", ()
        )
        return {str(name): int(n) for name, n in rows}

    def resolve(self, projection: str, position: int) -> bool:
        with self._db.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM dead_letters WHERE projection = ? AND position = ?",
                (projection, position),
            )
        return cur.rowcount > 0

    def close(self) -> None:
        self._db.close()

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[sqlite3.Row]:
        with translate_errors():
            return list(self._db.reader().execute(sql, params).fetchall())


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(at: datetime) -> int:
    return (at - _EPOCH) // timedelta(microseconds=1)


def _at(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


def _letter(row: Any) -> DeadLetter:
    projection, position, partition, reason, error, raw, attempts, first_us, last_us = row
    return DeadLetter(
        projection=str(projection),
        position=int(position),
        partition=int(partition),
        reason=str(reason),
        error=str(error),
        raw=bytes(raw),
        attempts=int(attempts),
        first_failed_at=_at(int(first_us)),
        last_failed_at=_at(int(last_us)),
    )
