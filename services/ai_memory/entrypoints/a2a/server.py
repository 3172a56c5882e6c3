"""ai-memory over A2A (Agent2Agent): memory and notes as skills another agent asks for.

Built on the official ``a2a-sdk`` (protocol 1.0, JSON-RPC binding). The gateway serves the
agent card at ``/.well-known/agent-card.json`` (its interface URL is the address the caller
used, so it is right behind any host name or proxy prefix) and the JSON-RPC endpoint at
``/a2a``. Skills: ``memory.write``, ``memory.search``, ``memory.forget``, ``notes.save``,
``notes.recall`` (``skills``), and ``memory.changes``, the change feed, which streams
(``changes``).

Each request runs one agent tool through the same ``AgentTools`` as MCP (same schemas, size
limits, secret refusal, confirmed forget, same services) and is answered by one agent message: a
data part with the tool's structured result and a short text part. A failure answers a
message whose data part is ``{"error": {"code", "message", ...}}`` with the stable code of
``core.errors``, whose text is ``Error <code>: <message>`` and whose metadata carries
``"error": <code>``; stack traces never reach the caller. Answers are messages, not tasks:
nothing is kept between requests (no task holds the content of a memory later forgotten),
so any gateway replica can answer any request. The one exception is a streamed
``memory.changes``: its entries (ids and cursors, never content) are a task's artifacts,
kept only for the stream's life and only visible to the same tenant and key.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.events.event_queue import Event
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import DefaultServerCallContextBuilder, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Message,
    Role,
    SendMessageRequest,
)
from a2a.utils.constants import (
    AGENT_CARD_WELL_KNOWN_PATH,
    PROTOCOL_VERSION_CURRENT,
    TransportProtocol,
)
from a2a.utils.errors import UnsupportedOperationError
from fastapi import FastAPI, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ai_memory import __version__
from ai_memory.core.access import AccessPrincipal
from ai_memory.core.errors import AiMemoryError
from ai_memory.service.access import Caller
from ai_memory.service.changes import ChangeFeed
from ai_memory.service.facade import Services

from ..agent_tools import INSTRUCTIONS, AgentTools, error_output
from ..stream_rights import Check, always_allowed
from . import changes
from .skills import A2A_ONLY, SKILLS, SkillCall, parse_request, summary

logger = logging.getLogger(__name__)
CallerOf = Callable[[Request], Caller]
RightsOf = Callable[[Request], Check]  # the request's "does its key still hold?"
Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]
JSON = "application/json"
_CALLER = "ai_memory.caller"
_STREAMING = "ai_memory.streaming"
_RIGHTS = "ai_memory.rights"


def agent_card(url: str, tools: AgentTools) -> AgentCard:
    """The card for an agent reachable at ``url`` (the JSON-RPC endpoint)."""
    skills = []
    for skill_id, (tool, name, how, examples) in SKILLS.items():
        spec = tools.specs.get(tool)
        described = A2A_ONLY[tool] if spec is None else spec.description
        skills.append(
            AgentSkill(
                id=skill_id,
                name=name,
                description=f"{described} {how}",
                tags=["memory" if skill_id.startswith("memory.") else "notes"],
                examples=examples,
                input_modes=[JSON, "text/plain"] if skill_id == "memory.search" else [JSON],
                output_modes=[JSON, "text/plain"],
            )
        )
    return AgentCard(
        name="ai-memory",
        description=INSTRUCTIONS.replace("_", "."),  # the skill ids, not the MCP tool names
        supported_interfaces=[
            AgentInterface(
                url=url,
                protocol_binding=TransportProtocol.JSONRPC.value,
                protocol_version=PROTOCOL_VERSION_CURRENT,
            )
        ],
        provider=AgentProvider(organization="ai-memory", url=url.removesuffix(A2aHttp.PATH)),
        version=__version__,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=[JSON, "text/plain"],
        default_output_modes=[JSON, "text/plain"],
        skills=skills,
    )


def answer(call: SkillCall | None, data: dict[str, Any], text: str, **meta: str) -> Message:
    """The agent's reply: the structured result as a data part, plus a short text."""
    metadata = ({"skill": call.skill} if call is not None else {}) | meta
    return Message(
        role=Role.ROLE_AGENT,
        parts=[new_data_part(data, media_type=JSON), new_text_part(text)],
        metadata=metadata,
    )


def failure(call: SkillCall | None, error: AiMemoryError) -> Message:
    """The reply to a failed request, shaped like the MCP ``isError`` result."""
    output = error_output(error)
    return answer(call, output.data, output.text_blocks()[0], error=error.code)


