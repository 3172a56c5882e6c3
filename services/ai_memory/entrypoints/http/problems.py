"""Errors at the HTTP edge: every failure is ``application/problem+json`` (RFC 9457)
with a stable machine-readable ``code`` and a sentence a person can act on."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ai_memory.core.errors import (
    AiMemoryError,
    Conflict,
    Forbidden,
    Gone,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    RetryableError,
    Unauthenticated,
)

from .body_limits import EdgeRefusal, refusal_behind

PROBLEM_JSON = "application/problem+json"
_STATUS: list[tuple[type[AiMemoryError], int]] = [
    (InvalidInput, 422),
    (NotFound, 404),
    (Gone, 410),
    (PreconditionFailed, 412),  # before Conflict, of which it is one
    (Conflict, 409),
    (Unauthenticated, 401),
    (Forbidden, 403),
    (RetryableError, 503),
]
_TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    408: "Request Timeout",
    409: "Conflict",
    410: "Gone",
    412: "Precondition Failed",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    421: "Misdirected Request",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def request_id_of(scope: Mapping[str, Any]) -> str:
    """The id the edge gave this request (``problem_guard``); "" outside it."""
    state = scope.get("state") or {}
    return str(state.get("request_id", ""))


def problem_body(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": f"urn:ai-memory:problem:{code}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }


def problem(status: int, code: str, detail: str, **extra: Any) -> JSONResponse:
    body = problem_body(status, code, detail, **extra)
    headers = {}
    if "retry_after" in extra:
        headers["Retry-After"] = str(max(1, round(float(extra["retry_after"]))))
    return ProblemResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


class ProblemResponse(JSONResponse):
    """JSON with non-ASCII escaped: a detail quoting the caller's input may hold a lone
    surrogate, which has no UTF-8 encoding — the error must still be readable."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def status_of(error: AiMemoryError) -> int:
    for cls, status in _STATUS:
        if isinstance(error, cls):
            return status
    return 500


def from_domain(error: AiMemoryError, request_id: str = "") -> JSONResponse:
    extra: dict[str, Any] = {}
    if isinstance(error, InvalidInput):
        extra = {"field": error.field, "rule": error.rule}
    if isinstance(error, RetryableError):
        extra = {"retry_after": error.retry_after}
    status = status_of(error)
    # Malformed JSON is a syntax problem (400), not a semantic one (422).
    if isinstance(error, InvalidInput) and error.code == "malformed_json":
        status = 400
    if request_id:
        extra["request_id"] = request_id
    return problem(status, error.code, error.message, **extra)


def install(app: FastAPI) -> None:
    @app.exception_handler(AiMemoryError)
    async def _domain(request: Request, exc: AiMemoryError) -> JSONResponse:
        return from_domain(exc, request_id_of(request.scope))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        request_id = request_id_of(request.scope)
        errors = []
        for err in exc.errors():
            loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
            errors.append(
                {
                    "field": ".".join(loc) or "body",
                    "rule": err.get("type", "invalid"),
                    "message": err.get("msg", "invalid value"),
                }
            )
        first = errors[0] if errors else {"field": "body", "rule": "invalid", "message": "invalid"}
        if first["rule"] == "json_invalid":
            return problem(
                400,
                "malformed_json",
                "the request body is not valid JSON",
                field="body",
                rule="json",
                request_id=request_id,
            )
        rule = first["rule"]
        code = "unknown_field" if rule == "extra_forbidden" else "invalid_input"
        detail = f"{first['field']}: {first['message']}"
        return problem(
            422, code, detail, field=first["field"], rule=rule, errors=errors, request_id=request_id
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        refusal = refusal_behind(exc.__cause__)  # FastAPI wraps body-read errors in a 400
        if refusal is not None:
            return await _refused(request, refusal)
        code = {404: "route_not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "http_error"
        )
        return problem(
            exc.status_code, code, str(exc.detail), request_id=request_id_of(request.scope)
        )

    @app.exception_handler(EdgeRefusal)
    async def _refused(request: Request, exc: EdgeRefusal) -> JSONResponse:
        response = problem(
            exc.status, exc.code, exc.detail, request_id=request_id_of(request.scope)
        )
        # The rest of the body was never read: the connection cannot be reused.
        response.headers["connection"] = "close"
        return response
