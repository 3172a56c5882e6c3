"""ai-memory over MCP: memory and notes as tools an agent calls (docs/API.md, "MCP").

Tools: ``memory_write``, ``memory_search``, ``memory_read``, ``memory_forget``,
``memory_export``, ``notes_save``, ``notes_recall`` — the agent tools
(``entrypoints.agent_tools``, shared with A2A) over the services facade; this module only
lists them and turns their answers into MCP results. Resources: the change feed of a
scope, ``ai-memory://changes/{scope}``, read anywhere and subscribed to over stdio
(``change_resources``).

Errors follow the SDK's conventions: a failing tool answers a result with ``isError`` whose
text is ``Error <code>: <message>`` and whose structured content is
``{"error": {"code", "message", ...}}`` with the stable code of ``core.errors``; an unknown
tool name is a protocol error (``MCPError``, invalid params). Stack traces never reach
the client.

Transports: stdio (``ai-memory mcp``, ``serve_stdio``) and streamable HTTP mounted on the
gateway at ``/mcp`` (``McpHttp``; stateless JSON responses, so any gateway replica can
answer any request).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from starlette.routing import Route

from ai_memory import __version__
from ai_memory.core.access import AccessPrincipal
from ai_memory.core.errors import AiMemoryError
from ai_memory.service.access import Caller, Embedded
from ai_memory.service.acting import acting_as
from ai_memory.service.facade import Services

from ..agent_tool_specs import ToolSpec
from ..agent_tools import INSTRUCTIONS, AgentTools, ToolOutput, error_output
from .change_resources import ChangeResources

logger = logging.getLogger(__name__)
CallerOf = Callable[[Request], Caller]
SessionCaller = Callable[[], Caller]
_OPEN = Embedded()  # no key in force: the deployment itself, tenant ``default``


def error_result(error: AiMemoryError) -> CallToolResult:
    """An ``isError`` result carrying the error's stable code and readable message."""
    output = error_output(error)
    content: list[Any] = [TextContent(text=t) for t in output.text_blocks()]
    return CallToolResult(content=content, structured_content=output.data, is_error=True)


def tool_result(output: ToolOutput) -> CallToolResult:
    content: list[Any] = [TextContent(text=t) for t in output.text_blocks()]
    return CallToolResult(content=content, structured_content=output.data)


def _tool(spec: ToolSpec) -> Tool:
    return Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def build_server(
    services: Services,
    caller_of: CallerOf | None = None,
    session_caller: SessionCaller | None = None,
) -> Server[Any]:
    """The MCP server over the services facade; ``caller_of`` maps an HTTP request to its
    caller (the key door's), which every service call is judged as. Over stdio there is
    no request: ``session_caller`` answers the key the process was started with (asked
    again on every call, so a revocation ends the session's rights too); without either,
    the deployment itself (open development mode, tenant ``default``)."""
    tools = AgentTools(services)
    listed = ListToolsResult(tools=[_tool(s) for s in tools.specs.values()])

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return listed

    async def identity(ctx: ServerRequestContext[Any]) -> Caller:
        """Who calls: the HTTP request's caller, or the stdio session's."""
        request = ctx.request
        if isinstance(request, Request):
            return _OPEN if caller_of is None else caller_of(request)
        if session_caller is None:
            return _OPEN
        return await anyio.to_thread.run_sync(session_caller)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        if params.name not in tools.specs:
            names = ", ".join(tools.specs)
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}; tools: {names}")
        try:
            caller = await identity(ctx)
            # The services block (SQLite, embedding, waiting for projections): use a thread.
            output = await anyio.to_thread.run_sync(
                _call_as, tools, caller, params.name, params.arguments
            )
        except AiMemoryError as e:
            return error_result(e)
        except Exception:
            logger.exception("MCP tool %s failed", params.name)
            return error_result(AiMemoryError("internal error; the server log has details"))
        return tool_result(output)

    changes = ChangeResources(services, identity)

    def input_schema(name: str) -> Mapping[str, Any] | None:
        spec = tools.specs.get(name)
        return None if spec is None else spec.input_schema

    return Server(
        "ai-memory",
        version=__version__,
        title="ai-memory",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resource_templates=changes.list_templates,
        on_read_resource=changes.read,
        on_subscribe_resource=changes.subscribe,
        on_unsubscribe_resource=changes.unsubscribe,
    )


def _call_as(
    tools: AgentTools, caller: Caller, name: str, arguments: Mapping[str, Any] | None
) -> ToolOutput:
    """Run a tool with the key recorded as the actor of every event it causes (over HTTP
    the key door sets it for the request; stdio has no door)."""
    if not isinstance(caller, AccessPrincipal):
        return tools.call(caller, name, arguments)
    with acting_as(caller.actor):
        return tools.call(caller, name, arguments)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one MCP session on stdin/stdout until the client closes stdin (EOF)."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class McpHttp:
    """Streamable HTTP MCP for the gateway: route it at ``/mcp`` and run ``lifespan``."""

    PATH = "/mcp"

    def __init__(
        self,
        services: Services,
        caller_of: CallerOf,
        security: TransportSecuritySettings | None = None,
    ) -> None:
        self.server = build_server(services, caller_of)
        # Stateless with JSON answers: no per-session state pinned to one replica.
        # ``security``: the transport's own Host/Origin checks (DNS-rebinding protection).
        self.manager = StreamableHTTPSessionManager(
            app=self.server, stateless=True, json_response=True, security_settings=security
        )

    def lifespan(self, _app: FastAPI) -> AbstractAsyncContextManager[None]:
        """The app's lifespan: the session manager's task group runs while the app does."""
        return self.manager.run()

    def mount(self, app: FastAPI) -> None:
        """Route ``/mcp`` (POST; GET/DELETE answer as the transport specifies)."""
        # An ASGI app as endpoint (not a function): Starlette hands it the raw request.
        endpoint = StreamableHTTPASGIApp(self.manager)
        route = Route(self.PATH, endpoint, methods=["GET", "POST", "DELETE"])
        app.router.routes.append(route)
