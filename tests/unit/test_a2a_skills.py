"""A2A message -> skill call: data parts, metadata, the text shortcut, and the refusals."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.types import Message

from ai_memory.core.errors import InvalidInput
from ai_memory.entrypoints.a2a.skills import SKILLS, SkillCall, parse_request, summary


def parse_message(message: Message, request_metadata: dict[str, Any] | None = None) -> SkillCall:
    """As the executor does: the message's parts and metadata, then the request's."""
    return parse_request(
        get_data_parts(message.parts),
        get_text_parts(message.parts),
        dict(message.metadata.items()),
        request_metadata or {},
    )


def test_data_part_names_the_skill_and_carries_the_tool_arguments() -> None:
    part = new_data_part({"skill": "memory.forget", "id": "m-1", "confirm": True})
    call = parse_message(Message(parts=[part]))
    assert call == SkillCall("memory.forget", "memory_forget", {"id": "m-1", "confirm": True})


def test_whole_numbers_come_back_as_integers() -> None:
    # A2A data parts are protobuf Values: every number is a double on the wire.
    part = new_data_part({"skill": "memory.search", "query": "q", "top_k": 5, "tags": ["a"]})
    args = parse_message(Message(parts=[part])).arguments
    assert args == {"query": "q", "top_k": 5, "tags": ["a"]}
    assert type(args["top_k"]) is int
    ttl = parse_request([{"skill": "memory.write", "ttl": 1.5}], []).arguments["ttl"]
    assert ttl == 1.5  # not whole: left for the schema check to refuse


def test_skill_from_message_or_request_metadata() -> None:
    part = new_data_part({"agent": "neo", "topic": "jobs"})
    by_message = parse_message(Message(parts=[part], metadata={"skill": "notes.recall"}))
    assert by_message.tool == "notes_recall" and by_message.arguments["agent"] == "neo"
    by_request = parse_message(Message(parts=[part]), {"skill": "notes.recall"})
    assert by_request == by_message
    in_data = new_data_part({"skill": "notes.save", "agent": "neo"})
    assert parse_message(Message(parts=[in_data], metadata={"skill": "x"})).skill == "notes.save"


def test_mcp_tool_names_and_nested_arguments_are_accepted() -> None:
    call = parse_request([{"skill": "notes_save", "arguments": {"agent": "a", "note": "n"}}], [])
    assert call == SkillCall("notes.save", "notes_save", {"agent": "a", "note": "n"})


@pytest.mark.parametrize(
    "text", ["search: reply format", "Search:reply format", "  SEARCH :  reply format \n"]
)
def test_text_search_shortcut(text: str) -> None:
    call = parse_message(Message(parts=[new_text_part(text)]))
    assert call == SkillCall("memory.search", "memory_search", {"query": "reply format"})


def test_plain_text_is_a_query_when_metadata_names_search() -> None:
    message = Message(parts=[new_text_part("reply format")], metadata={"skill": "memory.search"})
    assert parse_message(message).arguments == {"query": "reply format"}


def test_a_data_part_wins_over_text() -> None:
    parts = [
        new_text_part("search: ignored"),
        new_data_part({"skill": "notes.recall", "agent": "a"}),
    ]
    assert parse_message(Message(parts=parts)).skill == "notes.recall"


@pytest.mark.parametrize(
    ("data", "texts", "code", "field"),
    [
        ([], ["hello"], "invalid_input", "skill"),
        ([], ["search:   "], "invalid_input", "skill"),
        ([], [], "invalid_input", "skill"),
        ([{"query": "q"}], [], "invalid_input", "skill"),
        ([{"skill": "memory.drop_all"}], [], "unknown_skill", "skill"),
        ([{"skill": 3}], [], "unknown_skill", "skill"),
        (["memory.search"], [], "invalid_input", "data"),
        ([{"skill": "memory.search"}, {"skill": "memory.search"}], [], "invalid_input", "data"),
    ],
)
def test_refusals_say_what_to_send(
    data: list[Any], texts: list[str], code: str, field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_request(data, texts)
    assert refused.value.code == code and refused.value.field == field
    if field == "skill":
        assert "memory.search" in refused.value.message  # names the skills


def test_every_skill_runs_a_tool_and_has_an_example() -> None:
    assert set(SKILLS) == {
        "memory.write",
        "memory.search",
        "memory.forget",
        "notes.save",
        "notes.recall",
        "memory.changes",
    }
    for skill, (tool, name, how, examples) in SKILLS.items():
        assert tool == skill.replace(".", "_") and name and skill in how and examples


def test_summaries_are_short_sentences() -> None:
    assert summary("memory.write", {"id": "m-1", "status": "created"}) == "Memory m-1 created."
    hits = {
        "query": "q",
        "count": 1,
        "results": [{"id": "m-1", "score": 0.5, "content": "a\nb " * 100}],
    }
    text = summary("memory.search", hits)
    assert text.startswith("1 memory found for 'q'.\n- m-1 (0.50): a b") and len(text) < 200
    forgot = {"id": "m-1", "already_forgotten": True}
    assert summary("memory.forget", forgot) == "Memory m-1 was already forgotten."
    saved = {"topic": ["jobs"], "status": "created", "notes_used": 1, "quota": 50}
    assert summary("notes.save", saved) == "Note on 'jobs': created (1/50 used)."
    topics = {"topic": [], "topic_notes": [], "your_topics": [{"topic": ["a", "b"]}]}
    assert summary("notes.recall", topics) == "1 topic: a, b."
