"""The agent tools' contract (MCP tools, A2A skills): JSON schemas, argument checks and the
guard rails (docs/API.md, "MCP").

Everything here is pure. ``tool_specs`` describes each tool to an LLM (what it is for,
every parameter with its limits); ``check_arguments`` enforces exactly that schema and
raises ``InvalidInput`` with the field and rule; ``cap_lines`` bounds an export that goes
into a model's context. (Credentials are refused or redacted by the service's secret
policy, on every path alike.)
Limits come from the deployment's record ``Limits`` and ``NoteRules``, the same ones the
HTTP API enforces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits, MemoryType
from ai_memory.service.memory_service import MAX_TOP_K
from ai_memory.service.notes import NoteRules

MAX_EXPORT_BYTES = 256 * 1024
_TYPES = [t.value for t in MemoryType]
_SCOPE_HELP = (
    "'public' or '<kind>:<name>' with a lowercase kind, e.g. 'user:alice', "
    "'team:data-platform', 'agent:planner'"
)


@dataclass(frozen=True)
class ToolSpec:
    """One tool as listed to clients: name, description, input schema, behaviour hints."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _str(description: str, max_length: int) -> dict[str, Any]:
    return {"type": "string", "description": description, "minLength": 1, "maxLength": max_length}


def _tags(description: str, limits: Limits) -> dict[str, Any]:
    return {
        "type": "array",
        "description": description,
        "items": {"type": "string", "minLength": 1, "maxLength": limits.max_tag_chars},
        "maxItems": limits.max_tags,
    }


def tool_specs(limits: Limits, rules: NoteRules) -> list[ToolSpec]:
    """The seven tools, their schemas derived from the deployment's limits."""
    scope = _str(f"Who the memory belongs to: {_SCOPE_HELP}.", limits.max_scope_chars)
    memory_id = _str("The id from memory_write or memory_search.", limits.max_id_chars)
    types = {"type": "string", "enum": _TYPES}
    agent_chars = min(limits.max_agent_chars, limits.max_scope_chars - len("agent:"))
    agent = _str("Your agent id (no spaces); notes live in scope 'agent:<agent>'.", agent_chars)
    guard = (
        " Never include credentials: text that looks like an API key, token, password "
        "assignment or private key is refused and nothing is stored (where the deployment "
        "redacts instead, it is stored as [REDACTED:<kind>])."
    )
    return [
        ToolSpec(
            "memory_write",
            "Write a memory",
            "Store one durable, self-contained memory (a preference, fact, task outcome, skill "
            "or interaction summary) so later sessions can recall it. Write only what a "
            "stranger could act on without this conversation; do not store raw transcripts. "
            "Pass the id of an existing memory to update it (rewriting the same content "
            "changes nothing); without an id every call creates a new memory." + guard,
            _obj(
                {
                    "type": types
                    | {
                        "description": "preference: how the user wants things; fact: stable "
                        "knowledge; task: a goal and its status/outcome; skill: a reusable "
                        "how-to or fix; interaction: a summary of a session."
                    },
                    "content": {
                        "type": "string",
                        "minLength": 1,
                        "description": f"Self-contained text (at most {limits.max_content_bytes}"
                        " UTF-8 bytes), e.g. 'Alice wants replies as short bullet lists'.",
                    },
                    "scope": scope,
                    "source_agent": _str("Your agent id (who is writing).", limits.max_agent_chars),
                    "tags": _tags("Optional keywords for filtering, e.g. ['billing'].", limits),
                    "ttl": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Optional lifetime in seconds; omit to keep it.",
                    },
                    "id": _str("Optional id to create or update one memory.", limits.max_id_chars),
                },
                ["type", "content", "scope", "source_agent"],
            ),
            idempotent=True,
        ),
        ToolSpec(
            "memory_search",
            "Search memories",
            "Find the memories most relevant to a query (meaning and keywords), best first, "
            "ranked by relevance, recency and type. Use it at the start of a task and whenever "
            "the user refers to something from earlier. Returns ids, content and scores.",
            _obj(
                {
                    "query": _str("What you are looking for, in plain words.", 2000),
                    "scope": scope | {"description": f"Only this scope: {_SCOPE_HELP}."},
                    "types": {
                        "type": "array",
                        "items": types,
                        "description": "Only these memory types.",
                    },
                    "tags": _tags("Only memories carrying all of these tags.", limits),
                    "top_k": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_TOP_K,
                        "default": 10,
                        "description": "How many results at most (default 10; 3-8 is usually "
                        "enough for a context window).",
                    },
                },
                ["query"],
            ),
            read_only=True,
        ),
        ToolSpec(
            "memory_read",
            "Read a memory",
            "Read one memory by id, with its version, state and read count. A forgotten "
            "memory answers with the error code memory_forgotten.",
            _obj({"id": memory_id}, ["id"]),
            read_only=True,
        ),
        ToolSpec(
            "memory_forget",
            "Forget a memory",
            "Permanently forget one memory everywhere (it cannot be restored, and its id is "
            "never reused). Requires confirm: true; without it nothing is deleted and the "
            "memory is shown so you can check it is the right one. Forget only what the user "
            "asked to forget or what is clearly wrong.",
            _obj(
                {
                    "id": memory_id,
                    "confirm": {
                        "type": "boolean",
                        "description": "Must be true to delete; anything else deletes nothing.",
                    },
                    "reason": _str("Why, for the audit log (default 'user_request').", 200),
                },
                ["id", "confirm"],
            ),
            destructive=True,
            idempotent=True,
        ),
        ToolSpec(
            "memory_export",
            "Export a scope",
            "Export every memory and tombstone of one scope as an NDJSON bundle (header, "
            "records, tombstones, checksummed trailer), e.g. to migrate to another agent. "
            f"Output is capped at {MAX_EXPORT_BYTES // 1024} KiB; a larger bundle is cut "
            "short with a note saying so (use the HTTP export for the full bundle).",
            _obj({"scope": scope | {"description": f"The scope: {_SCOPE_HELP}."}}, ["scope"]),
            read_only=True,
        ),
        ToolSpec(
            "notes_save",
            "Save a note",
            "Save your own short note on a topic (your notebook, at most "
            f"{rules.quota} notes). Saving the same topic again replaces the note; the note "
            "'off' deletes it." + guard,
            _obj(
                {
                    "agent": agent,
                    "topic": _str(
                        f"Up to {rules.max_tags} tags in any language, comma- or space-"
                        "separated, e.g. 'neo, jobs'. Case-insensitive; the same tag set is "
                        "the same topic.",
                        rules.max_tags * (limits.max_tag_chars + 2),
                    ),
                    "note": _str(
                        f"At most {rules.max_note_chars} characters; 'off' deletes the note.",
                        rules.max_note_chars,
                    ),
                },
                ["agent", "topic", "note"],
            ),
            idempotent=True,
        ),
        ToolSpec(
            "notes_recall",
            "Recall notes",
            f"Recall your best {rules.top_n} notes for a topic, each with why it matched, "
            "plus the list of all your topics with how often each was read. Returned notes "
            "count as read (counts shown are before this read).",
            _obj(
                {
                    "agent": agent,
                    "topic": _str("Words or tags to recall, e.g. 'neo'. Omit to list topics.", 400),
                },
                ["agent"],
            ),
            read_only=True,
        ),
    ]


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
}


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any] | None) -> None:
    """Enforce a tool's input schema (the subset ``tool_specs`` uses)."""
    args = arguments or {}
    props: Mapping[str, Any] = schema["properties"]
    unknown = sorted(set(args) - set(props))
    if unknown:
        allowed = ", ".join(props)
        msg = f"unknown argument(s): {', '.join(unknown)}; allowed: {allowed}"
        raise InvalidInput(unknown[0], "unknown_field", msg, code="unknown_field")
    for name in schema["required"]:
        if name not in args:
            raise InvalidInput(name, "required", f"{name} is required")
    for name, value in args.items():
        _check_value(name, props[name], value)


