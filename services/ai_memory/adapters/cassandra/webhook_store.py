"""CassandraWebhookStore: webhook subscriptions shared by every gateway of a distributed
deployment (tables of migration ``0010_webhooks``).

Creating, saving the state and deleting are lightweight transactions (``IF NOT EXISTS``,
``IF EXISTS``): an id is never taken twice, and a state saved by a dispatcher after an
admin deleted the subscription never re-creates it. The lease is a row written with a
TTL (``IF NOT EXISTS`` to take it, ``IF owner = ?`` to renew it), so it expires on its
own when its gateway dies.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from ai_memory.core.errors import Conflict
from ai_memory.core.timeparse import from_micros, to_micros
from ai_memory.core.webhooks.model import DeliveryState, Subscription

from ..webhook_rows import state_columns, state_of
from .migrations import migrate
from .session import CassandraSession, was_applied

_CONFIG = (
    "tenant, webhook_id, url, scopes, every_scope, kinds, description, secret, "
    "created_at_us, created_by"
)
_STATE_COLUMNS = (
    "status",
    "cursor",
    "failures",
    "failing_since_us",
    "last_attempt_us",
    "last_success_us",
    "last_status",
    "last_error",
    "paused_reason",
    "delivered",
)
_ALL = f"{_CONFIG}, {', '.join(_STATE_COLUMNS)}"
_CREATE = f"INSERT INTO webhooks ({_ALL}) VALUES ({','.join('?' * 20)}) IF NOT EXISTS"
_GET = f"SELECT {_ALL} FROM webhooks WHERE tenant = ? AND webhook_id = ?"
_TENANT = f"SELECT {_ALL} FROM webhooks WHERE tenant = ?"
_EVERY = f"SELECT {_ALL} FROM webhooks"
_DELETE = "DELETE FROM webhooks WHERE tenant = ? AND webhook_id = ? IF EXISTS"
_SAVE = (
    f"UPDATE webhooks SET {', '.join(f'{c} = ?' for c in _STATE_COLUMNS)}"
    " WHERE tenant = ? AND webhook_id = ? IF EXISTS"
)
_TAKE = "INSERT INTO webhook_leases (name, owner) VALUES (?, ?) IF NOT EXISTS USING TTL ?"
_RENEW = "UPDATE webhook_leases USING TTL ? SET owner = ? WHERE name = ? IF owner = ?"


class CassandraWebhookStore:
    """The WebhookStore port on Cassandra. ``session`` must be migrated (``migrate``)."""

    def __init__(self, session: CassandraSession, *, owns_session: bool = False) -> None:
        self._s = session
        self._owns = owns_session

    @classmethod
    def from_url(cls, url: str) -> CassandraWebhookStore:
        session = CassandraSession.from_url(url)
        migrate(session)
        return cls(session, owns_session=True)

    def create(self, subscription: Subscription) -> None:
        s = subscription
        values = (
            s.tenant,
            s.id,
            s.url,
            list(s.scopes or ()),
            s.scopes is None,
            list(s.kinds),
            s.description,
            s.secret,
            to_micros(s.created_at),
            s.created_by,
            *state_columns(s.state),
        )
        if not was_applied(self._s.execute(self._s.prepare(_CREATE), values)):
            raise Conflict(f"webhook {s.id} exists", code="webhook_exists")

    def get(self, tenant: str, webhook_id: str) -> Subscription | None:
        row = self._s.execute(self._s.prepare(_GET), (tenant, webhook_id)).one()
        return None if row is None else _subscription(row)

    def list_tenant(self, tenant: str) -> list[Subscription]:
        rows = self._s.execute(self._s.prepare(_TENANT), (tenant,))
        return sorted((_subscription(r) for r in rows), key=lambda s: (s.created_at, s.id))

    def list_all(self) -> list[Subscription]:
        rows = self._s.execute(self._s.prepare(_EVERY))
        found = [_subscription(r) for r in rows]
        return sorted(found, key=lambda s: (s.tenant, s.created_at, s.id))

    def delete(self, tenant: str, webhook_id: str) -> bool:
        return was_applied(self._s.execute(self._s.prepare(_DELETE), (tenant, webhook_id)))

    def save_state(self, tenant: str, webhook_id: str, state: DeliveryState) -> bool:
        values = (*state_columns(state), tenant, webhook_id)
        return was_applied(self._s.execute(self._s.prepare(_SAVE), values))

    def claim(self, lease: str, owner: str, ttl: float, now: datetime) -> bool:
        # The TTL is Cassandra's clock, not ``now``: the lease expires on its own.
        seconds = max(1, math.ceil(ttl))
        # Twice at most: the owner's own lease can expire between the two statements
        # (its TTL runs out after the insert found it and before the renewal), and then
        # the renewal finds no row. Nobody holds the lease then, so the owner takes it
        # again instead of reporting it lost to nobody.
        for _ in range(2):
            taken = self._s.execute(self._s.prepare(_TAKE), (lease, owner, seconds))
            if was_applied(taken):
                return True
            if getattr(taken.current_rows[0], "owner", None) != owner:
                return False
            renewed = self._s.execute(self._s.prepare(_RENEW), (seconds, owner, lease, owner))
            if was_applied(renewed):
                return True
            if getattr(renewed.current_rows[0], "owner", None) is not None:
                return False  # taken by another in between
        return False

    def close(self) -> None:
        if self._owns:
            self._s.close()


def _subscription(row: Any) -> Subscription:
    return Subscription(
        id=str(row.webhook_id),
        tenant=str(row.tenant),
        url=str(row.url),
        scopes=None if row.every_scope else tuple(row.scopes or ()),
        kinds=tuple(row.kinds or ()),
        description=str(row.description or ""),
        secret=str(row.secret),
        created_at=from_micros(int(row.created_at_us)),
        created_by=str(row.created_by),
        state=state_of(
            (
                row.status,
                row.cursor,
                row.failures,
                row.failing_since_us,
                row.last_attempt_us,
                row.last_success_us,
                row.last_status,
                row.last_error,
                row.paused_reason,
                row.delivered,
            )
        ),
    )
