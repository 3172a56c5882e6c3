"""The ``memory.changes`` skill: the change feed (``service.changes``) of one scope over A2A.

A data part ``{"skill": "memory.changes", "scope"}`` (optional ``since``: a cursor, or
``now``; ``limit``; ``timeout`` in seconds) asks for what changed in the scope after
``since`` — entries ``{cursor, kind, id, scope, version, state, at, actor, position}``,
never content, exactly the lines of ``GET /v1/changes``.

* **message/stream**: a task whose artifact updates are the entries, one per entry, in
  feed order (each artifact's data part is the entry, its metadata the entry's cursor). It
  follows the feed — waiting for new changes — until ``limit`` entries were sent or
  ``timeout`` seconds passed, then completes with a status message whose data part is the
  trailer ``{"next", "more", "count"}``. Resuming with ``since`` = the cursor of the last
  entry handled (or ``next``) misses nothing and repeats nothing.
* **message/send**: one page as one message ``{"changes": [...], "next", "more",
  "count"}``, after waiting up to ``timeout`` (0 by default) for a first change.

Rights are those of ``GET /v1/changes``: the tenant is the key's, and the scope must be
one the key may read (``ChangeFeed.scopes``; a wildcard key must name its scopes).
Everything is checked before the task starts, so a refusal is one error message. While
a stream (or a waiting ``message/send``) runs, the key is asked again at least every
second (``entrypoints.stream_rights``): a revoked or expired key's task fails with
``invalid_api_key`` and nothing read after the revocation is sent.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
from a2a.helpers import new_data_part
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Task, TaskState, TaskStatus

from ai_memory.core.errors import InvalidInput, NotFound
from ai_memory.core.record import Limits, validate_scope
from ai_memory.service.access import Caller
from ai_memory.service.changes import (
    DEFAULT_LIMIT,
    DEFAULT_TIMEOUT,
    MAX_LIMIT,
    MAX_TIMEOUT,
    Change,
    ChangeFeed,
    ChangePage,
)

from ..stream_rights import Check, always_allowed, wait_checked

_ARGUMENTS = {"scope", "since", "limit", "timeout"}
_CURSOR_CHARS = 8192


@dataclass(frozen=True)
class ChangesRequest:
    """A checked ``memory.changes`` request: where to read and how far."""

    caller: Caller
    scopes: list[str] | None  # None: every scope of the tenant (the deployment's)
    since: str | None  # a cursor; None: from the start of the log
    limit: int
    timeout: float
    check: Check = always_allowed  # raises once the caller's key no longer holds


def changes_request(
    feed: ChangeFeed | None,
    limits: Limits,
    caller: Caller,
    args: Mapping[str, Any],
    *,
    streaming: bool,
    check: Check = always_allowed,
) -> ChangesRequest:
    """The arguments checked, the key's rights checked and ``since`` resolved — all
    before any event is sent, so that a refusal is a plain error message."""
    if feed is None:
        raise NotFound("this server serves no change feed", code="changes_unavailable")
    unknown = sorted(set(args) - _ARGUMENTS)
    if unknown:
        raise InvalidInput(unknown[0], "unknown", f"unknown argument; use {sorted(_ARGUMENTS)}")
    raw_scope = args.get("scope")
    if not isinstance(raw_scope, str):
        raise InvalidInput("scope", "required", "name the scope to follow, e.g. 'user:alice'")
    scope = validate_scope(raw_scope, limits)
    # The HTTP feed's check, asked of the feed: the caller must be allowed to read the scope.
    scopes = feed.scopes(caller, [scope])
    limit = args.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput("limit", "range", f"limit must be a whole number 1-{MAX_LIMIT}")
    timeout = args.get("timeout", DEFAULT_TIMEOUT if streaming else 0.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidInput("timeout", "type", "timeout must be a number of seconds")
    if not 0 <= timeout <= MAX_TIMEOUT:
        raise InvalidInput("timeout", "range", f"timeout must be 0-{MAX_TIMEOUT:g} seconds")
    since = args.get("since")
    if since is not None and (not isinstance(since, str) or not 0 < len(since) <= _CURSOR_CHARS):
        raise InvalidInput("since", "cursor", "since must be a cursor of memory.changes, or now")
    if since == "now":
        since = feed.start(caller)
    else:
        feed.positions(caller, since)  # a bad cursor is refused now, not inside a started task
    return ChangesRequest(caller, scopes, since, int(limit), float(timeout), check)


def _read(feed: ChangeFeed, request: ChangesRequest, after: str | None, limit: int) -> ChangePage:
    return feed.page(request.caller, request.scopes, since=after, limit=limit)


async def one_page(feed: ChangeFeed, request: ChangesRequest) -> dict[str, Any]:
    """The first page with something in it, or the last empty one after ``timeout``
    (the long-poll of ``GET /v1/changes``), as the ``message/send`` answer's data."""
    deadline = time.monotonic() + request.timeout
    page = await anyio.to_thread.run_sync(_read, feed, request, request.since, request.limit)
    while not page.changes:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        waited = wait_checked(feed, request.caller, page.next, remaining, request.check)
        if not page.more and not await waited:
            break
        page = await anyio.to_thread.run_sync(_read, feed, request, page.next, request.limit)
        await request.check()
    entries = [c.to_json() for c in page.changes]
    return {"changes": entries, "count": len(entries)} | page.trailer()


async def stream(
    feed: ChangeFeed,
    request: ChangesRequest,
    queue: EventQueue,
    task_id: str,
    context_id: str,
) -> dict[str, Any]:
    """Send the entries as artifact updates of a new task until ``limit`` or ``timeout``;
    the trailer for the final status."""
    await queue.enqueue_event(
        Task(
            id=task_id,
            context_id=context_id,
            status=TaskStatus(state=TaskState.TASK_STATE_WORKING),
        )
    )
    updater = TaskUpdater(queue, task_id, context_id)
    deadline = time.monotonic() + request.timeout
    cursor, sent, more = request.since, 0, False
    while True:
        page = await anyio.to_thread.run_sync(_read, feed, request, cursor, request.limit - sent)
        await request.check()  # nothing read after a revocation is sent
        for change in page.changes:
            await _send(updater, change, sent)
            sent += 1
        cursor, more = page.next, page.more
        remaining = deadline - time.monotonic()
        if sent >= request.limit or remaining <= 0:
            break
        # An empty page with ``more`` (a scan that met only other scopes) reads on at once.
        waited = wait_checked(feed, request.caller, page.next, remaining, request.check)
        if not page.more and not await waited:
            break
    # ``cursor`` is a page's ``next``, never None here: at least one page was read.
    return {"next": cursor, "more": more, "count": sent}


async def _send(updater: TaskUpdater, change: Change, n: int) -> None:
    # One artifact per entry: a client resumes from any one of them by its cursor.
    await updater.add_artifact(
        [new_data_part(change.to_json(), media_type="application/json")],
        artifact_id=f"change-{n}",
        name="change",
        metadata={"cursor": change.cursor},
    )
