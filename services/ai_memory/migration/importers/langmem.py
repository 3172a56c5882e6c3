"""LangGraph store items, which is what LangMem memories are.

An item (``langgraph/store/base/__init__.py`` ``Item.dict()``) is ``{"namespace":
[...], "key", "value": {...}, "created_at", "updated_at"}`` (search results add
``score``). LangMem's memory manager stores ``value = {"kind": "Memory", "content":
{"content": "<text>"}}`` — or ``{"kind": "<Schema>", "content": {fields}}`` for custom
schemas (``langmem/knowledge/extraction.py``). A dump is a JSON list of items, an object
wrapping one (``items`` / ``memories`` / ``results``), or NDJSON, one item a line.

Mapping: namespace → scope (``("memories", "alice")`` → ``user:alice``; the first label
is the kind for other namespaces, e.g. ``("team", "data")`` → ``team:data``), then
``--scope-map``; ``kind`` / value keys pick the type; schema values are rendered as
readable ``field: value`` text. An item whose ``value`` is ``null`` is a LangGraph
delete (``PutOp`` with ``value=None``) and becomes a tombstone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ai_memory.migration import Converted, Unimported, record_line, tombstone_line

from . import (
    PREFERENCE_TEXT,
    ImportOptions,
    RowError,
    guarded,
    iso,
    load_json,
    make_scope,
    safe_id,
    type_from_label,
)

SOURCE = "langgraph"
_USER_LABELS = {"memories", "memory", "user", "users", "user_memories", "profile", "profiles"}
_AGENT_LABELS = {"agent", "agents", "assistant", "assistants"}
_TEXT_KEYS = ("content", "text", "memory", "data", "note")


def items_of(path: Path) -> list[tuple[str, Any]]:
    """``(ref, item)`` pairs from a JSON or NDJSON dump."""
    if path.suffix in (".ndjson", ".jsonl"):
        out: list[tuple[str, Any]] = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                out.append((f"{path.name}:{number}", json.loads(line)))
            except json.JSONDecodeError as e:
                out.append((f"{path.name}:{number}", RowError(f"not valid JSON: {e.msg}")))
            except RecursionError:
                out.append((f"{path.name}:{number}", RowError("the line nests JSON too deeply")))
        return out
    data = load_json(path)
    if isinstance(data, Mapping):
        for key in ("items", "memories", "results"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        raise RowError(f"{path.name}: expected a list of LangGraph store items")
    return [(f"{path.name}:[{i}]", item) for i, item in enumerate(data)]


def convert(path: Path, options: ImportOptions) -> Iterator[Converted]:
    """Convert a LangGraph / LangMem store dump."""
    for ref, item in items_of(path):
        if isinstance(item, RowError):
            yield Unimported(ref, "rejected", f"malformed row: {item}")
            continue
        yield from guarded(ref, _item, item, options)


def namespace_scope(namespace: list[str], options: ImportOptions) -> str:
    """The scope a namespace maps to (before and after ``--scope-map``)."""
    if len(namespace) == 1:
        return make_scope("ns", namespace[0], options)
    head, rest = namespace[0].lower(), ".".join(namespace[1:])
    if head in _USER_LABELS:
        return make_scope("user", rest, options)
    if head in _AGENT_LABELS:
        return make_scope("agent", rest, options)
    return make_scope(head, rest, options)


def _render(value: Mapping[str, Any]) -> str:
    parts = [f"{k}: {v}" for k, v in value.items() if v not in (None, "", [], {})]
    return "; ".join(parts)


def _content(value: Mapping[str, Any]) -> tuple[str, str]:
    """(text, kind) of a store value."""
    kind = str(value.get("kind") or "")
    inner = value.get("content")
    if isinstance(inner, Mapping):
        text = next((inner[k] for k in _TEXT_KEYS if isinstance(inner.get(k), str)), None)
        rendered = text if text is not None else _render(inner)
        return rendered.strip(), kind
    for key in _TEXT_KEYS:
        if isinstance(value.get(key), str):
            return str(value[key]).strip(), kind
    return _render({k: v for k, v in value.items() if k != "kind"}).strip(), kind


def _item(item: Any, options: ImportOptions) -> Iterator[Converted]:
    if not isinstance(item, Mapping):
        raise RowError("a store item must be a JSON object")
    namespace = item.get("namespace")
    if isinstance(namespace, str):
        namespace = namespace.split(".")
    if (
        not isinstance(namespace, list)
        or not namespace
        or not all(isinstance(n, str) and n for n in namespace)
    ):
        raise RowError("namespace must be a non-empty list of strings")
    key = item.get("key")
    if not isinstance(key, str) or not key:
        raise RowError("key must be a non-empty string")
    scope = namespace_scope(namespace, options)
    memory_id = safe_id("langgraph", ".".join(namespace), key)
    value = item.get("value", ...)
    if value is None:
        deleted_at = iso(item.get("updated_at") or item.get("created_at"), "deleted_at")
        if deleted_at is None:
            raise RowError("a deleted item (value null) needs updated_at")
        yield tombstone_line(memory_id, scope, deleted_at, "langgraph_delete")
        return
    if not isinstance(value, Mapping):
        raise RowError("value must be a JSON object")
    text, kind = _content(value)
    if not text:
        raise RowError("value holds no text")
    declared = value.get("type")
    mem_type = (
        declared if declared in ("fact", "task", "preference", "skill", "interaction") else None
    )
    yield record_line(
        {
            "id": memory_id,
            "type": mem_type
            or type_from_label(
                kind or namespace[0], "preference" if PREFERENCE_TEXT.search(text) else "fact"
            ),
            "content": text,
            "scope": scope,
            "source_agent": options.source_agent or SOURCE,
            "created_at": iso(item.get("created_at")),
            "tags": [t for t in ("langgraph", kind) if t],
            "meta": {
                "source": SOURCE,
                "namespace": list(namespace),
                "key": key,
                "kind": kind or None,
                "updated_at": iso(item.get("updated_at"), "updated_at"),
            },
        }
    )