class MemoryAgentExecutor(AgentExecutor):
    """Runs the requested skill with ``AgentTools`` and replies with one message."""

    def __init__(self, tools: AgentTools, feed: ChangeFeed | None = None) -> None:
        self.tools = tools
        self.feed = feed

    def parse(self, context: RequestContext) -> SkillCall:
        """The skill call ``context``'s message asks for (``InvalidInput`` otherwise)."""
        message = context.message
        if message is None:
            return parse_request([], [], context.metadata)
        return parse_request(
            get_data_parts(message.parts),
            get_text_parts(message.parts),
            dict(message.metadata.items()),  # top level is enough: only 'skill' is read
            context.metadata,
        )

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Parse, run the tool in a worker thread (the services block), reply."""
        caller: Caller = context.call_context.state[_CALLER]
        call: SkillCall | None = None
        try:
            call = self.parse(context)
            if call.skill == "memory.changes":
                reply = await self.changes(context, event_queue, call, caller)
                if reply is None:
                    return  # streamed: the task's final status was the answer
            else:
                output = await anyio.to_thread.run_sync(
                    self.tools.call, caller, call.tool, call.arguments
                )
                reply = answer(call, output.data, summary(call.skill, output.data))
        except AiMemoryError as e:
            reply = failure(call, e)
        except Exception:
            logger.exception("A2A skill %s failed", call.skill if call else "?")
            reply = failure(call, AiMemoryError("internal error; the server log has details"))
        reply.message_id = f"reply-{context.task_id}"
        if context.context_id:
            reply.context_id = context.context_id
        await event_queue.enqueue_event(reply)

    async def changes(
        self,
        context: RequestContext,
        queue: EventQueue,
        call: SkillCall,
        caller: Caller,
    ) -> Message | None:
        """``memory.changes``: one page as a message, or (streaming) a task of entries
        completed with the trailer (None: the answer was streamed)."""
        state = context.call_context.state
        streaming = bool(state.get(_STREAMING))
        check = state.get(_RIGHTS, always_allowed)
        limits = self.tools.service.limits
        request = await anyio.to_thread.run_sync(
            lambda: changes.changes_request(
                self.feed, limits, caller, call.arguments, streaming=streaming, check=check
            )
        )
        assert self.feed is not None  # changes_request refuses a server without a feed
        if not streaming:
            data = await changes.one_page(self.feed, request)
            return answer(call, data, summary(call.skill, data))
        task_id, context_id = str(context.task_id), str(context.context_id)
        updater = TaskUpdater(queue, task_id, context_id)
        try:
            trailer = await changes.stream(self.feed, request, queue, task_id, context_id)
            done = answer(call, trailer, summary(call.skill, trailer))
        except AiMemoryError as e:  # once the task exists, a failure must end it, not a message
            done = failure(call, e)
        except Exception:
            logger.exception("A2A memory.changes stream failed")
            done = failure(call, AiMemoryError("internal error; the server log has details"))
        done.message_id = f"reply-{task_id}"
        done.task_id, done.context_id = task_id, context_id
        if "error" in done.metadata:
            await updater.failed(done)
        else:
            await updater.complete(done)
        return None

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Nothing runs long enough to cancel: every request is answered at once."""
        raise UnsupportedOperationError(message="requests are answered at once; nothing to cancel")


class _ContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's call context plus the caller (the gateway's ``caller_of``) and how to
    ask whether its key still holds (``rights_of``: a stream re-checks it)."""

    def __init__(self, caller_of: CallerOf, rights_of: RightsOf | None = None) -> None:
        self.caller_of = caller_of
        self.rights_of = rights_of

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state[_CALLER] = self.caller_of(request)
        if self.rights_of is not None:
            context.state[_RIGHTS] = self.rights_of(request)
        return context


def _owner(context: ServerCallContext) -> str:
    """Whose tasks these are: the tenant and key, so a streamed task is seen by no one
    else (the SDK's default owner, the HTTP user, is the same for every key)."""
    caller = context.state.get(_CALLER)
    key = caller.key_id if isinstance(caller, AccessPrincipal) else "-"
    return f"{getattr(caller, 'tenant', '-')}/{key}"


class _Handler(DefaultRequestHandler):
    """The SDK's handler, telling the executor a request is streamed (``memory.changes``
    answers a page to ``message/send`` and follows the feed on ``message/stream``), and
    dropping a streamed task once its stream ended: nothing outlives the request."""

    async def on_message_send_stream(  # type: ignore[override]
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncIterator[Event]:
        context.state[_STREAMING] = True
        task_ids: set[str] = set()
        try:
            async for event in super().on_message_send_stream(params, context):
                task_id = getattr(event, "task_id", "") or getattr(event, "id", "")
                if task_id and not isinstance(event, Message):
                    task_ids.add(str(task_id))
                yield event
        finally:
            for task_id in task_ids:
                await self.task_store.delete(task_id, context)


class A2aHttp:
    """A2A for the gateway: route it with ``mount`` and run ``lifespan`` around the app's."""

    PATH = "/a2a"
    CARD_PATH = AGENT_CARD_WELL_KNOWN_PATH

    def __init__(
        self, services: Services, caller_of: CallerOf, rights_of: RightsOf | None = None
    ) -> None:
        self.tools = AgentTools(services)
        self.caller_of = caller_of
        self.rights_of = rights_of
        # The handler needs a task store; replies are messages, so it stays empty.
        self.handler = _Handler(
            agent_executor=MemoryAgentExecutor(self.tools, services.changes),
            task_store=InMemoryTaskStore(owner_resolver=_owner),
            agent_card=agent_card(f"http://localhost{self.PATH}", self.tools),
        )

    def lifespan(self, inner: Lifespan) -> Lifespan:
        """``inner`` wrapped so the A2A handler drains its work on shutdown."""

        @asynccontextmanager
        async def run(app: FastAPI) -> AsyncIterator[None]:
            try:
                async with inner(app):
                    yield
            finally:
                await self.handler.aclose()

        return run

    def card_for(self, request: Request) -> dict[str, Any]:
        """The agent card as JSON, its URL the address this request came to."""
        base = str(request.base_url).rstrip("/")
        return agent_card_to_dict(agent_card(base + self.PATH, self.tools))

    def mount(self, app: FastAPI) -> None:
        """Route the agent card (GET) and the JSON-RPC endpoint (POST ``/a2a``)."""

        async def get_card(request: Request) -> JSONResponse:
            return JSONResponse(self.card_for(request))

        app.router.routes.append(Route(self.CARD_PATH, get_card, methods=["GET"]))
        routes = create_jsonrpc_routes(
            self.handler,
            rpc_url=self.PATH,
            context_builder=_ContextBuilder(self.caller_of, self.rights_of),
        )
        app.router.routes.extend(routes)
