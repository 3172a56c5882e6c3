"""The OpenAPI document: the contract clients, generated SDKs and the fuzzer read.

Beyond what FastAPI derives from the routes, the document

* says how every operation fails: its 4XX and 5XX answers are ``application/problem+json``
  with one ``Problem`` schema (FastAPI's default 422 ``HTTPValidationError`` is replaced:
  this API never answers that shape), and the refusals every route can meet are listed
  where they apply — 401 and 429 behind the key door, 403 (role, scope, cross-origin),
  413 for a body over its limit, 503 while projections lag or a store is away;
* declares the key door: ``bearerAuth`` (``Authorization: Bearer <key>``) applies to
  every operation, except the open paths (``auth.OPEN_PATHS``), where a key is optional;
* names its tags, one per area, with their descriptions (``openapi_tags``), and carries
  examples of the main bodies (``openapi_examples``).

The committed copy is ``docs/openapi.json``; regenerate it with
``python -m ai_memory.entrypoints.cli.openapi_doc > docs/openapi.json`` (``make docs``):
that process wires a throw-away server, which an entry point here may not do.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from ai_memory.wire.changes import ChangeOut

from .auth import OPEN_PATHS
from .openapi_examples import EXAMPLES
from .openapi_streams import COMPONENTS as STREAM_COMPONENTS
from .openapi_tags import TAGS
from .problems import PROBLEM_JSON

REGENERATE = "python -m ai_memory.entrypoints.cli.openapi_doc > docs/openapi.json"
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
LICENSE = {"name": "Apache-2.0", "identifier": "Apache-2.0"}
# Relative: the document describes the server it is read from, wherever that runs.
SERVERS = [{"url": "/", "description": "The server this document was read from"}]
BEARER = "bearerAuth"
SECURITY_SCHEMES = {
    BEARER: {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key (`ai-memory keys create`) as `Authorization: Bearer <key>`. "
        "While no key was ever created the server is in open development mode and "
        "needs none.",
    }
}
# An open path takes no key, or a key that shows more (an admin's /healthz details).
OPEN_SECURITY: list[dict[str, list[str]]] = [{}, {BEARER: []}]
_PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
_METHODS = ("get", "put", "post", "delete", "patch")
_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer"},
    }
}
# The refusals of the layers every keyed route is behind (auth, rate_limits, browser_guard,
# body_limits) and of the service behind it: status → (description, Retry-After?).
_KEYED: dict[str, tuple[str, bool]] = {
    "401": ("api_key_required / invalid_api_key: once API keys exist, a valid key", False),
    "403": (
        "role_forbidden / scope_forbidden: the key may not; cross_origin_refused: a "
        "browser request from another origin",
        False,
    ),
    "429": ("rate_limited (key or tenant) / auth_failures (too many refused keys)", True),
    "503": ("projection_lag / a store not ready: retry after Retry-After", True),
}
_BODY = ("413", "body_too_large: the body is over its limit (AIMEM_MAX_BODY_BYTES)")


def _problem_response(description: str, retry_after: bool = False) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": description,
        "content": {PROBLEM_JSON: {"schema": _PROBLEM_REF}},
    }
    if retry_after:
        response["headers"] = _RETRY_AFTER
    return response


def _components(schema: dict[str, Any]) -> None:
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    schemas.update(STREAM_COMPONENTS)
    schemas["ChangeOut"] = ChangeOut.model_json_schema(ref_template="#/components/schemas/{model}")
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    components["securitySchemes"] = SECURITY_SCHEMES


def _failures(path: str, operation: dict[str, Any]) -> None:
    responses = operation.setdefault("responses", {})
    for status in [s for s in responses if s[0] in "45"]:
        # Documented 4xx/5xx (404, 410, FastAPI's 422) are all problem+json.
        described = responses[status].get("description", "Problem")
        responses[status] = _problem_response(described, status in ("429", "503"))
    if path not in OPEN_PATHS:
        for status, (description, retry) in _KEYED.items():
            if status in responses:  # the route's own words first, then the layers'
                description = f"{responses[status]['description']}; {description}"
            responses[status] = _problem_response(description, retry)
        if "requestBody" in operation and _BODY[0] not in responses:
            responses[_BODY[0]] = _problem_response(_BODY[1])
    for response in responses.values():
        for media in response.get("content", {}).values():
            schema = media.get("schema", {})
            if "$ref" in schema:  # FastAPI's generated "Response Getx" title beside a $ref
                schema.pop("title", None)
    responses.setdefault("4XX", _problem_response("The request was refused"))
    responses.setdefault("5XX", _problem_response("The server failed or is not ready"))
    operation["responses"] = dict(sorted(responses.items()))


def _examples(operation: dict[str, Any]) -> None:
    examples = EXAMPLES.get(operation.get("operationId", ""))
    if examples is None:
        return
    if "request" in examples:
        media = examples.get("request_media", "application/json")
        operation["requestBody"]["content"][media]["example"] = examples["request"]
    answer = examples.get("response_media", "application/json")
    for status, body in examples.get("responses", {}).items():
        operation["responses"][status]["content"][answer]["example"] = body


def document(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=TAGS,
        license_info=LICENSE,
        servers=SERVERS,
    )
    _components(schema)
    schema["security"] = [{BEARER: []}]
    for path, path_item in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            if path in OPEN_PATHS:
                operation["security"] = OPEN_SECURITY
            _failures(path, operation)
            _examples(operation)
    return schema


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def render(schema: dict[str, Any]) -> str:
    """The committed form: stable key order as generated, two-space indent, UTF-8."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
