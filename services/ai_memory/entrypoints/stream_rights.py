"""Waiting on the change feed while the caller's rights are asked again.

A stream (SSE, a long-poll, an A2A task, an MCP subscription) may wait minutes for the
next change; rights checked only when it opened would outlive a revoked or expired key.
So a wait is cut into slices of at most ``RECHECK_SECONDS`` and ``check`` — the door's
own authentication, same key cache as a new request — is asked before each slice: a
revoked key's stream ends within the cache's TTL plus one slice, whether or not anything
was written meanwhile. ``check`` raises (``Unauthenticated``) to end the stream; the
caller turns that into the transport's final word (an SSE ``error`` event, a 401, a
failed A2A task, an MCP log message).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from ai_memory.service.access import Who
from ai_memory.service.changes import ChangeFeed

RECHECK_SECONDS = 1.0
Check = Callable[[], Awaitable[None]]


async def always_allowed() -> None:
    """The check of a caller whose rights cannot change (no key service)."""


async def wait_checked(
    feed: ChangeFeed,
    who: Who,
    cursor: str,
    timeout: float,
    check: Check,
    every: float = RECHECK_SECONDS,
) -> bool:
    """``feed.wait`` (True once something follows ``cursor``, False after ``timeout``),
    asking ``check`` before every slice of at most ``every`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        await check()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if await feed.wait(who, cursor, min(every, remaining)):
            return True
