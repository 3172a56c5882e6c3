"""The OpenAPI document as a product: pinned in ``docs/openapi.json``, valid OpenAPI 3.1,
human operation ids, one declared tag per operation, the key door declared, streams and
failures described, and examples that match their schemas."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from ai_memory.entrypoints.cli.openapi_doc import generated
from ai_memory.entrypoints.http import openapi_doc
from ai_memory.entrypoints.http.auth import OPEN_PATHS

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "docs" / "openapi.json"
BUNDLE_LINE = ROOT / "schemas" / "bundle" / "bundle-line.v1.schema.json"
TOOLS = ROOT / "tests" / "tools"
REDOCLY = TOOLS / "node_modules" / ".bin" / "redocly"
# lowerCamelCase verbNoun, the verb from this list: a generated id
# (upsert_memory_v1_memories__memory_id__put) or a bare noun fails.
VERBS = [
    "batchUpsert",
    "create",
    "delete",
    "export",
    "get",
    "import",
    "list",
    "record",
    "recall",
    "resume",
    "run",
    "save",
    "search",
    "suggest",
    "upsert",
]
OPERATION_ID = re.compile(r"^(?P<verb>[a-z]+(?:Upsert)?)(?:[A-Z][a-z0-9]+)+$")
METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return generated()


def operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def test_the_committed_document_is_the_generated_one(doc: dict[str, Any]) -> None:
    assert PINNED.read_text(encoding="utf-8") == openapi_doc.render(doc), (
        f"docs/openapi.json is stale: run `{openapi_doc.REGENERATE}` (or `make docs`) and commit it"
    )


def test_every_operation_has_a_human_operation_id(doc: dict[str, Any]) -> None:
    ids = [op.get("operationId") for _, _, op in operations(doc)]
    assert len(ids) > 20
    bad = [i for i in ids if not (isinstance(i, str) and (m := OPERATION_ID.match(i)))]
    bad += [i for i in ids if (m := OPERATION_ID.match(i or "")) and m["verb"] not in VERBS]
    assert bad == [], "operation ids must be lowerCamelCase verbNoun, set with operation_id="
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize(
    "generated", ["upsert_memory_v1_memories__memory_id__put", "memory", "GetMemory", "fooBar"]
)
def test_a_generated_or_unknown_operation_id_is_refused(generated: str) -> None:
    m = OPERATION_ID.match(generated)
    assert m is None or m["verb"] not in VERBS


def test_every_operation_has_exactly_one_declared_tag(doc: dict[str, Any]) -> None:
    declared = {t["name"]: t for t in doc["tags"]}
    assert all(t.get("description") for t in declared.values())
    used = set()
    for path, method, op in operations(doc):
        assert len(op.get("tags", [])) == 1, (method, path)
        assert op["tags"][0] in declared, (method, path, op["tags"])
        used.add(op["tags"][0])
    assert used == set(declared), "a declared tag no operation uses"


def test_the_key_door_is_declared(doc: dict[str, Any]) -> None:
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": openapi_doc.SECURITY_SCHEMES["bearerAuth"]["description"],
    }
    assert doc["security"] == [{"bearerAuth": []}]
    for path, method, op in operations(doc):
        if path in OPEN_PATHS:
            assert {} in op["security"], (method, path)  # no key needed
        else:
            assert "security" not in op, (method, path)  # the global key requirement
            assert "401" in op["responses"], (method, path)


def test_every_success_is_typed(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        successes = {s: r for s, r in op["responses"].items() if s.startswith("2")}
        assert successes, (method, path)
        for status, response in successes.items():
            content = response.get("content", {})
            if status == "204":  # No Content: nothing to type, and nothing may be there
                assert not content, (method, path)
                continue
            assert content, (method, path, status)
            for media, body in content.items():
                schema = body.get("schema", {})
                assert schema not in ({}, {"type": "object"}), (method, path, status, media)


def test_streams_are_described(doc: dict[str, Any]) -> None:
    export = doc["paths"]["/v1/export"]["get"]["responses"]["200"]["content"]
    assert export["application/x-ndjson"]["schema"]["items"] == {
        "$ref": "#/components/schemas/BundleLine"
    }
    changes = doc["paths"]["/v1/changes"]["get"]["responses"]["200"]["content"]
    lines = changes["application/x-ndjson"]["schema"]["items"]["oneOf"]
    assert {"$ref": "#/components/schemas/ChangeOut"} in lines
    assert "Last-Event-ID" in changes["text/event-stream"]["schema"]["description"]
    assert "ChangeOut" in doc["components"]["schemas"]


def test_failures_are_problems_and_the_layers_refusals_are_listed(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        responses = op["responses"]
        for status, response in responses.items():
            if status[0] in "45":
                assert list(response["content"]) == ["application/problem+json"], status
        if path in OPEN_PATHS:
            continue
        assert {"401", "403", "429", "503"} <= set(responses), (method, path)
        assert "Retry-After" in responses["429"]["headers"]
        if "requestBody" in op:
            assert "413" in responses, (method, path)
    upsert = doc["paths"]["/v1/memories/{memory_id}"]["put"]["responses"]
    assert {"409", "410", "412"} <= set(upsert)
    assert "410" in doc["paths"]["/v1/memories/{memory_id}"]["get"]["responses"]


def _validator(doc: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "components": doc["components"]})


def test_the_examples_match_their_schemas(doc: dict[str, Any]) -> None:
    checked = 0
    for path, method, op in operations(doc):
        bodies = [op.get("requestBody", {})]
        bodies += list(op["responses"].values())
        for body in bodies:
            for media in body.get("content", {}).values():
                if "example" in media and "schema" in media:
                    validator = _validator(doc, media["schema"])
                    errors = list(validator.iter_errors(media["example"]))
                    assert errors == [], (method, path, [e.message for e in errors])
                    checked += 1
    assert checked >= 13  # write, upsert, search, batch, import, export: bodies and answers


def test_the_export_example_is_a_valid_bundle(doc: dict[str, Any]) -> None:
    """Its lines also follow the bundle's own line schema (schemas/bundle)."""
    lines = doc["paths"]["/v1/export"]["get"]["responses"]["200"]["content"]
    bundle = json.loads(BUNDLE_LINE.read_text(encoding="utf-8"))
    validator = Draft202012Validator(bundle)
    example = lines["application/x-ndjson"]["example"]
    assert [line["kind"] for line in example] == ["header", "record", "tombstone", "trailer"]
    for line in example:
        assert [e.message for e in validator.iter_errors(line)] == [], line


