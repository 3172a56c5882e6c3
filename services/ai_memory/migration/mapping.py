"""Field mapping for the generic importer: which source column feeds which record field.

Syntax, the same on the command line and in a mapping file:

* ``--map content=text,created_at=ts,scope=user_id:user:{}`` — comma-separated
  ``target=column`` or ``target=column:template``; ``{}`` in the template is replaced by
  the column's value (``user_id=42`` with ``user:{}`` → scope ``user:42``).
* a JSON or YAML file with the same entries as keys plus two optional sections::

      content: text
      created_at: ts
      scope: "user_id:user:{}"
      defaults: {type: fact, source_agent: old-bot, scope: "user:alice"}
      types: {pref: preference, kb: fact}

Targets: ``id``, ``content``, ``created_at``, ``scope``, ``type``, ``source_agent``,
``tags``, ``ttl``. Anything not mapped is auto-detected from common column names
(case-insensitive, first match wins; see :data:`AUTO_COLUMNS`). Columns that hold
embeddings are recognised by name or shape and never imported (:func:`is_vector`).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_memory.core.record import MemoryType

TARGETS = ("id", "content", "created_at", "scope", "type", "source_agent", "tags", "ttl")
AUTO_COLUMNS: dict[str, tuple[str, ...]] = {
    "content": ("content", "text", "memory", "body", "message", "msg", "note", "value"),
    "created_at": (
        "created_at",
        "createdat",
        "timestamp",
        "ts",
        "time",
        "date",
        "datetime",
        "created",
        "inserted_at",
        "updated_at",
    ),
    "scope": ("scope", "user_id", "userid", "user", "namespace", "agent_id", "team_id"),
    "type": ("type", "category", "kind", "memory_type", "memorytype"),
    "id": ("id", "memory_id", "memoryid", "uuid", "_id"),
    "source_agent": ("source_agent", "sourceagent", "agent", "agent_name", "source", "app"),
    "tags": ("tags", "labels", "keywords"),
    "ttl": ("ttl", "ttl_seconds"),
}
# Scope templates for auto-detected owner columns; None: the value is a scope already
# ("public", "team:x"), else it names a user.
AUTO_SCOPE_TEMPLATES: dict[str, str | None] = {
    "scope": None,
    "namespace": None,
    "user_id": "user:{}",
    "userid": "user:{}",
    "user": "user:{}",
    "agent_id": "agent:{}",
    "team_id": "team:{}",
}
VECTOR_COLUMNS = frozenset(
    {
        "embedding",
        "embeddings",
        "vector",
        "vectors",
        "embed",
        "emb",
        "vec",
        "dense_vector",
        "text_embedding",
        "content_embedding",
    }
)
_MIN_VECTOR_DIMS = 16


class MappingError(ValueError):
    """A mapping spec or file that cannot be understood."""


@dataclass(frozen=True)
class FieldSpec:
    """Where a target's value comes from: a column and an optional ``{}`` template."""

    column: str
    template: str | None = None

    def apply(self, value: object) -> object:
        """The value after the template (whitespace inside the value becomes ``_``)."""
        if self.template is None:
            return value
        text = "_".join(str(value).split())
        return self.template.replace("{}", text)


@dataclass(frozen=True)
class FieldMap:
    """Explicit column choices, default values and extra type labels."""

    fields: Mapping[str, FieldSpec] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    types: Mapping[str, MemoryType] = field(default_factory=dict)

    def resolve(self, columns: tuple[str, ...]) -> dict[str, FieldSpec]:
        """Explicit specs plus auto-detected ones for the targets left unmapped."""
        resolved = dict(self.fields)
        lower = {c.lower(): c for c in columns}
        for target, names in AUTO_COLUMNS.items():
            if target in resolved:
                continue
            for name in names:
                if name in lower and lower[name] not in {s.column for s in resolved.values()}:
                    template = AUTO_SCOPE_TEMPLATES.get(name) if target == "scope" else None
                    resolved[target] = FieldSpec(lower[name], template)
                    break
        return resolved


def parse_entry(target: str, source: str) -> tuple[str, FieldSpec]:
    """One ``target=column[:template]`` entry."""
    target = target.strip()
    if target not in TARGETS:
        raise MappingError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    column, sep, template = source.strip().partition(":")
    if not column:
        raise MappingError(f"{target}: a column name is required")
    if sep and "{}" not in template:
        raise MappingError(f"{target}: the template {template!r} needs a '{{}}' placeholder")
    return target, FieldSpec(column, template if sep else None)


def parse_map_spec(spec: str, base: FieldMap | None = None) -> FieldMap:
    """Parse ``content=text,created_at=ts,scope=user_id:user:{}`` (over ``base``)."""
    fields = dict(base.fields) if base else {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        target, sep, source = item.partition("=")
        if not sep:
            raise MappingError(f"expected target=column, got {item!r}")
        key, value = parse_entry(target, source)
        fields[key] = value
    return FieldMap(fields, base.defaults if base else {}, base.types if base else {})


def mapping_from_dict(data: Mapping[str, Any]) -> FieldMap:
    """A FieldMap from a parsed mapping file."""
    fields: dict[str, FieldSpec] = {}
    for key, value in data.items():
        if key in ("defaults", "types"):
            continue
        if not isinstance(value, str):
            raise MappingError(f"{key}: expected 'column' or 'column:template'")
        target, spec = parse_entry(key, value)
        fields[target] = spec
    defaults = data.get("defaults") or {}
    raw_types = data.get("types") or {}
    if not isinstance(defaults, dict) or not isinstance(raw_types, dict):
        raise MappingError("'defaults' and 'types' must be mappings")
    unknown = sorted(set(defaults) - set(TARGETS))
    if unknown:
        raise MappingError(f"defaults: unknown target(s) {', '.join(unknown)}")
    types: dict[str, MemoryType] = {}
    for label, name in raw_types.items():
        try:
            types[str(label).strip().lower()] = MemoryType(str(name))
        except ValueError as e:
            raise MappingError(f"types: {name!r} is not a memory type") from e
    return FieldMap(fields, dict(defaults), types)


def load_mapping_file(path: Path) -> FieldMap:
    """Read a ``.json`` or ``.yaml``/``.yml`` mapping file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        yaml: Any = importlib.import_module("yaml")
        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if not isinstance(data, dict):
        raise MappingError(f"{path.name}: a mapping file must hold an object")
    return mapping_from_dict(data)


def is_vector(column: str, value: object) -> bool:
    """Does this column hold an embedding (by name, or by shape: bytes / long number list)?"""
    if value is None or value == "":
        return False
    if column.lower() in VECTOR_COLUMNS:
        return True
    if isinstance(value, bytes | bytearray | memoryview):
        return len(value) >= 4 * _MIN_VECTOR_DIMS and len(value) % 4 == 0
    if isinstance(value, list):
        return len(value) >= _MIN_VECTOR_DIMS and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value[:64]
        )
    if isinstance(value, str) and value[:1] == "[" and value.count(",") >= _MIN_VECTOR_DIMS - 1:
        head = value[1:200].replace(",", " ").split()
        try:
            [float(x.rstrip("]")) for x in head[:-1]]
        except ValueError:
            return False
        return True
    return False
