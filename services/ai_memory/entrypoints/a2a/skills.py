"""The A2A skills' contract: which skills exist, how a message names one, and what it says.

Pure functions, no I/O. An A2A message asks for a skill with a structured data part holding
the same arguments as the MCP tool, plus a ``skill`` field (or ``skill`` in the message or
request metadata), e.g. ``{"skill": "memory.search", "query": "reply format"}``; the
arguments may also sit under ``"arguments"``. A text part ``search: <query>`` is a shortcut
for ``memory.search``. ``parse_request`` turns that into a ``SkillCall`` naming the MCP tool
that ``AgentTools`` runs; ``summary`` is the short sentence sent beside the data result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ai_memory.core.errors import InvalidInput

# skill id -> (MCP tool it runs, name, how to call it, example data parts)
SKILLS: dict[str, tuple[str, str, str, list[str]]] = {
    "memory.write": (
        "memory_write",
        "Write a memory",
        'Send a data part {"skill": "memory.write", "type", "content", "scope", '
        '"source_agent"} (optional "tags", "ttl", "id"). Answers the id and status.',
        [
            '{"skill": "memory.write", "type": "preference", "scope": "user:alice", '
            '"source_agent": "planner", "content": "Alice wants replies as short bullet lists"}'
        ],
    ),
    "memory.search": (
        "memory_search",
        "Search memories",
        'Send a data part {"skill": "memory.search", "query"} (optional "scope", "types", '
        '"tags", "top_k"), or the text "search: <query>". Answers ranked results.',
        [
            '{"skill": "memory.search", "query": "how should replies be formatted", '
            '"scope": "user:alice", "top_k": 5}',
            "search: how should replies be formatted",
        ],
    ),
    "memory.forget": (
        "memory_forget",
        "Forget a memory",
        'Send a data part {"skill": "memory.forget", "id", "confirm": true} (optional '
        '"reason"). Without confirm: true nothing is deleted and the memory is shown.',
        ['{"skill": "memory.forget", "id": "<id from memory.write>", "confirm": true}'],
    ),
    "notes.save": (
        "notes_save",
        "Save a note",
        'Send a data part {"skill": "notes.save", "agent", "topic", "note"}. The same '
        "topic replaces the note; the note 'off' deletes it.",
        [
            '{"skill": "notes.save", "agent": "neo", "topic": "jobs, billing", '
            '"note": "Neo owes Alice a plain answer."}'
        ],
    ),
    "notes.recall": (
        "notes_recall",
        "Recall notes",
        'Send a data part {"skill": "notes.recall", "agent"} (optional "topic"). Answers '
        "the best notes for the topic and all your topics with read counts.",
        ['{"skill": "notes.recall", "agent": "neo", "topic": "jobs"}'],
    ),
    "memory.changes": (
        "memory_changes",
        "Follow changes",
        'Send a data part {"skill": "memory.changes", "scope"} (optional "since": a cursor '
        'or "now", "limit", "timeout"). Over message/stream: one artifact per entry, each '
        'with its cursor, then a final status whose data part is {"next", "more", "count"}; '
        'over message/send: one page {"changes", "next", "more", "count"}. Resume with '
        "since = the last cursor handled.",
        ['{"skill": "memory.changes", "scope": "user:alice", "since": "now", "timeout": 25}'],
    ),
}
# Skills with no MCP tool of their own: their card description (the MCP tools' comes
# from their spec). A stream is not a tool call, so the feed is served by A2A itself.
A2A_ONLY = {
    "memory_changes": "What changed in a scope — written, state_changed, forgotten, with "
    "the memory's id, version, state, time and actor, never its content — after a cursor.",
}
_BY_TOOL = {tool: skill for skill, (tool, *_rest) in SKILLS.items()}
_SEARCH_TEXT = re.compile(r"^\s*search\s*:\s*(?P<query>.*\S)\s*$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class SkillCall:
    """One requested skill: its id, the MCP tool that runs it, and the tool's arguments."""

    skill: str
    tool: str
    arguments: dict[str, Any]


