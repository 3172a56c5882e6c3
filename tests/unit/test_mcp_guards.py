"""The MCP guard rails: secret refusal, schema checks, export cap and the tool errors."""

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
    tool_specs,
)
from ai_memory.entrypoints.agent_tools import AgentTools
from ai_memory.entrypoints.mcp.server import build_server
from ai_memory.service.notes import NoteRules


def test_a_secret_is_refused_by_the_service_policy_with_field_and_kind(
    container: Container,
) -> None:
    """The tools have no detector of their own: the service's policy answers."""
    tools = AgentTools(container.services)
    body = {"type": "fact", "content": "fine", "scope": "user:a", "source_agent": "t"}
    with pytest.raises(InvalidInput) as caught:
        tools.call("default", "memory_write", body | {"tags": ["ok", "AKIAIOSFODNN7EXAMPLE"]})
    error = caught.value
    assert (error.code, error.field, error.rule) == ("secret_detected", "tags", "no_secrets")
    assert "aws_key" in error.message and "nothing was stored" in error.message
    assert "AKIAIOSFODNN7EXAMPLE" not in str(error)
    tools.call("default", "memory_write", body | {"content": "a token of appreciation"})


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
