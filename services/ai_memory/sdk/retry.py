"""The retry policy: exponential backoff with full jitter, honouring ``Retry-After``.

What is retried:

* **429 and 503 answers** — only for idempotent requests. Every request the SDK sends is
  idempotent except ``POST /v1/memories`` *without* an id (``create``) and
  ``POST /v1/interactions``: a 503 ``projection_lag`` after a write means the write *was*
  appended, so repeating it would store a duplicate. ``MemoryClient.write`` sidesteps
  this by generating the id on the client and sending an idempotent ``PUT``.
* **Transport failures** (connect errors, timeouts, dropped connections) — for
  idempotent requests; for the non-idempotent two only when the connection was never
  established (``httpx.ConnectError`` / ``httpx.ConnectTimeout``: nothing was sent).
* An import from a one-shot iterator is never retried (its lines cannot be replayed);
  imports from a file, ``bytes`` or a list are (an import is idempotent).

Delays: attempt *n* (0-based) waits ``uniform(0, min(backoff_max, backoff_base · 2ⁿ))``
("full jitter"); when the server sent ``Retry-After`` the wait is that many seconds
(capped at ``retry_after_cap``) plus up to 10 % jitter, so clients told to come back at
the same moment do not all return at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from .errors import parse_retry_after

__all__ = ["RetryPolicy"]

#: Transport errors after which nothing reached the server.
_NOT_SENT: tuple[type[Exception], ...] = (httpx.ConnectError, httpx.ConnectTimeout)


def _uniform(a: float, b: float) -> float:
    return random.uniform(a, b)  # jitter, not cryptography


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry.

    ``max_retries`` is the number of retries after the first attempt (``0`` disables
    retrying). ``sleep``/``async_sleep``/``uniform`` are injectable for tests.
    """

    max_retries: int = 3
    backoff_base: float = 0.25
    backoff_max: float = 8.0
    retry_after_cap: float = 30.0
    retry_statuses: frozenset[int] = frozenset({429, 503})
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    async_sleep: Callable[[float], Awaitable[None]] = field(
        default=asyncio.sleep, repr=False, compare=False
    )
    uniform: Callable[[float, float], float] = field(default=_uniform, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be ≥ 0")
        if self.backoff_base < 0 or self.backoff_max < 0 or self.retry_after_cap < 0:
            raise ValueError("backoff_base, backoff_max and retry_after_cap must be ≥ 0")

    @classmethod
    def of(cls, retries: int | RetryPolicy) -> RetryPolicy:
        """A policy from the clients' ``retries`` argument (a count or a policy)."""
        return retries if isinstance(retries, RetryPolicy) else cls(max_retries=retries)

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        if retry_after is not None:
            wait = min(retry_after, self.retry_after_cap)
            return wait + self.uniform(0.0, wait * 0.1)
        ceiling = min(self.backoff_max, self.backoff_base * (2.0**attempt))
        return self.uniform(0.0, ceiling)

    def after_response(
        self, response: httpx.Response, attempt: int, *, idempotent: bool
    ) -> float | None:
        """The delay before retrying after ``response``, or ``None`` not to retry."""
        if attempt >= self.max_retries or not idempotent:
            return None
        if response.status_code not in self.retry_statuses:
            return None
        return self.backoff(attempt, parse_retry_after(response.headers.get("retry-after")))

    def after_error(self, error: Exception, attempt: int, *, idempotent: bool) -> float | None:
        """The delay before retrying after a transport ``error``, or ``None``."""
        if attempt >= self.max_retries or not isinstance(error, httpx.TransportError):
            return None
        if not idempotent and not isinstance(error, _NOT_SENT):
            return None
        return self.backoff(attempt)
