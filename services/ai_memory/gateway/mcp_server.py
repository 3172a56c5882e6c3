"""ai-memory over MCP: memory and notes as tools an agent calls (seed 000 §4.2, seed 003).

Tools: ``memory_write``, ``memory_search``, ``memory_read``, ``memory_forget``,
``memory_export``, ``notes_save``, ``notes_recall``. They call the same ``MemoryService`` /
``NotesService`` as the HTTP API; this module only checks arguments against the listed
schemas (``mcp_tools``), applies the guard rails (no secrets stored, size limits, confirmed
deletes) and shapes results.

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

import json
import logging
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
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
from ai_memory.bootstrap import Container
from ai_memory.core.errors import AiMemoryError, InvalidInput, RetryableError
from ai_memory.core.record import DEFAULT_TENANT, validate_content, validate_id, validate_scope
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.notes import NoteRules, NotesService
from ai_memory.service.transfer import export_lines

from .mcp_tools import MAX_EXPORT_BYTES, ToolSpec, cap_lines, check_arguments, refuse_secrets
from .mcp_tools import tool_specs as _tool_specs
from .notes_routes import page_json

logger = logging.getLogger(__name__)
TenantOf = Callable[[Request], str]
INSTRUCTIONS = (
    "Long-term memory shared across sessions and agents. Search before you answer "
    "questions about the user or earlier work; write only durable, self-contained facts, "
    "preferences, task outcomes and skills (never credentials); forget only when asked, "
    "with confirm: true. notes_save/notes_recall are your own small notebook."
)


@dataclass
class ToolOutput:
    """A tool's answer: structured data, and the text blocks shown to the model."""

    data: dict[str, Any]
    texts: list[str] = field(default_factory=list)

    def result(self) -> CallToolResult:
        texts = self.texts or [json.dumps(self.data, ensure_ascii=False)]
        content: list[Any] = [TextContent(text=t) for t in texts]
        return CallToolResult(content=content, structured_content=self.data)


def error_result(error: AiMemoryError) -> CallToolResult:
    """An ``isError`` result carrying the error's stable code and readable message."""
    detail: dict[str, Any] = {"code": error.code, "message": error.message}
    if isinstance(error, InvalidInput):
        detail |= {"field": error.field, "rule": error.rule}
    if isinstance(error, RetryableError):
        detail["retry_after"] = error.retry_after
    text = f"Error {error.code}: {error.message}"
    if isinstance(error, RetryableError):
        text += f" (temporary; retry after {error.retry_after:g}s)"
    return CallToolResult(
        content=[TextContent(text=text)], structured_content={"error": detail}, is_error=True
    )


