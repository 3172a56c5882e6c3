"""The OpenAPI document says how every operation fails, not only how it succeeds.

Every operation documents its 4XX and 5XX answers as ``application/problem+json`` with
one ``Problem`` schema (FastAPI's default 422 ``HTTPValidationError`` in
``application/json`` is replaced: this API never answers that shape). Clients and the
fuzzer in the test suite read the document, so it must be the truth.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from .problems import PROBLEM_JSON

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "RFC 9457 problem details with a stable machine-readable code.",
    "type": "object",
    "required": ["type", "title", "status", "code", "detail"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "code": {"type": "string", "description": "Stable error code, e.g. invalid_input."},
        "detail": {"type": "string", "description": "What went wrong and what to do."},
        "field": {"type": ["string", "null"], "description": "The input at fault."},
        "rule": {"type": ["string", "null"], "description": "The rule it broke."},
        "errors": {"type": "array", "items": {"type": "object"}},
        "retry_after": {"type": "number", "description": "Seconds to wait (also Retry-After)."},
        "retry_after_ms": {"type": "integer", "description": "429: the exact wait, in ms."},
        "limit": {"type": "string", "description": "429: whose rate, key or tenant."},
        "request_id": {"type": "string", "description": "Also the X-Request-Id header."},
    },
}
_PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
_METHODS = ("get", "put", "post", "delete", "patch")


def _problem_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM_JSON: {"schema": _PROBLEM_REF}}}


def document(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Problem"] = PROBLEM_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    for path_item in schema.get("paths", {}).values():
        for method in _METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for status in [s for s in responses if s[0] in "45"]:
                # Documented 4xx/5xx (404, 410, FastAPI's 422) are all problem+json.
                described = responses[status].get("description", "Problem")
                responses[status] = _problem_response(described)
            responses.setdefault("4XX", _problem_response("The request was refused"))
            responses.setdefault("5XX", _problem_response("The server failed or is not ready"))
    return schema


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