def _check_value(name: str, prop: Mapping[str, Any], value: Any) -> None:
    kind = prop["type"]
    ok = isinstance(value, _JSON_TYPES[kind]) and not (kind == "integer" and type(value) is bool)
    if not ok:
        raise InvalidInput(name, kind, f"{name} must be {'an' if kind == 'array' else 'a'} {kind}")
    if "enum" in prop and value not in prop["enum"]:
        raise InvalidInput(name, "enum", f"{name} must be one of {prop['enum']}; got {value!r}")
    if kind == "string":
        if len(value) < prop.get("minLength", 0) or not value.strip():
            raise InvalidInput(name, "non_empty", f"{name} must not be empty")
        if len(value) > prop.get("maxLength", len(value)):
            raise InvalidInput(name, "max_chars", f"{name} is longer than {prop['maxLength']}")
    if kind == "integer":
        low, high = prop.get("minimum"), prop.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidInput(name, "range", f"{name} must be in {low}..{high or '∞'}")
    if kind == "array":
        if len(value) > prop.get("maxItems", len(value)):
            raise InvalidInput(name, "max_items", f"{name} has more than {prop['maxItems']} items")
        for item in value:
            _check_value(name, prop["items"], item)


def cap_lines(lines: Iterable[str], max_bytes: int = MAX_EXPORT_BYTES) -> tuple[str, int, bool]:
    """Join NDJSON lines up to ``max_bytes``: (text, lines kept, truncated)."""
    kept: list[str] = []
    size = 0
    for line in lines:
        size += len(line.encode("utf-8")) + 1
        if size > max_bytes:
            return "\n".join(kept) + "\n", len(kept), True
        kept.append(line)
    return "\n".join(kept) + "\n", len(kept), False
