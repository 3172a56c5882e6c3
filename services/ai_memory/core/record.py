"""The portable memory record (docs/API.md, "The record") and its validation rules.

A ``MemoryRecord`` is what agents write and what exports carry. A ``StoredRecord`` is the
record as the record-store projection holds it: plus tenant, version, lifecycle state,
read count and the log position it reflects.

Validation lives here, once, so the HTTP edge, the importer and the CLI reject the same
inputs with the same ``field`` / ``rule`` / ``code``. It computes every value a projection
derives from a record (the expiry, UTC timestamps, the JSON and UTF-8 forms), so anything
it accepts can be stored, indexed and serialised:

* every string, anywhere (content, identifiers, tags, meta keys and nested values), is
  strictly encodable UTF-8 (no lone surrogates) — rule ``utf8``;
* identifiers (id, scope, source_agent, tags, meta keys) hold no control characters
  (C0, DEL, C1) — rule ``control_chars`` (or the identifier's own format rule);
* timestamps lie in years 1–9999 after conversion to UTC (``core.timeparse``);
* ``ttl`` ≤ ``Limits.max_ttl_seconds`` and ``created_at + ttl`` ≤ 9999-12-31T23:59:59Z —
  rules ``max_ttl`` / ``expiry_range``;
* ``meta`` nests at most ``Limits.max_meta_depth`` levels, has keys of at most
  ``Limits.max_meta_key_chars`` and at most ``Limits.max_meta_bytes`` as JSON; its errors
  name the offending path in the message;
* at most ``Limits.max_tags`` tags are *received* (counted before de-duplication, so a
  huge list is refused in linear time).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from .errors import InvalidInput
from .timeparse import MAX_TIMESTAMP, format_timestamp, parse_timestamp, short_repr

RECORD_SCHEMA_VERSION = 1
DEFAULT_TENANT = "default"


class MemoryType(StrEnum):
    FACT = "fact"
    TASK = "task"
    PREFERENCE = "preference"
    SKILL = "skill"
    INTERACTION = "interaction"


class MemoryState(StrEnum):
    ACTIVE = "active"
    HISTORICAL = "historical"
    ARCHIVED = "archived"
    FORGOTTEN = "forgotten"


@dataclass(frozen=True)
class Limits:
    """Deployment-configurable input limits."""

    max_content_bytes: int = 16_384
    max_tags: int = 32
    max_tag_chars: int = 64
    max_meta_bytes: int = 16_384
    max_id_chars: int = 200
    max_scope_chars: int = 200
    max_agent_chars: int = 200
    #: 100 Julian years; the expiry must also stay ≤ 9999-12-31T23:59:59Z.
    max_ttl_seconds: int = 3_155_760_000
    #: Nested objects/arrays, ``meta`` itself included (``{"a": {"b": 1}}`` is depth 2).
    max_meta_depth: int = 32
    max_meta_key_chars: int = 256


@dataclass(frozen=True)
class MemoryRecord:
    id: str
    type: MemoryType
    content: str
    scope: str
    source_agent: str
    created_at: datetime
    ttl: int | None = None
    tags: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    schema_version: int = RECORD_SCHEMA_VERSION

    def expires_at(self) -> datetime | None:
        return None if self.ttl is None else self.created_at + timedelta(seconds=self.ttl)

    def is_expired(self, now: datetime) -> bool:
        expiry = self.expires_at()
        return expiry is not None and expiry <= now

    def fingerprint(self) -> str:
        """SHA-256 over the canonical form of everything a writer controls.

        Two writes with the same fingerprint are the same memory: the second is a no-op.
        """
        canonical = json.dumps(
            {
                "type": self.type.value,
                "content": self.content,
                "scope": self.scope,
                "source_agent": self.source_agent,
                "created_at": format_timestamp(self.created_at),
                "ttl": self.ttl,
                "tags": list(self.tags),
                "meta": self.meta,
            },
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type.value,
            "content": self.content,
            "scope": self.scope,
            "source_agent": self.source_agent,
            "created_at": format_timestamp(self.created_at),
            "ttl": self.ttl,
            "tags": list(self.tags),
            "meta": dict(self.meta),
            "schema_version": self.schema_version,
        }


@dataclass(frozen=True)
class StoredRecord:
    tenant: str
    record: MemoryRecord
    version: int
    state: MemoryState
    content_sha256: str
    updated_at: datetime
    position: int
    read_count: int = 0
    last_read_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        body = self.record.to_json()
        body.update(
            {
                "version": self.version,
                "state": self.state.value,
                "updated_at": format_timestamp(self.updated_at),
                "read_count": self.read_count,
            }
        )
        return body


@dataclass(frozen=True)
class Tombstone:
    tenant: str
    memory_id: str
    scope: str
    deleted_at: datetime
    reason: str
    actor: str
    position: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.memory_id,
            "scope": self.scope,
            "deleted_at": format_timestamp(self.deleted_at),
            "reason": self.reason,
        }


# --- validation --------------------------------------------------------------------------

RECORD_FIELDS = frozenset(
    {
        "id",
        "type",
        "content",
        "scope",
        "source_agent",
        "created_at",
        "ttl",
        "tags",
        "meta",
        "schema_version",
    }
)
# Kinds named by the protocol plus a lowercase identifier for anything else a deployment
# needs (e.g. ``project:``); ``public`` is the one scope without a kind.
_SCOPE = re.compile(r"^(public|[a-z][a-z0-9_-]{0,31}:[^\s:][^\s]*)$")
# Free text (content, notes) may hold tab, LF and CR; nothing else of C0, nor DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Identifiers hold nothing invisible: no C0, DEL or C1 at all.
_IDENT_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# The only code points a Python str can hold that UTF-8 cannot encode: lone surrogates
# (JSON's "\ud800" decodes to one). Searching is cheaper than encoding to find them.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ID = re.compile(r"^[^\s/\x00-\x1f\x7f][^/\x00-\x1f\x7f]*$")


def safe_name(value: object, max_chars: int = 80) -> str:
    """``value`` as it may appear in an error (a field name or message): printable,
    encodable and short. Plain names stay as they are."""
    if (
        isinstance(value, str)
        and len(value) <= max_chars
        and value.isprintable()
        and not _SURROGATE.search(value)
    ):
        return value
    return short_repr(value, max_chars)


def check_utf8(value: str, field_name: str, where: str = "") -> str:
    """Refuse text UTF-8 cannot encode; every log, store and index needs UTF-8."""
    found = _SURROGATE.search(value)
    if found is not None:
        raise InvalidInput(
            field_name,
            "utf8",
            f"{field_name}{where} is not valid Unicode text: a lone surrogate "
            f"{found.group()!r} at index {found.start()}",
        )
    return value


def check_identifier(value: str, field_name: str, where: str = "") -> str:
    """An identifier: encodable UTF-8 without any control character."""
    check_utf8(value, field_name, where)
    found = _IDENT_CONTROL.search(value)
    if found is not None:
        raise InvalidInput(
            field_name,
            "control_chars",
            f"{field_name}{where} must not contain control characters "
            f"(found {found.group()!r} at index {found.start()})",
        )
    return value


def validate_scope(value: object, limits: Limits, field_name: str = "scope") -> str:
    if not isinstance(value, str) or not value:
        raise InvalidInput(field_name, "required", f"{field_name} is required (e.g. 'user:alice')")
    if len(value) <= limits.max_scope_chars:
        check_identifier(value, field_name)
    if len(value) > limits.max_scope_chars or not _SCOPE.match(value):
        raise InvalidInput(
            field_name,
            "scope_format",
            f"{field_name} must be 'public' or '<kind>:<name>' such as 'user:alice' or "
            f"'team:data-platform' (lowercase kind, no spaces, ≤{limits.max_scope_chars} chars)",
        )
    return value


def validate_id(value: object, limits: Limits) -> str:
    if not isinstance(value, str) or not value or len(value) > limits.max_id_chars:
        raise InvalidInput(
            "id", "id_format", f"id must be a non-empty string of ≤{limits.max_id_chars} chars"
        )
    check_identifier(value, "id")
    if value != value.strip() or not _ID.match(value):
        raise InvalidInput(
            "id", "id_format", "id must not contain '/', control characters or edge whitespace"
        )
    return value


def validate_content(value: object, limits: Limits) -> str:
    if isinstance(value, bytes | bytearray):
        raise InvalidInput("content", "text_only", "content must be UTF-8 text, not binary data")
    if not isinstance(value, str):
        raise InvalidInput("content", "text_only", "content must be a string")
    # Four bytes per character at most: a longer string cannot fit, whatever it holds.
    if len(value) > limits.max_content_bytes:
        raise InvalidInput(
            "content",
            "max_bytes",
            f"content is over {limits.max_content_bytes} bytes; "
            f"the limit is {limits.max_content_bytes} bytes",
            code="content_too_large",
        )
    check_utf8(value, "content")
    if not value.strip():
        raise InvalidInput("content", "non_empty", "content must not be empty")
    if _CONTROL.search(value) or "\ufffd" in value:
        raise InvalidInput(
            "content",
            "text_only",
            "content looks binary (control characters or undecodable bytes); "
            "store self-contained readable text",
        )
    size = len(value.encode("utf-8"))
    if size > limits.max_content_bytes:
        raise InvalidInput(
            "content",
            "max_bytes",
            f"content is {size} bytes; the limit is {limits.max_content_bytes} bytes",
            code="content_too_large",
        )
    return value


def _validate_text(value: object, field_name: str, max_chars: int) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field_name, "required", f"{field_name} is required")
    if len(value) > max_chars:  # before anything that reads the whole string
        raise InvalidInput(
            field_name, "format", f"{field_name} must be ≤{max_chars} printable characters"
        )
    text = value.strip()
    if not text:
        raise InvalidInput(field_name, "required", f"{field_name} is required")
    return check_identifier(text, field_name)


def validate_tags(value: object, limits: Limits) -> tuple[str, ...]:
    """At most ``max_tags`` received (before de-duplication), each 1–``max_tag_chars``
    printable characters after stripping; duplicates are dropped, first one kept."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise InvalidInput("tags", "string_list", "tags must be a list of strings")
    if len(value) > limits.max_tags:
        raise InvalidInput(
            "tags", "max_items", f"at most {limits.max_tags} tags are allowed, got {len(value)}"
        )
    tags: dict[str, None] = {}  # ordered set: linear-time de-duplication
    for raw in value:
        if not isinstance(raw, str):
            raise InvalidInput("tags", "string_list", "tags must be a list of strings")
        tag = raw.strip()
        if not tag or len(tag) > limits.max_tag_chars:
            raise InvalidInput(
                "tags",
                "tag_format",
                f"each tag must be 1–{limits.max_tag_chars} printable characters, "
                f"got {short_repr(raw)}",
            )
        check_identifier(tag, "tags")
        tags.setdefault(tag)
    return tuple(tags)


