"""Errors at the HTTP edge: every failure is ``application/problem+json`` (RFC 9457)
with a stable machine-readable ``code`` and a sentence a person can act on."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ai_memory.core.errors import (
    AiMemoryError,
    Conflict,
    Gone,
    InvalidInput,
    NotFound,
    RetryableError,
)

PROBLEM_JSON = "application/problem+json"
_STATUS: list[tuple[type[AiMemoryError], int]] = [
    (InvalidInput, 422),
    (NotFound, 404),
    (Gone, 410),
    (Conflict, 409),
    (RetryableError, 503),
]
_TITLES = {
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    410: "Gone",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def problem(status: int, code: str, detail: str, **extra: Any) -> JSONResponse:
    body = {
        "type": f"urn:ai-memory:problem:{code}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }
    headers = {}
    if "retry_after" in extra:
        headers["Retry-After"] = str(max(1, round(float(extra["retry_after"]))))
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def status_of(error: AiMemoryError) -> int:
    for cls, status in _STATUS:
        if isinstance(error, cls):
            return status
    return 500


def from_domain(error: AiMemoryError) -> JSONResponse:
    extra: dict[str, Any] = {}
    if isinstance(error, InvalidInput):
        extra = {"field": error.field, "rule": error.rule}
    if isinstance(error, RetryableError):
        extra = {"retry_after": error.retry_after}
    status = status_of(error)
    # Malformed JSON is a syntax problem (400), not a semantic one (422).
    if isinstance(error, InvalidInput) and error.code == "malformed_json":
        status = 400
    return problem(status, error.code, error.message, **extra)


def install(app: FastAPI) -> None:
    @app.exception_handler(AiMemoryError)
    async def _domain(_: Request, exc: AiMemoryError) -> JSONResponse:
        return from_domain(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
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
            )
        rule = first["rule"]
        code = "unknown_field" if rule == "extra_forbidden" else "invalid_input"
        detail = f"{first['field']}: {first['message']}"
        return problem(422, code, detail, field=first["field"], rule=rule, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "route_not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "http_error"
        )
        return problem(exc.status_code, code, str(exc.detail))
