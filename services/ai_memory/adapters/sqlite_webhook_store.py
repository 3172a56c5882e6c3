"""SqliteWebhookStore: webhook subscriptions in ``webhooks.db`` in the embedded data
directory, beside ``keys.db`` (created private, 0700, with the directory).

One row per subscription; the delivery state is updated in place after every attempt
(WAL: a reader never waits for it). The table holds each subscription's signing secret
in clear — an HMAC signature needs the secret itself, where an API key needs only a
digest. Times are UTC microseconds.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ai_memory.core.errors import Conflict
from ai_memory.core.timeparse import from_micros, to_micros
from ai_memory.core.webhooks.model import DeliveryState, Subscription

from .sqlite_util import Connections, translate_errors
from .webhook_rows import state_columns, state_of

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS webhooks (
    webhook_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, url TEXT NOT NULL, scopes TEXT,
    kinds TEXT NOT NULL, description TEXT NOT NULL, secret TEXT NOT NULL,
    created_at_us INTEGER NOT NULL, created_by TEXT NOT NULL,
    status TEXT NOT NULL, cursor TEXT NOT NULL, failures INTEGER NOT NULL,
    failing_since_us INTEGER, last_attempt_us INTEGER, last_success_us INTEGER,
    last_status INTEGER, last_error TEXT, paused_reason TEXT, delivered INTEGER NOT NULL
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS webhooks_by_tenant ON webhooks (tenant, created_at_us)",
    """CREATE TABLE IF NOT EXISTS webhook_leases (
    name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_us INTEGER NOT NULL) WITHOUT ROWID""",
)
_CONFIG = "webhook_id, tenant, url, scopes, kinds, description, secret, created_at_us, created_by"
_STATE = (
    "status, cursor, failures, failing_since_us, last_attempt_us, last_success_us, "
    "last_status, last_error, paused_reason, delivered"
)
_ALL = f"{_CONFIG}, {_STATE}"


class SqliteWebhookStore:
    def __init__(self, path: Path | str) -> None:
        self._db = Connections(path)
        with self._db.transaction() as conn:
            for statement in _SCHEMA:
                conn.execute(statement)

    def create(self, subscription: Subscription) -> None:
        s = subscription
        config = (
            s.id,
            s.tenant,
            s.url,
            None if s.scopes is None else json.dumps(list(s.scopes)),
            json.dumps(list(s.kinds)),
            s.description,
            s.secret,
            to_micros(s.created_at),
            s.created_by,
        )
        marks = ",".join("?" * (len(config) + 10))
        with self._db.transaction() as conn:
            cur = conn.execute(
                f"INSERT INTO webhooks ({_ALL}) VALUES ({marks}) ON CONFLICT DO NOTHING",
                (*config, *state_columns(s.state)),
            )
        if cur.rowcount != 1:
            raise Conflict(f"webhook {s.id} exists", code="webhook_exists")

    def get(self, tenant: str, webhook_id: str) -> Subscription | None:
        rows = self._query(
            f"SELECT {_ALL} FROM webhooks WHERE webhook_id = ? AND tenant = ?",
            (webhook_id, tenant),
        )
        return _subscription(rows[0]) if rows else None

    def list_tenant(self, tenant: str) -> list[Subscription]:
        rows = self._query(
            f"SELECT {_ALL} FROM webhooks WHERE tenant = ? ORDER BY created_at_us, webhook_id",
            (tenant,),
        )
        return [_subscription(r) for r in rows]

    def list_all(self) -> list[Subscription]:
        rows = self._query(
            f"SELECT {_ALL} FROM webhooks ORDER BY tenant, created_at_us, webhook_id", ()
        )
        return [_subscription(r) for r in rows]

    def delete(self, tenant: str, webhook_id: str) -> bool:
        with self._db.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM webhooks WHERE webhook_id = ? AND tenant = ?", (webhook_id, tenant)
            )
        return cur.rowcount == 1

    def save_state(self, tenant: str, webhook_id: str, state: DeliveryState) -> bool:
        assignments = ", ".join(f"{column.strip()} = ?" for column in _STATE.split(","))
        with self._db.transaction() as conn:
            cur = conn.execute(
                f"UPDATE webhooks SET {assignments} WHERE webhook_id = ? AND tenant = ?",
                (*state_columns(state), webhook_id, tenant),
            )
        return cur.rowcount == 1

    def claim(self, lease: str, owner: str, ttl: float, now: datetime) -> bool:
        at, until = to_micros(now), to_micros(now) + int(ttl * 1_000_000)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO webhook_leases (name, owner, expires_us) VALUES (?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner,"
                " expires_us = excluded.expires_us"
                " WHERE webhook_leases.owner = excluded.owner OR webhook_leases.expires_us <= ?",
                (lease, owner, until, at),
            )
            row = conn.execute(
                "SELECT owner FROM webhook_leases WHERE name = ?", (lease,)
            ).fetchone()
        return row is not None and str(row[0]) == owner

    def close(self) -> None:
        self._db.close()

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with translate_errors():
            return list(self._db.reader().execute(sql, params).fetchall())


def _subscription(row: Any) -> Subscription:
    (webhook_id, tenant, url, scopes, kinds, description, secret, created, created_by) = row[:9]
    return Subscription(
        id=str(webhook_id),
        tenant=str(tenant),
        url=str(url),
        scopes=None if scopes is None else tuple(json.loads(scopes)),
        kinds=tuple(json.loads(kinds)),
        description=str(description),
        secret=str(secret),
        created_at=from_micros(int(created)),
        created_by=str(created_by),
        state=state_of(tuple(row[9:])),
    )
