"""A webhook's delivery state as the columns every store keeps it in (SQLite and
Cassandra alike: times as microseconds), so the stores differ only in their queries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ai_memory.core.timeparse import from_micros, to_micros
from ai_memory.core.webhooks.model import DeliveryState


def _micros(at: datetime | None) -> int | None:
    return None if at is None else to_micros(at)


def _at(micros: Any) -> datetime | None:
    return None if micros is None else from_micros(int(micros))


def state_columns(s: DeliveryState) -> tuple[Any, ...]:
    """status, cursor, failures, failing since, last attempt, last success, last status,
    last error, paused reason, delivered — the order of ``state_of``."""
    return (
        s.status,
        s.cursor,
        s.failures,
        _micros(s.failing_since),
        _micros(s.last_attempt_at),
        _micros(s.last_success_at),
        s.last_status,
        s.last_error,
        s.paused_reason,
        s.delivered,
    )


def state_of(columns: tuple[Any, ...]) -> DeliveryState:
    """The state from the columns ``state_columns`` wrote (nulls as a store returns them)."""
    status, cursor, failures, failing, attempt, success, last_status, error, reason, delivered = (
        columns
    )
    return DeliveryState(
        cursor=str(cursor or ""),
        status=status,
        failures=int(failures or 0),
        failing_since=_at(failing),
        last_attempt_at=_at(attempt),
        last_success_at=_at(success),
        last_status=None if last_status is None else int(last_status),
        last_error=None if error is None else str(error),
        paused_reason=None if reason is None else str(reason),
        delivered=int(delivered or 0),
    )
