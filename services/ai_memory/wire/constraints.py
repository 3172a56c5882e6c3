"""Constraints the OpenAPI document states for the wire's strings and numbers.

They are documentation, not the rules: the rules live once in ``ai_memory.core.record``
and answer 422 with the field and the rule. The document states a safe subset of what
is accepted (plain identifiers, readable text, the numeric ranges), so a client or a
fuzzer generating from the document produces requests that succeed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,99}$"
SCOPE_PATTERN = r"^(public|[a-z][a-z0-9_-]{0,31}:[A-Za-z0-9][A-Za-z0-9._@+-]{0,99})$"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,63}$"
TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,31}$"
# Readable text: starts with a letter or digit, no control characters.
TEXT_PATTERN = r"^[A-Za-z0-9][^\x00-\x1f\x7f-\x9f\ufffd]*$"
MAX_TTL_SECONDS = 3_155_760_000
MAX_CONTENT_CHARS = 16_384
MAX_QUERY_CHARS = 4096
MAX_TAGS = 32
# Unix seconds from 1970 to the end of 9999 (the range timestamps must fall in).
MAX_UNIX_SECONDS = 253_402_300_799


def doc(**schema: Any) -> Any:
    """Schema keywords for the document only (validation stays with the core rules)."""
    return Field(json_schema_extra=schema)


def doc_field(default: Any = ..., description: str | None = None, **schema: Any) -> Any:
    return Field(default, description=description, json_schema_extra=schema)


def identifier(max_length: int = 200) -> dict[str, Any]:
    return {"minLength": 1, "maxLength": max_length, "pattern": ID_PATTERN}


def scope() -> dict[str, Any]:
    return {"minLength": 1, "maxLength": 200, "pattern": SCOPE_PATTERN}


def name() -> dict[str, Any]:
    return {"minLength": 1, "maxLength": 200, "pattern": NAME_PATTERN}


def text(max_length: int) -> dict[str, Any]:
    return {"minLength": 1, "maxLength": max_length, "pattern": TEXT_PATTERN}


def tags() -> dict[str, Any]:
    return {
        "maxItems": MAX_TAGS,
        "items": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": TAG_PATTERN},
    }


def timestamp() -> dict[str, Any]:
    """ISO-8601 date-time, or Unix seconds within years 1970–9999."""
    return {
        "anyOf": [
            {"type": "string", "format": "date-time"},
            {"type": "integer", "minimum": 0, "maximum": MAX_UNIX_SECONDS},
        ]
    }


def optional(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null (replaces pydantic's ``anyOf`` for an optional field)."""
    if "anyOf" in schema:
        return {"anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = "array" if "items" in schema else "string"
    return {"anyOf": [{"type": kind, **schema}, {"type": "null"}]}


def replace_schema(schema: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """Document exactly ``schema`` (e.g. an optional field that must not be null)."""

    def apply(generated: dict[str, Any]) -> None:
        generated.pop("anyOf", None)
        generated.pop("default", None)
        generated.update(schema)

    return apply
