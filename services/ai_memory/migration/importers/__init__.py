"""Importers for the memory formats people actually have.

Each module converts one tool's real export shape into the shared output contract of
:mod:`ai_memory.migration` (bundle line dicts or :class:`Unimported` rows):

* :mod:`.mem0` — Mem0 ``get_all`` / export JSON and its SQLite ``history`` table
* :mod:`.letta` — Letta Agent File (``.af``), both the current multi-agent schema and v1
* :mod:`.zep` — Zep / Graphiti graph dumps (episodes, entity nodes, entity edges)
* :mod:`.langmem` — LangGraph ``BaseStore`` items (LangMem memories are such items)
* :mod:`.cognee` — COGX archives written by ``cognee.export(format="cogx")``

This module holds what they share: :class:`ImportOptions` (scope mapping, defaults),
scope and id normalisation, timestamp normalisation and the per-row error guard that
turns a malformed row into a clear ``rejected`` row while the others still import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.timeparse import format_timestamp, parse_timestamp
from ai_memory.migration import Converted, Unimported

__all__ = [
    "PREFERENCE_TEXT",
    "VECTOR_KEYS",
    "ImportOptions",
    "RowError",
    "guarded",
    "iso",
    "load_json",
    "make_scope",
    "parse_scope_map",
    "safe_id",
    "text_of",
    "type_from_label",
    "vectors_in",
]

VECTOR_KEYS = ("embedding", "embeddings", "vector", "fact_embedding", "name_embedding")
_SCOPE_NAME_BAD = re.compile(r"\s+")
# Text that states a preference (English and Chinese), for sources without types.
PREFERENCE_TEXT = re.compile(
    r"\b(prefer|prefers|preferred|likes?|dislikes?|loves?|hates?|favou?rite)\b|喜欢|偏好",
    re.IGNORECASE,
)
_KIND_BAD = re.compile(r"[^a-z0-9_-]+")


class RowError(ValueError):
    """A source row that cannot be converted; the message says what is wrong with it."""


@dataclass(frozen=True)
class ImportOptions:
    """Options every importer honours.

    ``scope_map`` maps a whole scope (``user:alice`` → ``user:a.smith``) or, when the key
    ends with ``:``, a scope kind (``group:`` → ``user:``). ``default_scope`` is used when
    the source row names no owner. ``source_agent`` is the fallback writer name.
    """

    scope_map: Mapping[str, str] = field(default_factory=dict)
    default_scope: str = "user:default"
    source_agent: str = ""

    def scope(self, scope: str) -> str:
        """Apply the scope mapping to one (already well-formed) scope."""
        if scope in self.scope_map:
            return self.scope_map[scope]
        kind, sep, name = scope.partition(":")
        if sep and f"{kind}:" in self.scope_map:
            return f"{self.scope_map[kind + ':']}{name}"
        return scope


def parse_scope_map(pairs: list[str] | None) -> dict[str, str]:
    """``["a=b", "group:=user:"]`` → ``{"a": "b", "group:": "user:"}``; clear errors."""
    mapping: dict[str, str] = {}
    for pair in pairs or []:
        old, sep, new = pair.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise ValueError(
                f"--scope-map expects OLD=NEW (e.g. user:alice=user:a.smith), got {pair!r}"
            )
        mapping[old.strip()] = new.strip()
    return mapping


def make_scope(kind: str, name: object, options: ImportOptions) -> str:
    """A valid ``<kind>:<name>`` scope from source identifiers, then mapped."""
    text = _SCOPE_NAME_BAD.sub("-", str(name).strip()).lstrip(":")
    if not text:
        return options.scope(options.default_scope)
    clean_kind = _KIND_BAD.sub("-", kind.lower()).strip("-")[:32] or "ns"
    if not clean_kind[0].isalpha():
        clean_kind = f"ns{clean_kind}"[:32]
    return options.scope(f"{clean_kind}:{text}")


def safe_id(*parts: object) -> str:
    """A record id from source identifiers: ``/`` and control characters are escaped."""
    raw = ":".join(str(p) for p in parts if p is not None and str(p) != "")
    cleaned = raw.replace("/", "%2F")
    cleaned = re.sub(r"[\x00-\x1f\x7f]", "", cleaned).strip()
    if not cleaned:
        raise RowError("the row has no identifier")
    return cleaned[:200]


def iso(value: object, field_name: str = "created_at") -> str | None:
    """Normalise any supported timestamp (ISO, naive, epoch s/ms) to UTC ISO-8601.

    ``None``/empty stays ``None``; anything unparseable raises :class:`RowError`.
    """
    if value is None or value == "":
        return None
    try:
        return format_timestamp(parse_timestamp(value, field=field_name))
    except InvalidInput as e:
        raise RowError(f"{field_name}: {e.message}") from e


def text_of(value: object) -> str:
    """Readable text from a string or a list of typed content parts (``{"text": ...}``)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        parts: list[str] = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(p for p in parts if p.strip()).strip()
    return ""


def type_from_label(label: str, default: str = "fact") -> str:
    """Guess the memory type from a block label / schema name / category."""
    low = label.lower()
    if any(k in low for k in ("pref", "human", "like", "style", "persona_user")):
        return "preference"
    if any(k in low for k in ("task", "todo", "plan", "project", "progress", "goal")):
        return "task"
    if any(k in low for k in ("lesson", "skill", "procedur", "instruction", "howto", "learn")):
        return "skill"
    if any(k in low for k in ("episode", "conversation", "interaction", "message")):
        return "interaction"
    return default


def vectors_in(row: Mapping[str, Any], ref: str) -> Iterator[Unimported]:
    """One ``vector_ignored`` row per non-empty vector field: text is the source of truth."""
    for key in VECTOR_KEYS:
        value = row.get(key)
        if value:
            yield Unimported(
                f"{ref}#{key}",
                "vector_ignored",
                f"{key} is a vector of the source's embedding model; vectors are never "
                "migrated (the target re-embeds the text)",
            )


def guarded(
    ref: str, convert: Callable[..., Iterator[Converted]], *args: Any
) -> Iterator[Converted]:
    """Run one row's conversion; a malformed row becomes one ``rejected`` row.

    Items are produced eagerly per row so a failure half-way through a row never leaves
    part of it imported.
    """
    try:
        items = list(convert(*args))
    except (
        RowError,
        InvalidInput,
        KeyError,
        TypeError,
        ValueError,
        AttributeError,
        RecursionError,  # a value nested deeper than the parser's or converter's stack
    ) as e:
        message = e.message if isinstance(e, InvalidInput) else str(e)
        if isinstance(e, KeyError):
            message = f"missing field {e.args[0]!r}"
        elif isinstance(e, RecursionError):
            message = "a value is nested too deeply"
        yield Unimported(ref, "rejected", f"malformed row: {message}")
        return
    yield from items


def load_json(path: Path) -> Any:
    """Parse a JSON file; a clear error names the file, line and column."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise RowError(
            f"{path.name} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from e
    except UnicodeDecodeError as e:
        raise RowError(f"{path.name} is not UTF-8 text") from e
    except RecursionError as e:
        raise RowError(f"{path.name} nests JSON deeper than any export does") from e
