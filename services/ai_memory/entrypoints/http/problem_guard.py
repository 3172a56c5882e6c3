"""The outermost layer of the HTTP edge: a request id on every exchange, and no failure
that reaches a client as anything but ``application/problem+json``.

* Every response carries ``X-Request-Id`` (the caller's, when it is a sane token, so a
  trace spans services; otherwise a new one). Log lines about the request name it.
* An exception nobody handled becomes a 500 problem with the request id, and the trace
  goes to the log — never to the client.
* Error responses produced below FastAPI's handlers (Starlette's host check, the MCP and
  A2A transports, a mount's plain-text 4xx) are rewritten into problem+json with the same
  status and headers. JSON error bodies (JSON-RPC errors of MCP/A2A) are left as they
  are: their clients parse them.
* Once a streaming response has started, its status cannot change: the failure is logged
  and the response left unfinished, so the client sees a broken transfer, not a success.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .body_limits import refusal_behind
from .problems import PROBLEM_JSON, problem_body

logger = logging.getLogger("ai_memory.entrypoints.http")
REQUEST_ID_HEADER = "x-request-id"
_SANE_ID = re.compile(r"^[A-Za-z0-9._:/+=-]{1,128}$")
_REWRITE_CAP = 4096  # bytes of a plain-text error kept as its detail


def problem_message(
    status: int, code: str, detail: str, request_id: str, extra_headers: list[tuple[bytes, bytes]]
) -> tuple[Message, Message]:
    body = json.dumps(
        problem_body(status, code, detail, request_id=request_id), ensure_ascii=True
    ).encode("ascii")
    headers = [
        (k, v) for k, v in extra_headers if k.lower() not in (b"content-type", b"content-length")
    ]
    headers += [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": body, "more_body": False}


_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "route_not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    413: "content_too_large",
    415: "unsupported_media_type",
    421: "misdirected_request",
}

# The plain-text refusals of Starlette's host check and the MCP transport, by their text.
_CODES_BY_TEXT = {
    "invalid host header": "untrusted_host",
    "invalid origin header": "cross_origin_refused",
    "invalid content-type header": "unsupported_media_type",
}


class ProblemGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = Headers(scope=scope).get(REQUEST_ID_HEADER, "")
        request_id = incoming if _SANE_ID.match(incoming) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        id_header = (REQUEST_ID_HEADER.encode(), request_id.encode())
        started = False
        held: dict[str, Any] | None = None  # a non-JSON error response being rewritten

        async def guarded_send(message: Message) -> None:
            nonlocal started, held
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=list(message.get("headers", [])))
                headers[REQUEST_ID_HEADER] = request_id
                status = int(message["status"])
                content_type = headers.get("content-type", "")
                if status >= 400 and scope["method"] != "HEAD" and "json" not in content_type:
                    held = {"status": status, "headers": headers.raw, "body": b""}
                    return
                started = True
                await send({**message, "headers": headers.raw})
                return
            if message["type"] == "http.response.body" and held is not None:
                if len(held["body"]) < _REWRITE_CAP:
                    held["body"] += message.get("body", b"")[:_REWRITE_CAP]
                if message.get("more_body", False):
                    return
                status = held["status"]
                text = held["body"].decode("utf-8", "replace").strip() or _reason(status)
                code = _CODES_BY_TEXT.get(text.lower()) or _CODES.get(status, "http_error")
                start, body = problem_message(status, code, text, request_id, held["headers"])
                held = None
                started = True
                await send(start)
                await send(body)
                return
            await send(message)

        try:
            await self.app(scope, receive, guarded_send)
        except Exception as exc:  # the last line of defence: nothing escapes as text
            refusal = refusal_behind(exc)
            if refusal is not None:
                if not started:
                    status, code, detail = refusal.status, refusal.code, refusal.detail
                    start, body = problem_message(
                        status, code, detail, request_id, [id_header, (b"connection", b"close")]
                    )
                    await send(start)
                    await send(body)
                return
            logger.exception(
                "request %s %s failed (request id %s)", scope["method"], scope["path"], request_id
            )
            if started:
                return  # mid-stream: leave it unfinished so the client sees the failure
            start, body = problem_message(
                500,
                "internal_error",
                f"unexpected error; the server log has the details under request id {request_id}",
                request_id,
                [id_header],
            )
            await send(start)
            await send(body)


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"
