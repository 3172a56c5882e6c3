"""Every operation of the OpenAPI document, with every string replaced by a hostile one.

schemathesis generates *valid JSON text*, which never holds a lone surrogate; Python's
JSON parser turns ``"\\ud800"`` into one, and a string UTF-8 cannot encode breaks every
store, log and response serializer downstream. This sweep builds, for each operation, a
body (and query/path values) from the document's own schema where every string is the
same hostile value, and requires a 4xx problem+json: never a 500, never a bare body, and
nothing appended to the log.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from ai_memory.entrypoints.http.app import create_app

HOSTILE = [
    # A lone surrogate (JSON escape → a Python str UTF-8 cannot encode) inside words that
    # the write-trigger rules act on, so a handler that echoes text meets it too.
    "I prefer \\ud800 green tea",
    "a\\u0000b",  # NUL
    "\\udfff\\ud800 tail",  # reversed pair
    "x" * 70_000,  # longer than any text limit
]


def _value(schema: dict[str, Any], doc: dict[str, Any], hostile: str, depth: int = 0) -> Any:
    """A JSON-text fragment for ``schema`` with every string the hostile literal."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _value(doc["components"]["schemas"][name], doc, hostile, depth)
    for combo in ("anyOf", "oneOf", "allOf"):
        if combo in schema:
            options = [s for s in schema[combo] if s.get("type") != "null"] or schema[combo]
            return _value(options[0], doc, hostile, depth)
    kind = schema.get("type")
    if "enum" in schema:
        return json.dumps(schema["enum"][0])
    if kind == "object" or "properties" in schema:
        if depth > 4:
            return "{}"
        props = schema.get("properties", {})
        members = [
            f'"{name}": {_value(sub, doc, hostile, depth + 1)}' for name, sub in props.items()
        ]
        if not props:
            members.append(f'"{hostile}": "{hostile}"')
        return "{" + ", ".join(members) + "}"
    if kind == "array":
        return "[" + _value(schema.get("items", {}), doc, hostile, depth + 1) + "]"
    if kind == "integer":
        return str(schema.get("minimum", 1))
    if kind == "number":
        return str(schema.get("minimum", 1.0))
    if kind == "boolean":
        return "false"
    return f'"{hostile}"'


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                found.append((method.upper(), path, op))
    return found


def _log_size(container: Container) -> int:
    return sum(container.log.last_position(p) for p in container.log.partitions())


@pytest.mark.parametrize("hostile", HOSTILE, ids=["surrogate", "nul", "reversed", "huge"])
def test_no_operation_answers_5xx_to_hostile_strings(container: Container, hostile: str) -> None:
    app = create_app(container.services)
    with TestClient(app, raise_server_exceptions=False) as client:
        doc = client.get("/openapi.json").json()
        operations = _operations(doc)
        assert len(operations) >= 16
        before = _log_size(container)
        failures = []
        for method, path, op in operations:
            url = path
            for p in op.get("parameters", []):
                # In a URL the hostile string travels percent-encoded; a surrogate becomes
                # the bytes of its (invalid) UTF-8 form, which the server must refuse.
                raw = json.loads(_value(p.get("schema", {}), doc, hostile))
                encoded = quote(str(raw)[:300].encode("utf-8", "surrogatepass"), safe="")
                if p["in"] == "path":
                    url = url.replace("{" + p["name"] + "}", encoded or "x")
                elif p["in"] == "query" and not isinstance(raw, bool | int):
                    url += ("&" if "?" in url else "?") + f"{p['name']}={encoded}"
            body = op.get("requestBody", {}).get("content", {})
            headers = {"content-type": "application/json"}
            content: bytes | None = None
            if "application/json" in body:
                content = _value(body["application/json"]["schema"], doc, hostile).encode()
            elif "application/x-ndjson" in body:
                headers["content-type"] = "application/x-ndjson"
                line = (
                    '{"kind": "record", "record": {"id": "H", "type": "fact", '
                    '"content": "H", "scope": "user:H", "source_agent": "H"}}'
                ).replace("H", hostile)
                content = line.encode() + b"\n"
            response = client.request(method, url, content=content, headers=headers)
            if response.status_code >= 500 or not response.headers.get(
                "content-type", ""
            ).startswith(("application/json", "application/problem+json")):
                failures.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
        assert not failures, "\n".join(failures)
        # Hostile strings are refused before anything reaches the log (reads may record
        # recall events, but nothing here can be recalled: no memory was ever written).
        # The one event allowed is the import's own report (received 1, rejected 1).
        appended = container.log.read(after=before, limit=10) if _log_size(container) else []
        names = [type(e.event).__name__ for e in appended]
        assert names in ([], ["MemoriesImported"]), [repr(e.event)[:300] for e in appended]
