"""A webhook subscription and its delivery state.

A subscription belongs to a tenant, not to the key that created it: revoking that key
does not stop the deliveries (an admin deletes the subscription). Its ``state`` is what
the dispatcher persists after every attempt: ``cursor`` is the change-feed cursor after
the last entry a receiver acknowledged with a 2xx, so a restarted server resumes there
(entries after it may be delivered again: at least once).
"""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, get_args

from ai_memory.core.errors import InvalidInput

Kind = Literal["written", "state_changed", "forgotten"]
KINDS: tuple[Kind, ...] = get_args(Kind)
Status = Literal["active", "paused"]
EVERY_SCOPE = "*"  # a subscription to every scope of the tenant
SECRET_PREFIX = "whsec_"
ID_PREFIX = "wh_"
_ID = re.compile(r"^wh_[0-9a-f]{16}$")
MAX_DESCRIPTION = 500


@dataclass(frozen=True)
class DeliveryState:
    cursor: str  # change-feed cursor after the last acknowledged entry
    status: Status = "active"
    failures: int = 0  # consecutive failed attempts
    failing_since: datetime | None = None  # first failure of the current run of failures
    last_attempt_at: datetime | None = None
    last_success_at: datetime | None = None
    last_status: int | None = None  # HTTP status of the last attempt (None: no answer)
    last_error: str | None = None  # why the last attempt failed (None after a success)
    paused_reason: str | None = None
    delivered: int = 0  # entries acknowledged so far


@dataclass(frozen=True)
class Subscription:
    id: str
    tenant: str
    url: str
    scopes: tuple[str, ...] | None  # None: every scope of the tenant
    kinds: tuple[Kind, ...]
    description: str
    secret: str  # signs deliveries; shown once when created
    created_at: datetime
    created_by: str  # the actor that created it (key:<id>, or the deployment)
    state: DeliveryState = field(default_factory=lambda: DeliveryState(cursor=""))

    def to_json(self) -> dict[str, object]:
        """What ``GET /v1/webhooks/{id}`` shows: everything but the secret."""
        s = self.state
        return {
            "id": self.id,
            "url": self.url,
            "scopes": [EVERY_SCOPE] if self.scopes is None else list(self.scopes),
            "kinds": list(self.kinds),
            "description": self.description,
            "created_at": _iso(self.created_at),
            "created_by": self.created_by,
            "status": s.status,
            "paused_reason": s.paused_reason,
            "cursor": s.cursor,
            "delivered": s.delivered,
            "failures": s.failures,
            "failing_since": _iso(s.failing_since),
            "last_attempt_at": _iso(s.last_attempt_at),
            "last_success_at": _iso(s.last_success_at),
            "last_status": s.last_status,
            "last_error": s.last_error,
        }


def new_id() -> str:
    return ID_PREFIX + secrets.token_hex(8)


def valid_id(value: str) -> bool:
    return bool(_ID.match(value))


def new_secret() -> str:
    """256 random bits, base64url: the HMAC key is this whole string's UTF-8 bytes."""
    return SECRET_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


def parse_kinds(kinds: Sequence[str] | None) -> tuple[Kind, ...]:
    """The kinds asked for, in the canonical order (every kind without any)."""
    if not kinds:
        return KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise InvalidInput("kinds", "enum", f"kinds must be among {', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in kinds)


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat().replace("+00:00", "Z")
