"""The MCP guard rails: secret detection, schema checks, export cap and the tool errors."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from ai_memory.bootstrap import Container
from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits
from ai_memory.entrypoints.agent_tool_specs import (
    cap_lines,
    check_arguments,
    detect_secrets,
    refuse_secrets,
    tool_specs,
)
from ai_memory.entrypoints.agent_tools import AgentTools
from ai_memory.entrypoints.mcp.server import build_server
from ai_memory.service.notes import NoteRules

SECRETS = {
    "API key (sk-…)": "use sk-proj-4f9aB2cD8eF1gH3iJ5kL7mN9oP for the assistant",
    "AWS access key id": "aws creds AKIAIOSFODNN7EXAMPLE in us-east-1",
    "GitHub token": "push with ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "JSON Web Token": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5",
    "private key block": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
    "Slack token": "webhook uses xoxb-1234567890-abcdefghij",
    "Google API key": "maps key AIzaSyA1234567890abcdefghijklmnopqrstuv",
}
ASSIGNMENTS = [
    "db password=hunter2",
    "TOKEN = 'abc123def'",
    "api_key=sk_live_value",
    'config: {"password": "s3cr3t-Pa55"}',
    "https://example.com/hook?token=8f2d9c1a",
    "secret_key: 9a8b7c6d5e4f",
]
PROSE = [
    "She gave him a small gift as a token of appreciation.",
    "Remember the password policy: rotate every 90 days.",
    "password: always use the team password manager",
    "The token budget is 4k; keep answers short.",
    "Alice uses scikit-learn (sk-learn) for the churn model.",
    "Set password=<your password> in the local .env file (placeholder).",
    "token = ${GITHUB_TOKEN} comes from the CI environment",
    "用户喜欢简洁的回答，不要使用表格。",
    "The API key rotation runbook lives in the team wiki.",
    "Ask the user for the secret: never guess it.",
]


@pytest.mark.parametrize(("kind", "text"), SECRETS.items())
def test_detects_known_credential_formats(kind: str, text: str) -> None:
    assert kind in detect_secrets(text)


@pytest.mark.parametrize("text", ASSIGNMENTS)
def test_detects_credential_assignments(text: str) -> None:
    assert detect_secrets(text) == ["credential assignment (password=/token=/api_key=…)"]


@pytest.mark.parametrize("text", PROSE)
def test_ordinary_prose_is_not_a_secret(text: str) -> None:
    assert detect_secrets(text) == []


def test_refusal_names_what_was_found_and_that_nothing_was_stored() -> None:
    with pytest.raises(InvalidInput) as caught:
        refuse_secrets({"content": "fine", "tags": ["ok", "AKIAIOSFODNN7EXAMPLE"]})
    error = caught.value
    assert (error.code, error.field, error.rule) == ("secret_detected", "tags", "no_secrets")
    assert "AWS access key id" in error.message and "nothing was stored" in error.message
    refuse_secrets({"content": "a token of appreciation", "tags": None})


SPECS = {s.name: s.input_schema for s in tool_specs(Limits(), NoteRules())}


def test_schemas_are_closed_and_reflect_the_limits() -> None:
    limits = Limits()
    for name, schema in SPECS.items():
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        assert set(schema["required"]) <= set(schema["properties"]), name
        for prop in schema["properties"].values():
            assert prop.get("description") or prop.get("enum"), name
    write = SPECS["memory_write"]["properties"]
    assert write["tags"]["maxItems"] == limits.max_tags
    assert write["scope"]["maxLength"] == limits.max_scope_chars
    assert write["type"]["enum"] == ["fact", "task", "preference", "skill", "interaction"]


@pytest.mark.parametrize(
    ("tool", "args", "field", "rule"),
    [
        ("memory_read", {}, "id", "required"),
        ("memory_read", {"id": "a", "extra": 1}, "extra", "unknown_field"),
        ("memory_search", {"query": "x", "top_k": 0}, "top_k", "range"),
        ("memory_search", {"query": "x", "top_k": True}, "top_k", "integer"),
        ("memory_search", {"query": "x", "types": ["opinion"]}, "types", "enum"),
        ("memory_search", {"query": "x", "tags": "billing"}, "tags", "array"),
        ("memory_search", {"query": "   "}, "query", "non_empty"),
        ("memory_forget", {"id": "a", "confirm": "yes"}, "confirm", "boolean"),
        ("notes_save", {"agent": "a", "topic": "t", "note": "n" * 501}, "note", "max_chars"),
    ],
)
def test_arguments_are_checked_against_the_listed_schema(
    tool: str, args: dict[str, Any], field: str, rule: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        check_arguments(SPECS[tool], args)
    assert (caught.value.field, caught.value.rule) == (field, rule)


def test_export_is_capped_with_a_flag() -> None:
    lines = ["x" * 99] * 10  # 100 bytes each with the newline
    assert cap_lines(lines, max_bytes=1000) == ("\n".join(lines) + "\n", 10, False)
    text, kept, truncated = cap_lines(lines, max_bytes=450)
    assert (kept, truncated) == (4, True) and len(text.encode()) <= 450


def test_forget_without_confirm_deletes_nothing(container: Container) -> None:
    tools = AgentTools(container.services)
    body = {"type": "fact", "content": "Alice lives in Tokyo.", "scope": "user:alice"}
    memory_id = tools.call("default", "memory_write", body | {"source_agent": "t"}).data["id"]
    for args in ({"id": memory_id}, {"id": memory_id, "confirm": False}):
        with pytest.raises(InvalidInput) as caught:
            tools.call("default", "memory_forget", args)
        assert caught.value.code == "confirmation_required"
        assert '"confirm": true' in caught.value.message
    assert container.service.get("default", memory_id).record.content == "Alice lives in Tokyo."


def test_oversized_content_is_refused_before_the_secret_scan(container: Container) -> None:
    tools = AgentTools(container.services)
    huge = "sk-" + "a" * Limits().max_content_bytes
    args = {"type": "fact", "content": huge, "scope": "user:a", "source_agent": "t"}
    with pytest.raises(InvalidInput) as caught:
        tools.call("default", "memory_write", args)
    assert caught.value.code == "content_too_large"


def test_unexpected_failures_are_tool_errors_without_a_trace(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire at /var/secret/path")

    monkeypatch.setattr(container.service, "get", broken)

    async def main() -> None:
        async with Client(build_server(container.services), mode="legacy") as client:
            result = await client.call_tool("memory_read", {"id": "x"})
        assert result.is_error
        assert result.structured_content == {
            "error": {
                "code": "internal_error",
                "message": "internal error; the server log has details",
            }
        }

    anyio.run(main)