def test_a_wrong_example_is_caught(doc: dict[str, Any]) -> None:
    media = doc["paths"]["/v1/memories/search"]["post"]["requestBody"]["content"]
    schema = media["application/json"]["schema"]
    assert list(_validator(doc, schema).iter_errors({"query": "tea", "top_k": "five"}))


def test_the_document_is_valid_openapi(doc: dict[str, Any]) -> None:
    assert doc["openapi"].startswith("3.1")
    validate(doc)


def test_the_validator_refuses_a_broken_document(doc: dict[str, Any]) -> None:
    broken = copy.deepcopy(doc)
    broken["paths"]["/v1/memories"]["post"]["responses"] = "none"
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


# Under `make test` (AIMEM_TEST_TOOLS=required, after `make tools`) a missing linter fails.
needs_redocly = pytest.mark.skipif(
    (not REDOCLY.exists() or shutil.which("node") is None)
    and os.environ.get("AIMEM_TEST_TOOLS") != "required",
    reason="redocly is not installed: npm ci --prefix tests/tools (make tools)",
)
# A problem in redocly's stylish format: "  12:3  error  rule-name  message".
FINDING = re.compile(r"^\s*\d+:\d+\s+(error|warning)\s+(\S+)", re.MULTILINE)


def redocly_lint(doc: dict[str, Any], where: Path) -> tuple[int, str]:
    target = where / "openapi.json"
    target.write_text(json.dumps(doc), encoding="utf-8")
    config = ROOT / "redocly.yaml"
    result = subprocess.run(
        [str(REDOCLY), "lint", "--format=stylish", f"--config={config}", str(target)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=where,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(where),
            "REDOCLY_TELEMETRY": "off",
            "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
        },
    )
    return result.returncode, result.stdout + result.stderr


@needs_redocly
def test_redocly_lint_finds_no_error_or_warning(doc: dict[str, Any], tmp_path: Path) -> None:
    code, output = redocly_lint(doc, tmp_path)
    assert FINDING.findall(output) == [], output
    assert code == 0, output
    assert "Your API description is valid" in output, output


@needs_redocly
def test_redocly_lint_refuses_an_operation_without_id_or_errors(
    doc: dict[str, Any], tmp_path: Path
) -> None:
    broken = copy.deepcopy(doc)
    operation = broken["paths"]["/v1/memories"]["get"]
    del operation["operationId"]
    operation["responses"] = {"200": operation["responses"]["200"]}
    code, output = redocly_lint(broken, tmp_path)
    rules = {rule for _, rule in FINDING.findall(output)}
    assert code != 0
    assert {"operation-operationId", "operation-4xx-response"} <= rules, output