def validate_meta(value: object, limits: Limits) -> dict[str, Any]:
    """A JSON object within the depth, key and size limits; errors name the path."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput("meta", "json_object", "meta must be a JSON object")
    _check_json_tree(value, limits)
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput("meta", "json_object", "meta must contain only JSON values") from e
    if len(encoded.encode("utf-8")) > limits.max_meta_bytes:
        raise InvalidInput(
            "meta", "max_bytes", f"meta must be ≤{limits.max_meta_bytes} bytes as JSON"
        )
    result: dict[str, Any] = json.loads(encoded)
    return result


@dataclass(frozen=True, slots=True)
class _At:
    """Where a meta node is, kept as a chain so a path is only rendered for an error."""

    parent: _At | None
    key: object

    def __str__(self) -> str:
        keys: list[object] = []
        at: _At | None = self
        while at is not None:
            keys.append(at.key)
            at = at.parent
        # ASCII JSON strings: printable and encodable whatever a key holds.
        parts = (f"[{k}]" if isinstance(k, int) else f"[{json.dumps(str(k)[:40])}]" for k in keys)
        return "meta" + "".join(reversed(list(parts)))


def _check_json_tree(meta: dict[str, Any], limits: Limits) -> None:
    """Walk ``meta`` without recursion (a hostile document may nest thousands deep).

    Every value, every member and every character of a string costs at least one byte of
    JSON, so the walk spends a budget of ``max_meta_bytes`` and stops when it is gone:
    its time is bounded by the limit, not by the input (``len`` is checked before a
    container's members are visited)."""
    too_big = f"meta must be ≤{limits.max_meta_bytes} bytes as JSON"
    budget = limits.max_meta_bytes
    stack: list[tuple[object, _At | None, int]] = [(meta, None, 1)]
    while stack:
        node, at, depth = stack.pop()
        where = at if at is not None else "meta"
        if isinstance(node, dict | list | tuple):
            if depth > limits.max_meta_depth:
                raise InvalidInput(
                    "meta",
                    "max_depth",
                    f"meta nests deeper than {limits.max_meta_depth} levels at {where}",
                )
            budget -= 1 + len(node)  # brackets and separators; members pay for themselves
        elif isinstance(node, str):
            budget -= len(node) + 2
        else:
            budget -= 1
        if budget < 0:
            raise InvalidInput("meta", "max_bytes", too_big)
        if isinstance(node, dict):
            for key, child in node.items():
                if not isinstance(key, str):
                    raise InvalidInput(
                        "meta", "json_object", f"meta keys must be strings, at {where}"
                    )
                child_at = _At(at, key)
                if len(key) > limits.max_meta_key_chars:
                    raise InvalidInput(
                        "meta",
                        "key_length",
                        f"meta keys must be ≤{limits.max_meta_key_chars} characters, at {child_at}",
                    )
                budget -= len(key)
                if budget < 0:
                    raise InvalidInput("meta", "max_bytes", too_big)
                check_identifier(key, "meta", f" key at {child_at}")
                stack.append((child, child_at, depth + 1))
        elif isinstance(node, list | tuple):
            stack.extend((child, _At(at, i), depth + 1) for i, child in enumerate(node))
        elif isinstance(node, str):
            check_utf8(node, "meta", f" value at {where}")
        elif isinstance(node, float) and not math.isfinite(node):
            raise InvalidInput("meta", "json_object", f"meta numbers must be finite, at {where}")
        elif node is not None and not isinstance(node, bool | int | float):
            raise InvalidInput(
                "meta", "json_object", f"meta must contain only JSON values, at {where}"
            )


def validate_ttl(value: object, limits: Limits | None = None) -> int | None:
    if value is None:
        return None
    max_ttl = (limits or Limits()).max_ttl_seconds
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput("ttl", "positive_integer", "ttl must be a whole number of seconds")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InvalidInput("ttl", "positive_integer", "ttl must be a whole number of seconds")
    if value <= 0:
        raise InvalidInput("ttl", "positive_integer", "ttl must be > 0 seconds")
    if value > max_ttl:
        raise InvalidInput("ttl", "max_ttl", f"ttl must be ≤{max_ttl} seconds")
    return int(value)


def check_expiry(record: MemoryRecord) -> None:
    """The expiry a projection derives (``created_at + ttl``) must be a storable time."""
    if record.ttl is None:
        return
    try:
        expiry: datetime | None = record.expires_at()
    except OverflowError:
        expiry = None
    if expiry is None or expiry > MAX_TIMESTAMP:
        raise InvalidInput(
            "ttl",
            "expiry_range",
            "created_at + ttl must not pass 9999-12-31T23:59:59Z; use a shorter ttl",
        )


_TYPE_VALUES = frozenset(t.value for t in MemoryType)


def validate_type(value: object) -> MemoryType:
    if isinstance(value, str) and value in _TYPE_VALUES:
        return MemoryType(value)
    allowed = ", ".join(t.value for t in MemoryType)
    raise InvalidInput("type", "enum", f"type must be one of: {allowed}; got {short_repr(value)}")


def parse_record(
    data: Mapping[str, Any],
    *,
    now: datetime,
    limits: Limits,
    memory_id: str | None = None,
    default_created_at: datetime | None = None,
    new_id: str | None = None,
) -> MemoryRecord:
    """Validate untrusted input into a MemoryRecord.

    ``memory_id`` (from a URL) wins over a body id and must agree with it. ``created_at``
    defaults to ``default_created_at`` (the stored value on upsert) and then to ``now``.
    """
    if not isinstance(data, Mapping):
        raise InvalidInput("body", "json_object", "a memory must be a JSON object")
    # Key names reach the error (field and message): only their safe forms may.
    unknown = sorted(safe_name(k) for k in data if k not in RECORD_FIELDS)
    if unknown:
        raise InvalidInput(
            unknown[0],
            "unknown_field",
            f"unknown field(s): {', '.join(unknown[:10])}; "
            f"allowed: {', '.join(sorted(RECORD_FIELDS))}",
        )
    body_id = data.get("id")
    if memory_id is not None and body_id is not None and body_id != memory_id:
        raise InvalidInput("id", "matches_path", "the body id must match the id in the URL")
    raw_id = memory_id or body_id
    rid = validate_id(raw_id, limits) if raw_id is not None else (new_id or str(uuid.uuid4()))
    version = data.get("schema_version", RECORD_SCHEMA_VERSION)
    if version != RECORD_SCHEMA_VERSION:
        raise InvalidInput(
            "schema_version",
            "supported",
            f"schema_version {short_repr(version)} is not supported "
            f"(this server reads {RECORD_SCHEMA_VERSION})",
        )
    raw_created = data.get("created_at")
    created = (
        parse_timestamp(raw_created) if raw_created is not None else (default_created_at or now)
    )
    record = MemoryRecord(
        id=rid,
        type=validate_type(data.get("type")),
        content=validate_content(data.get("content"), limits),
        scope=validate_scope(data.get("scope"), limits),
        source_agent=_validate_text(
            data.get("source_agent"), "source_agent", limits.max_agent_chars
        ),
        created_at=created,
        ttl=validate_ttl(data.get("ttl"), limits),
        tags=validate_tags(data.get("tags"), limits),
        meta=validate_meta(data.get("meta"), limits),
    )
    check_expiry(record)
    return record


def record_from_json(data: Mapping[str, Any]) -> MemoryRecord:
    """Rebuild a record already validated once (stored rows, decoded events)."""
    return MemoryRecord(
        id=str(data["id"]),
        type=MemoryType(data["type"]),
        content=str(data["content"]),
        scope=str(data["scope"]),
        source_agent=str(data["source_agent"]),
        created_at=parse_timestamp(data["created_at"]),
        ttl=data.get("ttl"),
        tags=tuple(data.get("tags") or ()),
        meta=dict(data.get("meta") or {}),
        schema_version=int(data.get("schema_version", RECORD_SCHEMA_VERSION)),
    )
