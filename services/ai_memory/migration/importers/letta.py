"""Letta Agent File (``.af``).

Two schemas exist (see ``tests/fixtures/migration/letta/README.md``):

* current (``letta/schemas/agent_file.py`` ``AgentFileSchema``): ``{"agents": [{"id",
  "name", "block_ids", "messages": [...], "in_context_message_ids", ...}], "blocks":
  [{"id", "label", "value", "limit", "description", ...}], "tools", "groups", "files",
  "sources", "mcp_servers", "metadata", "created_at"}``
* v1 (``letta/serialize_schemas/pydantic_agent_schema.py``): one agent at top level with
  ``core_memory: [{"label", "value", "created_at", ...}]`` and ``messages``

Mapping, per agent (scope ``agent:<name>``): memory blocks become records typed by label
(``human`` → preference, ``persona`` → fact, ``task``/``todo`` → task, ``lessons`` →
skill); archival passages (``passages`` / ``archival_memory``) become facts; user and
assistant messages become interactions (an assistant ``send_message`` tool call carries
the reply text); system prompts, tool calls/returns, tools and other agent configuration
are accounted as ``system_log``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ai_memory.migration import Converted, Unimported, record_line

from . import (
    ImportOptions,
    RowError,
    guarded,
    iso,
    load_json,
    make_scope,
    safe_id,
    text_of,
    type_from_label,
    vectors_in,
)

SOURCE = "letta"
_CONFIG_KEYS = ("tools", "groups", "files", "sources", "mcp_servers")


def convert(path: Path, options: ImportOptions) -> Iterator[Converted]:
    """Convert one ``.af`` file (current or v1 schema)."""
    data = load_json(path)
    if not isinstance(data, Mapping):
        raise RowError(f"{path.name} is not a Letta agent file: expected a JSON object")
    agents = data.get("agents")
    if not isinstance(agents, list):
        agents = [data]  # v1: one agent at the top level
    raw_blocks = data.get("blocks") or []
    if not isinstance(raw_blocks, list):
        yield Unimported(f"{path.name}:blocks", "rejected", "blocks must be a JSON array")
        raw_blocks = []
    blocks = {str(b["id"]): b for b in raw_blocks if isinstance(b, Mapping) and b.get("id")}
    used_blocks: set[str] = set()
    file_time = data.get("created_at")
    for index, agent in enumerate(agents):
        ref = f"{path.name}:agents[{index}]"
        if not isinstance(agent, Mapping):
            yield Unimported(ref, "rejected", "malformed agent: expected a JSON object")
            continue
        # A malformed part of one agent (a field of the wrong type) rejects that agent only.
        yield from guarded(ref, _agent, agent, ref, blocks, used_blocks, file_time, options)
    for block_id in sorted(set(blocks) - used_blocks):
        yield Unimported(
            f"{path.name}:blocks[{block_id}]",
            "rejected",
            "block not attached to any agent in the file",
        )
    if agents is not data.get("agents"):
        return
    for key in _CONFIG_KEYS:
        items = data.get(key)
        for i, _item in enumerate(items if isinstance(items, list) else []):
            yield Unimported(
                f"{path.name}:{key}[{i}]", "system_log", f"agent configuration ({key}), not memory"
            )


def _agent(
    agent: Mapping[str, Any],
    ref: str,
    blocks: Mapping[str, Mapping[str, Any]],
    used_blocks: set[str],
    file_time: object,
    options: ImportOptions,
) -> Iterator[Converted]:
    name = str(agent.get("name") or agent.get("id") or "agent")
    scope = make_scope("agent", name, options)
    agent_time = agent.get("created_at") or file_time
    own = agent.get("core_memory") or agent.get("memory_blocks") or []
    attached: list[tuple[str, Any]] = [(f"{ref}.core_memory[{i}]", b) for i, b in enumerate(own)]
    for block_id in agent.get("block_ids") or []:
        block = blocks.get(str(block_id))
        if block is None:
            yield Unimported(
                f"{ref}.block_ids[{block_id}]", "rejected", f"block {block_id!r} is not in the file"
            )
            continue
        used_blocks.add(str(block_id))
        attached.append((f"blocks[{block_id}]", block))
    for block_ref, block in attached:
        yield from guarded(block_ref, _block, block, block_ref, name, scope, agent_time, options)
    for i, message in enumerate(agent.get("messages") or []):
        msg_ref = f"{ref}.messages[{i}]"
        yield from guarded(msg_ref, _message, message, msg_ref, i, name, scope, options)
    for key in ("passages", "archival_memory", "archival_passages"):
        for i, passage in enumerate(agent.get(key) or []):
            p_ref = f"{ref}.{key}[{i}]"
            yield from guarded(p_ref, _passage, passage, p_ref, i, name, scope, options)
    if agent.get("system"):
        yield Unimported(f"{ref}.system", "system_log", "system prompt (agent configuration)")


def _block(
    block: Any, ref: str, agent: str, scope: str, agent_time: object, options: ImportOptions
) -> Iterator[Converted]:
    if not isinstance(block, Mapping):
        raise RowError("a memory block must be a JSON object")
    label = str(block.get("label") or block.get("name") or "")
    value = block.get("value")
    if not label:
        raise RowError("memory block without a label")
    if not isinstance(value, str):
        raise RowError(f"memory block {label!r} has no text value")
    if not value.strip():
        yield Unimported(ref, "rejected", f"memory block {label!r} is empty")
        return
    meta: dict[str, Any] = {"source": SOURCE, "agent": agent, "label": label}
    for key in ("limit", "description", "id"):
        if block.get(key) is not None:
            meta["block_" + key] = block[key]
    yield record_line(
        {
            "id": safe_id("letta", agent, "block", label),
            "type": "preference" if label == "human" else type_from_label(label),
            "content": value.strip(),
            "scope": scope,
            "source_agent": options.source_agent or agent,
            "created_at": iso(block.get("created_at") or agent_time),
            "tags": ["letta", f"block:{label}"],
            "meta": meta,
        }
    )


def _reply_text(message: Mapping[str, Any]) -> str:
    """The text of a message, or the ``message`` argument of a ``send_message`` call."""
    text = text_of(message.get("content")) or text_of(message.get("text"))
    if text:
        return text
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping) and function.get("name") == "send_message":
            args = function.get("arguments")
            parsed = json.loads(args) if isinstance(args, str) else args
            if isinstance(parsed, Mapping) and isinstance(parsed.get("message"), str):
                return str(parsed["message"]).strip()
    return ""


def _message(
    message: Any, ref: str, index: int, agent: str, scope: str, options: ImportOptions
) -> Iterator[Converted]:
    if not isinstance(message, Mapping):
        raise RowError("a message must be a JSON object")
    role = str(message.get("role") or "")
    if role in ("system", "tool", "function"):
        yield Unimported(ref, "system_log", f"{role} message (prompt or tool output), not memory")
        return
    if role not in ("user", "assistant"):
        raise RowError(f"unknown message role {role!r}")
    text = _reply_text(message)
    if not text:
        yield Unimported(ref, "system_log", f"{role} message without text (tool call only)")
        return
    created = iso(message.get("created_at"))
    if created is None:
        raise RowError("message without created_at")
    yield record_line(
        {
            "id": safe_id("letta", agent, "msg", message.get("id") or index),
            "type": "interaction",
            "content": f"{role}: {text}",
            "scope": scope,
            "source_agent": options.source_agent or agent,
            "created_at": created,
            "tags": ["letta", "message", role],
            "meta": {
                "source": SOURCE,
                "agent": agent,
                "role": role,
                "message_id": message.get("id"),
            },
        }
    )


def _passage(
    passage: Any, ref: str, index: int, agent: str, scope: str, options: ImportOptions
) -> Iterator[Converted]:
    if not isinstance(passage, Mapping):
        raise RowError("an archival passage must be a JSON object")
    text = passage.get("text") or passage.get("content")
    if not isinstance(text, str) or not text.strip():
        raise RowError("archival passage without text")
    yield from vectors_in(passage, ref)
    yield record_line(
        {
            "id": safe_id("letta", agent, "passage", passage.get("id") or index),
            "type": "fact",
            "content": text.strip(),
            "scope": scope,
            "source_agent": options.source_agent or agent,
            "created_at": iso(passage.get("created_at")),
            "tags": ["letta", "archival"],
            "meta": {"source": SOURCE, "agent": agent, "passage_id": passage.get("id")},
        }
    )