class MemoryTools:
    """The tools as plain blocking calls over the container's services (thread-safe)."""

    def __init__(self, container: Container, rules: NoteRules | None = None) -> None:
        self.service = container.service
        self.notes = container.notes if rules is None else NotesService(self.service, rules)
        self.specs = {s.name: s for s in _tool_specs(self.service.limits, self.notes.rules)}
        self._impl: dict[str, Callable[[str, Mapping[str, Any]], ToolOutput]] = {
            "memory_write": self.memory_write,
            "memory_search": self.memory_search,
            "memory_read": self.memory_read,
            "memory_forget": self.memory_forget,
            "memory_export": self.memory_export,
            "notes_save": self.notes_save,
            "notes_recall": self.notes_recall,
        }

    def call(self, tenant: str, name: str, arguments: Mapping[str, Any] | None) -> ToolOutput:
        """Check ``arguments`` against the tool's schema, then run it."""
        args = dict(arguments or {})
        if name == "memory_forget":
            args.setdefault("confirm", False)  # a missing confirm is refused with the how-to
        check_arguments(self.specs[name].input_schema, args)
        return self._impl[name](tenant, args)

    def memory_write(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """Validate size first, refuse secrets, then write and wait until searchable."""
        validate_content(args["content"], self.service.limits)
        refuse_secrets({k: args.get(k) for k in ("content", "tags", "scope", "source_agent", "id")})
        keys = ("type", "content", "scope", "source_agent", "tags", "ttl")
        body = {k: args[k] for k in keys if k in args}
        result = self.service.write(tenant, body, memory_id=args.get("id"), wait=True)
        status = "created" if result.created else "updated" if result.changed else "unchanged"
        return ToolOutput({"id": result.record.id, "status": status, **result.to_json()})

    def memory_search(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """Hybrid search with reranking, as ``POST /v1/memories/search``."""
        request = SearchRequest.parse(args, self.service.limits)
        hits = self.service.search(tenant, request)
        results = [
            {
                "id": h.stored.record.id,
                "type": h.stored.record.type.value,
                "scope": h.stored.record.scope,
                "content": h.stored.record.content,
                "tags": list(h.stored.record.tags),
                "created_at": h.stored.to_json()["created_at"],
                "score": round(h.score, 4),
            }
            for h in hits
        ]
        return ToolOutput({"query": request.query, "count": len(results), "results": results})

    def memory_read(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """One memory by id (``memory_not_found`` / ``memory_forgotten`` otherwise)."""
        memory_id = validate_id(args["id"], self.service.limits)
        return ToolOutput(self.service.get(tenant, memory_id).to_json())

    def memory_forget(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """Delete only with ``confirm: true``; otherwise show what would be deleted."""
        memory_id = validate_id(args["id"], self.service.limits)
        if args["confirm"] is not True:
            record = self.service.get(tenant, memory_id).record  # not found / gone: say so
            preview = record.content if len(record.content) <= 200 else record.content[:200] + "…"
            raise InvalidInput(
                "confirm",
                "must_be_true",
                f"nothing was deleted: memory_forget is permanent and needs confirm: true. "
                f"Memory {memory_id!r} ({record.type.value}, scope {record.scope}) says: "
                f"{preview!r}. If this is the memory to forget, call memory_forget again with "
                f'{{"id": "{memory_id}", "confirm": true}}.',
                code="confirmation_required",
            )
        reason = args.get("reason", "user_request")
        result = self.service.delete(tenant, memory_id, actor="mcp", reason=reason, wait=True)
        return ToolOutput(
            {
                "id": result.memory_id,
                "forgotten": True,
                "already_forgotten": result.already_forgotten,
                "position": result.position,
            }
        )

    def memory_export(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """The scope's NDJSON bundle, cut at ``MAX_EXPORT_BYTES`` with a note."""
        scope = validate_scope(args["scope"], self.service.limits)
        text, lines, truncated = cap_lines(export_lines(self.service, tenant, [scope]))
        data: dict[str, Any] = {"scope": scope, "lines": lines, "truncated": truncated}
        texts = [text]
        if truncated:
            data["note"] = (
                f"TRUNCATED: the bundle is larger than {MAX_EXPORT_BYTES} bytes; only the "
                f"first {lines} lines are shown and the checksummed trailer is missing, so "
                "this text is not a complete bundle. Export the full bundle over HTTP "
                f"(GET /v1/export?scope={scope}) or with `ai-memory export --scope {scope}`."
            )
            texts.append(data["note"])
        return ToolOutput(data, texts)

    def notes_save(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """Save / replace / turn off a note, as ``PUT /v1/notes``."""
        refuse_secrets({"note": args["note"], "topic": args["topic"]})
        r = self.notes.save(tenant, args["agent"], args["topic"], args["note"])
        return ToolOutput(
            {
                "id": r.id,
                "agent": r.agent,
                "topic": list(r.tags),
                "status": r.status,
                "version": r.version,
                "notes_used": r.notes_used,
                "quota": self.notes.rules.quota,
            }
        )

    def notes_recall(self, tenant: str, args: Mapping[str, Any]) -> ToolOutput:
        """Ranked notes for a topic plus all topics, as ``GET /v1/notes``."""
        page = self.notes.recall(tenant, args["agent"], args.get("topic"))
        return ToolOutput(page_json(page, self.notes.rules.quota))


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


def build_server(container: Container, tenant_of: TenantOf | None = None) -> Server[Any]:
    """The MCP server over ``container``; ``tenant_of`` maps an HTTP request to a tenant
    (stdio, and requests it cannot see, use the default tenant)."""
    tools = MemoryTools(container)
    listed = ListToolsResult(tools=[_tool(s) for s in tools.specs.values()])

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        if params.name not in tools.specs:
            names = ", ".join(tools.specs)
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}; tools: {names}")
        request = ctx.request
        tenant = (
            tenant_of(request)
            if tenant_of is not None and isinstance(request, Request)
            else DEFAULT_TENANT
        )
        try:
            # The services block (SQLite, embedding, waiting for projections): use a thread.
            output = await anyio.to_thread.run_sync(
                tools.call, tenant, params.name, params.arguments
            )
        except AiMemoryError as e:
            return error_result(e)
        except Exception:
            logger.exception("MCP tool %s failed", params.name)
            return error_result(AiMemoryError("internal error; the server log has details"))
        return output.result()

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
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one MCP session on stdin/stdout until the client closes stdin (EOF)."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class McpHttp:
    """Streamable HTTP MCP for the gateway: route it at ``/mcp`` and run ``lifespan``."""

    PATH = "/mcp"

    def __init__(
        self,
        container: Container,
        tenant_of: TenantOf,
        security: TransportSecuritySettings | None = None,
    ) -> None:
        self.server = build_server(container, tenant_of)
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
