"""SqliteKeyStore: API keys in ``keys.db`` in the embedded data directory.

One row per key, never deleted (revocation sets ``revoked_at_us`` once). WAL mode lets
``ai-memory keys`` create and revoke keys while the server runs; the server's
authentication cache picks changes up within its TTL. Times are UTC microseconds.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ai_memory.core.access import ApiKey, KeyInfo
from ai_memory.core.errors import Conflict
from ai_memory.core.timeparse import from_micros, to_micros

from .sqlite_util import Connections, translate_errors

_SCHEMA = """CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, name TEXT NOT NULL, role TEXT NOT NULL,
    scopes TEXT NOT NULL, secret_hash TEXT NOT NULL, created_at_us INTEGER NOT NULL,
    expires_at_us INTEGER, revoked_at_us INTEGER) WITHOUT ROWID"""
_BY_TENANT = "CREATE INDEX IF NOT EXISTS api_keys_by_tenant ON api_keys (tenant, created_at_us)"
_INFO = "key_id, tenant, name, role, scopes, created_at_us, expires_at_us, revoked_at_us"


class SqliteKeyStore:
    def __init__(self, path: Path | str) -> None:
        self._db = Connections(path)
        with self._db.transaction() as conn:
            conn.execute(_SCHEMA)
            conn.execute(_BY_TENANT)

    def create(self, key: ApiKey) -> None:
        i = key.info
        with self._db.transaction() as conn:
            cur = conn.execute(
                f"INSERT INTO api_keys ({_INFO}, secret_hash) VALUES (?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT (key_id) DO NOTHING",
                (
                    i.key_id,
                    i.tenant,
                    i.name,
                    i.role,
                    json.dumps(list(i.scopes)),
                    to_micros(i.created_at),
                    _micros(i.expires_at),
                    _micros(i.revoked_at),
                    key.secret_hash,
                ),
            )
        if cur.rowcount != 1:
            raise Conflict(f"key {i.key_id} exists", code="key_exists")

    def get(self, key_id: str) -> ApiKey | None:
        rows = self._query(f"SELECT {_INFO}, secret_hash FROM api_keys WHERE key_id = ?", (key_id,))
        return ApiKey(_info(rows[0]), str(rows[0][8])) if rows else None

    def list_keys(self, tenant: str) -> list[KeyInfo]:
        rows = self._query(
            f"SELECT {_INFO} FROM api_keys WHERE tenant = ? ORDER BY created_at_us, key_id",
            (tenant,),
        )
        return [_info(row) for row in rows]

    def revoke(self, key_id: str, at: datetime) -> KeyInfo | None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE api_keys SET revoked_at_us = ? WHERE key_id = ? AND revoked_at_us IS NULL",
                (to_micros(at), key_id),
            )
            row = conn.execute(
                f"SELECT {_INFO} FROM api_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        return None if row is None else _info(row)

    def has_keys(self) -> bool:
        return bool(self._query("SELECT 1 FROM api_keys LIMIT 1", ()))

    def close(self) -> None:
        self._db.close()

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with translate_errors():
            return list(self._db.reader().execute(sql, params).fetchall())


def _micros(at: datetime | None) -> int | None:
    return None if at is None else to_micros(at)


def _at(micros: Any) -> datetime | None:
    return None if micros is None else from_micros(int(micros))


def _info(row: Any) -> KeyInfo:
    key_id, tenant, name, role, scopes, created, expires, revoked = row[:8]
    return KeyInfo(
        key_id=str(key_id),
        tenant=str(tenant),
        name=str(name),
        role=role,
        scopes=tuple(json.loads(scopes)),
        created_at=from_micros(int(created)),
        expires_at=_at(expires),
        revoked_at=_at(revoked),
    )
