"""The portable memory record (seed 000 §2.1) and its validation rules.

A ``MemoryRecord`` is what agents write and what exports carry. A ``StoredRecord`` is the
record as the record-store projection holds it: plus tenant, version, lifecycle state,
read count and the log position it reflects.

Validation lives here, once, so the HTTP edge, the importer and the CLI reject the same
inputs with the same ``field`` / ``rule`` / ``code``.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from .errors import InvalidInput
from .timeparse import format_timestamp, parse_timestamp

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
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ID = re.compile(r"^[^\s/\x00-\x1f\x7f][^/\x00-\x1f\x7f]*$")


def validate_scope(value: object, limits: Limits, field_name: str = "scope") -> str:
    if not isinstance(value, str) or not value:
        raise InvalidInput(field_name, "required", f"{field_name} is required (e.g. 'user:alice')")
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
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(field_name, "required", f"{field_name} is required")
    if len(value) > max_chars or _CONTROL.search(value):
        raise InvalidInput(
            field_name, "format", f"{field_name} must be ≤{max_chars} printable characters"
        )
    return value.strip()


def validate_tags(value: object, limits: Limits) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(t, str) for t in value):
        raise InvalidInput("tags", "string_list", "tags must be a list of strings")
    tags: list[str] = []
    for raw in value:
        tag = raw.strip()
        if not tag or len(tag) > limits.max_tag_chars or _CONTROL.search(tag):
            raise InvalidInput(
                "tags",
                "tag_format",
                f"each tag must be 1–{limits.max_tag_chars} printable characters, got {raw!r}",
            )
        if tag not in tags:
            tags.append(tag)
    if len(tags) > limits.max_tags:
        raise InvalidInput("tags", "max_items", f"at most {limits.max_tags} tags are allowed")
    return tuple(tags)


def validate_meta(value: object, limits: Limits) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput("meta", "json_object", "meta must be a JSON object")
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


def validate_ttl(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidInput("ttl", "positive_integer", "ttl must be a whole number of seconds")
    if value <= 0:
        raise InvalidInput("ttl", "positive_integer", "ttl must be > 0 seconds")
    return int(value)


_TYPE_VALUES = frozenset(t.value for t in MemoryType)


def validate_type(value: object) -> MemoryType:
    if isinstance(value, str) and value in _TYPE_VALUES:
        return MemoryType(value)
    allowed = ", ".join(t.value for t in MemoryType)
    raise InvalidInput("type", "enum", f"type must be one of: {allowed}; got {value!r}")


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
    unknown = sorted(set(data) - RECORD_FIELDS)
    if unknown:
        raise InvalidInput(
            unknown[0],
            "unknown_field",
            f"unknown field(s): {', '.join(unknown)}; allowed: {', '.join(sorted(RECORD_FIELDS))}",
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
            f"schema_version {version!r} is not supported "
            f"(this server reads {RECORD_SCHEMA_VERSION})",
        )
    raw_created = data.get("created_at")
    created = (
        parse_timestamp(raw_created) if raw_created is not None else (default_created_at or now)
    )
    return MemoryRecord(
        id=rid,
        type=validate_type(data.get("type")),
        content=validate_content(data.get("content"), limits),
        scope=validate_scope(data.get("scope"), limits),
        source_agent=_validate_text(
            data.get("source_agent"), "source_agent", limits.max_agent_chars
        ),
        created_at=created,
        ttl=validate_ttl(data.get("ttl")),
        tags=validate_tags(data.get("tags"), limits),
        meta=validate_meta(data.get("meta"), limits),
    )


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
