"""``GET /v1/changes``: the change feed (``service.changes``) as NDJSON long-poll or SSE.

* **NDJSON** (the default): one entry per line, then a trailer line
  ``{"next": cursor, "more": bool}``. With ``timeout`` > 0 and nothing new, the answer
  waits up to that many seconds for a change (long-poll); ``more`` true: read again at
  once. Continue with ``since=next``.
* **Server-Sent Events** (``Accept: text/event-stream``): one ``message`` per entry,
  ``id:`` = the entry's cursor, ``data:`` = the entry; a ``: heartbeat`` comment after
  ``timeout`` seconds without a change (15 by default). A reconnecting ``EventSource``
  sends ``Last-Event-ID``, which wins over ``since``: the stream resumes after the last
  entry the client received, with no gap and no duplicate.

``since=now`` starts at the log's head (only what comes next); without ``since`` the
feed starts at the beginning of the log. A key limited to some scopes sees only the
scopes it may read, decided exactly as for a search or a listing (``service.access.readable``):
a wildcard key must name its scopes.

Rights hold only as long as the key: a long-poll or an SSE stream asks the door again at
least every second while it waits (``entrypoints.stream_rights``). A long-poll whose key
was revoked answers 401; an SSE stream ends with an ``error`` event carrying the problem
(``invalid_api_key``, or ``api_key_required`` once keys came into force), and a
reconnecting ``EventSource`` then meets the 401.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ai_memory.core.errors import AiMemoryError, InvalidInput, NotFound, Unauthenticated
from ai_memory.core.record import validate_scope
from ai_memory.service.access import Caller
from ai_memory.service.changes import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_TIMEOUT,
    ChangeFeed,
    ChangePage,
)
from ai_memory.service.listing import MAX_LIST_SCOPES
from ai_memory.service.memory_service import MemoryService
from ai_memory.wire import constraints as wc

from ..stream_rights import Check, wait_checked
from . import openapi_streams, problems
from .auth import rights_of

NDJSON = "application/x-ndjson"
EVENT_STREAM = "text/event-stream"
SSE_HEARTBEAT = 15.0
_CURSOR_CHARS = 8192

_DOC: dict[int | str, dict[str, Any]] = {
    200: openapi_streams.CHANGES,
    404: {"description": "changes_unavailable: this server serves no change feed"},
    403: {"description": "scope_forbidden / scope_required (a wildcard key)"},
    422: {"description": "A bad parameter; `field` names it (since, limit, timeout, scope)"},
}


def router(
    feed: ChangeFeed | None, service: MemoryService, caller_of: Callable[[Request], Caller]
) -> APIRouter:
    api = APIRouter(tags=["changes"])

    @api.get(
        "/v1/changes",
        operation_id="listChanges",
        summary="Follow the change feed (NDJSON long-poll or Server-Sent Events)",
        response_class=StreamingResponse,
        responses=_DOC,
    )
    async def changes(
        request: Request,
        scope: Annotated[
            list[str] | None,
            Query(
                description="Only these scopes (repeatable). Without it: every scope the "
                "key may read.",
                json_schema_extra={"maxItems": MAX_LIST_SCOPES, "items": wc.scope()},
            ),
        ] = None,
        since: Annotated[
            str | None,
            Query(
                min_length=1,
                max_length=_CURSOR_CHARS,
                description="Continue after this cursor (an entry's cursor or a trailer's "
                "next); `now` for only what comes next; from the start without it.",
            ),
        ] = None,
        limit: Annotated[
            int, Query(ge=1, le=MAX_LIMIT, description="At most this many entries per page.")
        ] = DEFAULT_LIMIT,
        timeout: Annotated[
            float | None,
            Query(
                ge=0,
                le=MAX_TIMEOUT,
                description="NDJSON: seconds to wait for a change when there is none "
                "(long-poll; default 0). SSE: seconds between heartbeats (default 15).",
            ),
        ] = None,
        last_event_id: Annotated[
            str | None,
            Header(
                max_length=_CURSOR_CHARS,
                description="SSE resume: the id of the last event received (wins over since).",
            ),
        ] = None,
    ) -> Response:
        if feed is None:
            raise NotFound("this server serves no change feed", code="changes_unavailable")
        if scope is not None and len(scope) > MAX_LIST_SCOPES:
            raise InvalidInput("scope", "max_items", f"at most {MAX_LIST_SCOPES} scopes")
        scopes = [validate_scope(s, service.limits) for s in scope] if scope else None
        caller = caller_of(request)
        allowed = await run_in_threadpool(feed.scopes, caller, scopes)
        sse = EVENT_STREAM in (request.headers.get("accept") or "")
        field, cursor = ("since", since)
        if sse and last_event_id:
            field, cursor = ("Last-Event-ID", last_event_id)
        if cursor == "now":
            cursor = await run_in_threadpool(feed.start, caller)
        else:  # refuse a bad cursor now, as problem+json, not inside a started stream
            await run_in_threadpool(feed.positions, caller, cursor, field)

        def read(after: str | None) -> ChangePage:
            return feed.page(caller, allowed, since=after, limit=limit, field=field)

        check = rights_of(request).check
        if sse:
            heartbeat = SSE_HEARTBEAT if timeout is None else max(timeout, 0.05)
            return StreamingResponse(
                _sse(feed, caller, read, cursor, heartbeat, check),
                media_type=EVENT_STREAM,
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        page = await _long_poll(feed, caller, read, cursor, timeout or 0.0, check)
        lines = [json.dumps(c.to_json()) for c in page.changes]
        lines.append(json.dumps(page.trailer()))
        return Response("\n".join(lines) + "\n", media_type=NDJSON)

    return api


async def _long_poll(
    feed: ChangeFeed,
    who: Caller,
    read: Callable[[str | None], ChangePage],
    cursor: str | None,
    wait: float,
    check: Check,
) -> ChangePage:
    """The first page with something in it, or the last empty one after ``wait`` s. An
    empty page with ``more`` (a Kafka scan that met only other scopes) is read on only
    until the deadline: one request never walks the whole log. A page read after a wait
    is answered only if the key still holds (``check`` raises: a 401)."""
    deadline = time.monotonic() + wait
    page = await run_in_threadpool(read, cursor)
    while not page.changes:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return page
        if not page.more and not await wait_checked(feed, who, page.next, remaining, check):
            return page
        page = await run_in_threadpool(read, page.next)
        await check()
    return page


async def _sse(
    feed: ChangeFeed,
    who: Caller,
    read: Callable[[str | None], ChangePage],
    cursor: str | None,
    heartbeat: float,
    check: Check,
) -> AsyncIterator[bytes]:
    """Entries as they come, until the client leaves (its disconnect cancels this) or
    the key no longer holds (a last ``error`` event says why)."""
    yield b"retry: 1000\n\n"
    try:
        while True:
            page = await run_in_threadpool(read, cursor)
            await check()  # nothing read after a revocation is sent
            if page.changes:
                yield b"".join(_event(c.cursor, c.to_json()) for c in page.changes)
            cursor = page.next
            if not page.more and not await wait_checked(feed, who, cursor, heartbeat, check):
                yield b": heartbeat\n\n"
    except Unauthenticated as e:
        yield _refusal(e)


def _refusal(error: AiMemoryError) -> bytes:
    """The stream's last event: the problem a new request would be answered with."""
    body = json.loads(bytes(problems.from_domain(error).body))
    return f"event: error\ndata: {json.dumps(body)}\n\n".encode()


def _event(event_id: str, data: dict[str, object]) -> bytes:
    return f"id: {event_id}\ndata: {json.dumps(data)}\n\n".encode()
