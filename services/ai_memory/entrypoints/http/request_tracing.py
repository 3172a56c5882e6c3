"""A server span for every HTTP request, and the request's fields on every log line.

Plain ASGI, the outermost layer: the access line and the span of a request that failed
in a way only ``ProblemGuard`` (inside) turns into a 500 still name it, and its request id
(which ``ProblemGuard`` puts in the scope) is read when a line is written. The span is
named by the route template (``PUT /v1/memories/{memory_id}``) once the router matched
it, and holds the method, the template, the status, the request id and, once the key
door has run, the tenant and the key id. It never holds the path's values beyond the
template, the query string (search words, a forget's reason) or any header: the
caller's trace context is read from ``traceparent`` / ``tracestate`` and nothing else.

Tracing off, the request only binds its log fields (one context variable).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ai_memory.core.access import AccessPrincipal
from ai_memory.telemetry import bind_log_fields, enabled, span
from ai_memory.telemetry.log_context import unbind_log_fields
from ai_memory.telemetry.tracing import incoming_context


def without_native_telemetry() -> dict[str, Any]:
    """``FastAPI(...)`` arguments turning off FastAPI's own telemetry where it has any: once
    a process has a global tracer provider (auto-instrumentation) its request spans would
    record the query string and its logs the refused inputs."""
    if "telemetry" not in inspect.signature(FastAPI).parameters:
        return {}
    off = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}
    return {"telemetry": off}


def route_of(scope: Scope) -> str | None:
    """The matched route's template (the router puts it in the scope), if any."""
    path = getattr(scope.get("route"), "path", None)
    return path if isinstance(path, str) else None


def request_fields(scope: Scope) -> dict[str, str]:
    """Request id, route template, tenant and key id: what a log line or span may say of
    the request (read when asked: the key is known only after the door)."""
    state: Mapping[str, Any] = scope.get("state") or {}
    fields: dict[str, str] = {}
    request_id = state.get("request_id")
    if isinstance(request_id, str) and request_id:
        fields["request_id"] = request_id
    route = route_of(scope)
    if route is not None:
        fields["route"] = route
    principal = state.get("principal")
    if isinstance(principal, AccessPrincipal):
        fields["tenant"] = principal.tenant
        fields["key_id"] = principal.key_id
    return fields


class RequestTracing:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = bind_log_fields(lambda: request_fields(scope))
        try:
            if enabled():
                await self._traced(scope, receive, send)
            else:
                await self.app(scope, receive, send)
        finally:
            unbind_log_fields(token)

    async def _traced(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = str(scope["method"])
        parent = incoming_context(scope.get("headers") or [])
        status: list[int] = []

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        attributes = {"http.request.method": method}
        with span(method, attributes, kind=SpanKind.SERVER, context=parent) as current:
            try:
                await self.app(scope, receive, observed_send)
            finally:
                if current is not None:
                    route = route_of(scope)
                    if route is not None:
                        current.update_name(f"{method} {route}")
                        current.set_attribute("http.route", route)
                    if status:
                        current.set_attribute("http.response.status_code", status[0])
                        if status[0] >= 500:  # a client's 4xx is not the server's error
                            current.set_status(Status(StatusCode.ERROR, str(status[0])))
                    fields = request_fields(scope)
                    current.set_attributes(
                        {f"aimem.{k}": v for k, v in fields.items() if k != "route"}
                    )
