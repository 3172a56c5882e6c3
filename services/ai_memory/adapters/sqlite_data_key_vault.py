"""The embedded data-key vault: wrapped keys in ``vault.db`` in the data directory.

A destroyed key must leave no bytes behind, and SQLite keeps old bytes in two places:
free space in pages (a deleted or rewritten cell) and the write-ahead log (every page
image written since the last checkpoint, kept until overwritten). So the writer runs
with ``PRAGMA secure_delete = ON`` (freed space is zeroed) and every destroy is followed
by ``PRAGMA wal_checkpoint(TRUNCATE)`` (the WAL is copied into the database and cut to
zero bytes). A destroy is rare; the checkpoint costs a few milliseconds. A destroyed KEK
version keeps its row with an empty ``wrapped`` (the column is NOT NULL in the released
schema), so its number is never used again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ai_memory.core.data_keys import KeyPage
from ai_memory.core.errors import Unavailable

from .key_wrapping import KekRow, KeyRow, WrappedVault
from .sqlite_util import Connections, rows_for_ids, translate_errors

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tenant_keks (
    tenant TEXT NOT NULL, version INTEGER NOT NULL, wrapped BLOB NOT NULL,
    PRIMARY KEY (tenant, version)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS data_keys (
    tenant TEXT NOT NULL, key_id TEXT NOT NULL, wrapped BLOB, kek_version INTEGER NOT NULL,
    destroyed_at_us INTEGER, PRIMARY KEY (tenant, key_id)) WITHOUT ROWID;
"""


class SqliteVaultRows:
    # One key per subject: "create unless it exists" is a local transaction here.
    issues_own_ids = False

    def __init__(self, path: Path | str) -> None:
        self._db = Connections(path)
        self._db.writer.execute("PRAGMA secure_delete = ON")
        with self._db.transaction() as conn:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)

    def keks(self, tenant: str) -> list[KekRow]:
        with translate_errors():
            rows = (
                self._db.reader()
                .execute("SELECT version, wrapped FROM tenant_keks WHERE tenant = ?", (tenant,))
                .fetchall()
            )
        return [KekRow(int(r[0]), bytes(r[1]) if r[1] else None) for r in rows]

    def add_kek(self, tenant: str, version: int, wrapped: bytes) -> bool:
        with self._db.transaction() as conn:
            done = conn.execute(
                "INSERT INTO tenant_keks VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (tenant, version, wrapped),
            )
            return bool(done.rowcount)

    def destroy_kek(self, tenant: str, version: int, at_us: int) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO tenant_keks VALUES (?, ?, X'') ON CONFLICT (tenant, version)"
                " DO UPDATE SET wrapped = X''",
                (tenant, version),
            )
        self._truncate_wal()

    def _truncate_wal(self) -> None:
        # The old page images of a key live on in the WAL until it is truncated.
        with self._db.write_lock, translate_errors():
            self._db.writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def key(self, tenant: str, key_id: str) -> KeyRow | None:
        with translate_errors():
            row = (
                self._db.reader()
                .execute(
                    "SELECT wrapped, kek_version, destroyed_at_us FROM data_keys"
                    " WHERE tenant = ? AND key_id = ?",
                    (tenant, key_id),
                )
                .fetchone()
            )
        return None if row is None else _row(row)

    def add_key(self, tenant: str, key_id: str, wrapped: bytes, kek_version: int) -> KeyRow:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO data_keys (tenant, key_id, wrapped, kek_version) VALUES (?,?,?,?)"
                " ON CONFLICT DO NOTHING",
                (tenant, key_id, wrapped, kek_version),
            )
        row = self.key(tenant, key_id)
        if row is None:
            raise Unavailable(f"data key {key_id!r} was not stored")
        return row

    def keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, KeyRow]:
        sql = "SELECT key_id, wrapped, kek_version, destroyed_at_us FROM data_keys"
        rows = rows_for_ids(
            self._db.reader(), f"{sql} WHERE tenant = ? AND key_id IN", tenant, key_ids
        )
        return {str(r[0]): _row(r[1:]) for r in rows}

    def add_keys(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> dict[str, KeyRow]:
        with self._db.transaction() as conn:  # one transaction for a batch of new memories
            conn.executemany(
                "INSERT INTO data_keys (tenant, key_id, wrapped, kek_version) VALUES (?,?,?,?)"
                " ON CONFLICT DO NOTHING",
                [(tenant, k, wrapped, version) for k, wrapped, version in new],
            )
        return self.keys(tenant, [k for k, _, _ in new])

    def issued_for(
        self, tenant: str, subjects: Sequence[str]
    ) -> dict[str, list[tuple[str, KeyRow]]]:
        return {}  # one key per subject: its row is the subject's own

    def add_issued(self, tenant: str, new: Sequence[tuple[str, bytes, int]]) -> None:
        raise NotImplementedError("the SQLite vault keeps one key per subject")

    def keys_below(self, tenant: str, version: int, cursor: str | None, limit: int) -> KeyPage:
        with translate_errors():
            rows = (
                self._db.reader()
                .execute(
                    "SELECT key_id FROM data_keys WHERE tenant = ? AND key_id > ?"
                    " AND kek_version < ? AND wrapped IS NOT NULL AND destroyed_at_us IS NULL"
                    " ORDER BY key_id LIMIT ?",
                    (tenant, cursor or "", version, limit + 1),
                )
                .fetchall()
            )
        ids = tuple(str(r[0]) for r in rows[:limit])
        return KeyPage(ids, ids[-1] if len(rows) > limit else None)

    def rewrap(
        self, tenant: str, key_id: str, old_version: int, wrapped: bytes, new_version: int
    ) -> bool:
        with self._db.transaction() as conn:
            done = conn.execute(
                "UPDATE data_keys SET wrapped = ?, kek_version = ? WHERE tenant = ?"
                " AND key_id = ? AND kek_version = ? AND wrapped IS NOT NULL"
                " AND destroyed_at_us IS NULL",
                (wrapped, new_version, tenant, key_id, old_version),
            )
            return bool(done.rowcount)

    def destroy(self, tenant: str, key_id: str, at_us: int) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO data_keys (tenant, key_id, wrapped, kek_version, destroyed_at_us)"
                " VALUES (?, ?, NULL, 0, ?) ON CONFLICT (tenant, key_id) DO UPDATE SET"
                " wrapped = NULL,"
                " destroyed_at_us = coalesce(destroyed_at_us, excluded.destroyed_at_us)",
                (tenant, key_id, at_us),
            )
        self._truncate_wal()

    def close(self) -> None:
        self._db.close()


def _row(r: Sequence[Any]) -> KeyRow:
    """(wrapped, kek_version, destroyed_at_us) → a key row."""
    at = None if r[2] is None else int(r[2])
    return KeyRow(None if r[0] is None else bytes(r[0]), int(r[1]), at is not None, at)


def sqlite_vault(path: Path | str, root_key: bytes) -> WrappedVault:
    return WrappedVault(SqliteVaultRows(path), root_key)