def parse_request(
    data_parts: Sequence[Any], texts: Sequence[str], *metadata: Mapping[str, Any]
) -> SkillCall:
    """The skill call a message asks for (``InvalidInput`` with a how-to otherwise).

    ``data_parts`` are the message's data parts as JSON values, ``texts`` its text parts,
    ``metadata`` the message's and then the request's metadata.
    """
    if len(data_parts) > 1:
        raise InvalidInput("data", "one_data_part", "send one data part per message (one skill)")
    named = next((m["skill"] for m in metadata if m.get("skill") is not None), None)
    if data_parts:
        data = data_parts[0]
        if not isinstance(data, Mapping):
            raise InvalidInput(
                "data", "object", "the data part must be a JSON object of skill arguments"
            )
        args = dict(data)
        skill = args.pop("skill", named)
        if set(args) == {"arguments"} and isinstance(args["arguments"], Mapping):
            args = dict(args["arguments"])
        return SkillCall(_skill_id(skill), _tool(skill), _integers(args))
    text = "\n".join(t for t in texts if t.strip())
    match = _SEARCH_TEXT.match(text)
    if match:
        return SkillCall("memory.search", "memory_search", {"query": match["query"]})
    if named is not None and _skill_id(named) == "memory.search" and text.strip():
        return SkillCall("memory.search", "memory_search", {"query": text.strip()})
    raise InvalidInput(
        "skill",
        "required",
        "say which skill to run: send a data part with a 'skill' field (one of "
        f"{', '.join(SKILLS)}) and its arguments, e.g. "
        '{"skill": "memory.search", "query": "reply format"}, or the text "search: <query>"',
    )


def _skill_id(skill: Any) -> str:
    """The skill id for ``skill`` (a skill id or the MCP tool name)."""
    if isinstance(skill, str) and skill in SKILLS:
        return skill
    if isinstance(skill, str) and skill in _BY_TOOL:
        return _BY_TOOL[skill]
    if skill is None:
        raise InvalidInput(
            "skill", "required", f"the data part needs a 'skill' field: one of {', '.join(SKILLS)}"
        )
    raise InvalidInput(
        "skill",
        "enum",
        f"unknown skill {skill!r}; skills: {', '.join(SKILLS)}",
        code="unknown_skill",
    )


def _tool(skill: Any) -> str:
    return SKILLS[_skill_id(skill)][0]


def _integers(value: Any) -> Any:
    """Whole floats back to ints: A2A data parts carry every number as a double."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _integers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integers(v) for v in value]
    return value


def _clip(text: str, limit: int = 120) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def summary(skill: str, data: Mapping[str, Any]) -> str:
    """A short sentence about a skill's result, for agents that read only text."""
    if skill == "memory.write":
        return f"Memory {data['id']} {data['status']}."
    if skill == "memory.search":
        lines = [f"{_count(data['count'], 'memory', 'memories')} found for {data['query']!r}."]
        lines += [f"- {r['id']} ({r['score']:.2f}): {_clip(r['content'])}" for r in data["results"]]
        return "\n".join(lines[:6])
    if skill == "memory.forget":
        state = "was already forgotten" if data["already_forgotten"] else "is forgotten"
        return f"Memory {data['id']} {state}."
    if skill == "notes.save":
        topic = ", ".join(data["topic"])
        return f"Note on {topic!r}: {data['status']} ({data['notes_used']}/{data['quota']} used)."
    if skill == "notes.recall":
        notes, topics = data["topic_notes"], data["your_topics"]
        if not data["topic"]:
            listed = "; ".join(", ".join(t["topic"]) for t in topics)
            return f"{_count(len(topics), 'topic', 'topics')}: {listed or 'none yet'}."
        lines = [f"{_count(len(notes), 'note', 'notes')} for {' '.join(data['topic'])!r}."]
        lines += [f"- {', '.join(n['topic'])}: {_clip(n['note'])}" for n in notes]
        return "\n".join(lines)
    if skill == "memory.changes":
        more = " More is waiting: read again at once." if data["more"] else ""
        return f"{_count(data['count'], 'change', 'changes')}; resume from {data['next']}.{more}"
    return ""
