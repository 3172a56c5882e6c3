"""Typed errors of the SDK: every ``application/problem+json`` answer becomes an exception.

Each class also derives from the matching ``ai_memory.core.errors`` class, so code that
already handles the server's domain errors handles the SDK's too::

    AiMemoryError
    └── ApiError                            status, code, detail, field, rule, retry_after
        ├── InvalidInputError  (400/413/422) also core InvalidInput
        ├── NotFoundError      (404)         also core NotFound   (memory_not_found, …)
        ├── GoneError          (410)         also core Gone       (memory_forgotten)
        ├── ConflictError      (409)         also core Conflict   (scope_immutable, …)
        │   └── PreconditionFailedError (412) also core PreconditionFailed (If-Match)
        ├── UnauthenticatedError (401)       also core Unauthenticated (invalid_api_key)
        ├── ForbiddenError     (403)         also core Forbidden  (role_forbidden, …)
        ├── RateLimitedError   (429)         also core RetryableError
        ├── UnavailableError   (503)         also core Unavailable
        │   └── WaitTimeoutError (503 projection_lag) also core Timeout
        ├── ConnectionFailedError (no answer: connect/read failure) also core Unavailable
        └── ServerError        (any other status, or an unreadable answer)
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ai_memory.core.errors import (
    AiMemoryError,
    Conflict,
    Forbidden,
    Gone,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    RetryableError,
    Timeout,
    Unauthenticated,
    Unavailable,
)

__all__ = [
    "ApiError",
    "ConflictError",
    "ConnectionFailedError",
    "ForbiddenError",
    "GoneError",
    "InvalidInputError",
    "NotFoundError",
    "PreconditionFailedError",
    "RateLimitedError",
    "ServerError",
    "UnauthenticatedError",
    "UnavailableError",
    "WaitTimeoutError",
    "error_from_response",
]


class ApiError(AiMemoryError):
    """A request the server refused or could not answer.

    ``status`` is the HTTP status (``None`` when no answer arrived), ``code`` the stable
    machine-readable problem code, ``detail`` the human sentence, ``field``/``rule`` name
    the offending input for validation errors (``""`` otherwise), ``retry_after`` the
    server's hint in seconds (``0.0`` when it sent none), and ``problem`` the whole
    problem+json body. The types match the ``ai_memory.core.errors`` attributes.
    """

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        code: str | None = None,
        field: str = "",
        rule: str = "",
        retry_after: float = 0.0,
        problem: dict[str, Any] | None = None,
    ) -> None:
        # Not super().__init__: the core classes in the MRO take other arguments.
        AiMemoryError.__init__(self, detail, code=code)
        self.status = status
        self.detail = detail
        self.field = field
        self.rule = rule
        self.retry_after = retry_after
        self.problem: dict[str, Any] = problem or {}

    def __str__(self) -> str:
        where = f" [{self.field}]" if self.field else ""
        return f"{self.status or '-'} {self.code}{where}: {self.detail}"


class InvalidInputError(ApiError, InvalidInput):
    """400/413/422: the request is malformed or breaks a rule (``field`` and ``rule``)."""

    code = "invalid_input"


class NotFoundError(ApiError, NotFound):
    """404: the memory (or route) never existed."""

    code = "not_found"


class GoneError(ApiError, Gone):
    """410: the memory existed and was forgotten; its id is never reused."""

    code = "gone"


class ConflictError(ApiError, Conflict):
    """409: valid, but contradicts stored state (``scope_immutable``, quotas, …)."""

    code = "conflict"


class PreconditionFailedError(ConflictError, PreconditionFailed):
    """412: an ``if_match`` / ``if_none_match`` write whose condition did not hold (the
    memory changed since it was read); nothing was written."""

    code = "precondition_failed"


class UnauthenticatedError(ApiError, Unauthenticated):
    """401: no valid API key (missing, unknown, revoked or expired — one answer for all)."""

    code = "invalid_api_key"


class ForbiddenError(ApiError, Forbidden):
    """403: a valid key whose role, scopes or tenant do not allow the call (``code`` says
    which: ``role_forbidden``, ``scope_forbidden``, ``tenant_forbidden``, …)."""

    code = "forbidden"


class RateLimitedError(ApiError, RetryableError):
    """429: too many requests; retried automatically, raised when retries ran out."""

    code = "rate_limited"


class UnavailableError(ApiError, Unavailable):
    """503: a dependency is down; retried automatically, raised when retries ran out."""

    code = "unavailable"


class WaitTimeoutError(UnavailableError, Timeout):
    """503 ``projection_lag``: the write happened, waiting for projections gave up."""

    code = "projection_lag"


class ConnectionFailedError(ApiError, Unavailable):
    """No HTTP answer: the connection failed or timed out (after any retries)."""

    code = "connection_failed"


class ServerError(ApiError):
    """Any other failure status (500, …) or an answer the SDK cannot read."""

    code = "server_error"


_BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidInputError,
    401: UnauthenticatedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    412: PreconditionFailedError,
    413: InvalidInputError,
    415: InvalidInputError,
    422: InvalidInputError,
    429: RateLimitedError,
    503: UnavailableError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from datetime import UTC, datetime
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_from_response(response: httpx.Response) -> ApiError:
    """The typed exception for a failed response (the body must have been read)."""
    status = response.status_code
    body: dict[str, Any] = {}
    try:
        parsed = json.loads(response.content or b"{}")
        if isinstance(parsed, dict):
            body = parsed
    except ValueError:
        pass
    code = str(body.get("code") or _BY_STATUS.get(status, ServerError).code)
    detail = str(body.get("detail") or response.reason_phrase or f"HTTP {status}")
    cls = _BY_STATUS.get(status, ServerError)
    if status == 503 and code == "projection_lag":
        cls = WaitTimeoutError
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if retry_after is None and isinstance(body.get("retry_after"), int | float):
        retry_after = float(body["retry_after"])
    field = body.get("field")
    rule = body.get("rule")
    return cls(
        detail,
        status=status,
        code=code,
        field=field if isinstance(field, str) else "",
        rule=rule if isinstance(rule, str) else "",
        retry_after=retry_after or 0.0,
        problem=body,
    )
