"""The change feed as MCP resources: ``ai-memory://changes/{scope}``.

* ``resources/read`` answers a page of the scope's changes as NDJSON (entries, then the
  ``{"next", "more"}`` trailer — the lines of ``GET /v1/changes``); ``?since=<cursor>``
  in the URI continues after a cursor.
* ``resources/subscribe`` follows the scope's feed from now on and sends
  ``notifications/resources/updated`` for the URI whenever something changed in it (the
  client then reads it with ``since``). Notifications need a session that lives between
  requests, so subscriptions are served over stdio (``ai-memory mcp``); the gateway's
  ``/mcp`` is stateless and refuses them (a client polls ``resources/read`` there, or
  uses ``GET /v1/changes``).

Every read and every notification is checked against the caller's key exactly as the
HTTP feed is (``ChangeFeed.scopes``: the scope must be readable by the key), re-checked
before each notification and at least every second while the follower waits
(``entrypoints.stream_rights``): a revoked key's subscription ends within the key cache's
TTL plus a second, with a ``notifications/message`` (level ``warning``) saying why.
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from mcp.server import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    EmptyResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    ResourceTemplate,
    SubscribeRequestParams,
    TextResourceContents,
    UnsubscribeRequestParams,
)

from ai_memory.core.errors import AiMemoryError
from ai_memory.core.record import validate_scope
from ai_memory.service.access import Caller
from ai_memory.service.changes import ChangeFeed
from ai_memory.service.facade import Services

from ..stream_rights import wait_checked

logger = logging.getLogger(__name__)
PREFIX = "ai-memory://changes/"
NDJSON = "application/x-ndjson"
_WAIT = 30.0  # one wait of a follower (its key is asked again every second inside it)
Identity = Callable[[ServerRequestContext[Any]], Awaitable[Caller]]


class ChangeResources:
    def __init__(self, services: Services, identity: Identity) -> None:
        self.feed: ChangeFeed | None = services.changes
        self.limits = services.memory.limits
        self.identity = identity
        self._followers: dict[tuple[int, str], asyncio.Task[None]] = {}

    async def list_templates(
        self, _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        template = ResourceTemplate(
            name="changes",
            title="Changes of a scope",
            uri_template=PREFIX + "{scope}",
            description="What changed in a scope (written, state_changed, forgotten; never "
            "content) as NDJSON; subscribe (stdio) to be notified of new changes.",
            mime_type=NDJSON,
        )
        return ListResourceTemplatesResult(resource_templates=[template])

    async def read(
        self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        feed, scope, since = self._parse(str(params.uri))
        caller = await self.identity(ctx)
        await asyncio.to_thread(_readable, feed, caller, scope)
        try:
            page = await asyncio.to_thread(feed.page, caller, [scope], since=since)
        except AiMemoryError as e:
            raise MCPError(INVALID_PARAMS, str(e)) from None
        lines = [json.dumps(c.to_json()) for c in page.changes] + [json.dumps(page.trailer())]
        text = "\n".join(lines) + "\n"
        return ReadResourceResult(
            contents=[TextResourceContents(uri=str(params.uri), mime_type=NDJSON, text=text)]
        )

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        if ctx.request is not None:  # a stateless HTTP request: no session to notify later
            raise MCPError(
                INVALID_REQUEST,
                "subscriptions need a session: use ai-memory mcp (stdio), or GET /v1/changes",
            )
        feed, scope, _ = self._parse(str(params.uri))
        caller = await self.identity(ctx)
        await asyncio.to_thread(_readable, feed, caller, scope)
        key = (id(ctx.session), str(params.uri))
        if key not in self._followers:
            task = asyncio.create_task(self._follow(ctx, feed, scope, str(params.uri)))
            self._followers[key] = task
            task.add_done_callback(lambda _t: self._followers.pop(key, None))
        return EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        task = self._followers.pop((id(ctx.session), str(params.uri)), None)
        if task is not None:
            task.cancel()
        return EmptyResult()

    async def _follow(
        self, ctx: ServerRequestContext[Any], feed: ChangeFeed, scope: str, uri: str
    ) -> None:
        session: ServerSession = ctx.session

        async def check() -> None:
            await self.identity(ctx)  # raises once the key no longer holds

        try:
            caller = await self.identity(ctx)
            cursor = await asyncio.to_thread(feed.start, caller)
            while True:
                await wait_checked(feed, caller, cursor, _WAIT, check)
                caller = await self.identity(ctx)  # revoked: the follower ends
                page = await asyncio.to_thread(feed.page, caller, [scope], since=cursor)
                cursor = page.next
                if page.changes:
                    await session.send_resource_updated(uri)
        except asyncio.CancelledError:
            raise
        except AiMemoryError as e:  # the key lost its rights: say so, then stop
            logger.info("MCP change subscription to %s ended: %s", uri, e.code)
            message = f"subscription to {uri} ended: {e.code}: {e}"
            try:
                with warnings.catch_warnings():  # logging, like subscriptions: 2025 protocol
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await session.send_log_message("warning", message, logger="ai-memory")
            except Exception:  # the session may be gone too; nothing left to tell
                logger.debug("could not tell the MCP session why %s ended", uri, exc_info=True)
        except Exception as e:  # the session closed
            logger.info("MCP change subscription to %s ended: %s", uri, type(e).__name__)

    def _parse(self, uri: str) -> tuple[ChangeFeed, str, str | None]:
        if self.feed is None:
            raise MCPError(INVALID_REQUEST, "this server serves no change feed")
        if not uri.startswith(PREFIX):
            raise MCPError(
                INVALID_PARAMS, f"unknown resource {uri!r}; resources: {PREFIX}{{scope}}"
            )
        parts = urlsplit(uri)
        try:  # ai-memory://changes/<scope>: the host is "changes", the path the scope
            scope = validate_scope(unquote(parts.path.lstrip("/")), self.limits)
        except AiMemoryError as e:
            raise MCPError(INVALID_PARAMS, str(e)) from None
        since = parse_qs(parts.query).get("since", [None])[0]
        return self.feed, scope, since


def _readable(feed: ChangeFeed, caller: Caller, scope: str) -> None:
    """Refuse a subscription the caller may not read, as an MCP error (the feed judges)."""
    try:
        feed.scopes(caller, [scope])
    except AiMemoryError as e:
        raise MCPError(INVALID_PARAMS, f"{e.code}: {e.message}") from None
