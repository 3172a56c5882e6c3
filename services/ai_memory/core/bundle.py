"""The NDJSON export bundle, format ``ai-memory.bundle`` version 1 (pure encode/decode).

Line kinds, one JSON object per line:

* ``header``    — first line: format, format_version, producer, exported_at, filters
* ``record``    — ``{"kind": "record", "record": {portable record fields}, "state": ...,
  "version": ...}``; ``record`` holds exactly the record's fields (docs/API.md)
* ``tombstone`` — ``{"kind": "tombstone", "id", "scope", "deleted_at", "reason"}`` (no content)
* ``trailer``   — last line: counts and the SHA-256 of every line before it

Readers accept a missing header/trailer (hand-written NDJSON) and ignore unknown keys at
the line level from newer format versions; record fields themselves are validated
strictly. No vectors are ever exported: text is the source of truth.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .errors import InvalidInput
from .record import StoredRecord, Tombstone, check_utf8
from .timeparse import format_timestamp

FORMAT_NAME = "ai-memory.bundle"
FORMAT_VERSION = 1
LINE_KINDS = ("header", "record", "tombstone", "trailer")
_LINE_KEYS = {
    # ``lineage`` is reserved for a later writer; v1 readers accept and ignore it.
    "record": {"kind", "record", "state", "version", "updated_at", "read_count", "lineage"},
    "tombstone": {"kind", "id", "scope", "deleted_at", "reason"},
}
# Where a lone surrogate in a parsed line can come from: a surrogate in the text itself,
# or a ``\uXXXX`` escape in D800–DFFF (JSON escapes are spelled with a lowercase ``u``;
# the hex digits in either case). A text with neither cannot decode to one.
_SURROGATE_SOURCE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")


def dumps(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def header_line(*, producer: str, exported_at: datetime, filters: Mapping[str, Any]) -> str:
    return dumps(
        {
            "kind": "header",
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "producer": producer,
            "exported_at": format_timestamp(exported_at),
            "filters": dict(filters),
        }
    )


def record_line(stored: StoredRecord) -> str:
    return dumps(
        {
            "kind": "record",
            "record": stored.record.to_json(),
            "state": stored.state.value,
            "version": stored.version,
            "updated_at": format_timestamp(stored.updated_at),
            "read_count": stored.read_count,
        }
    )


def tombstone_line(tombstone: Tombstone) -> str:
    return dumps({"kind": "tombstone", **tombstone.to_json()})


def trailer_line(*, records: int, tombstones: int, sha256: str) -> str:
    return dumps(
        {
            "kind": "trailer",
            "counts": {"records": records, "tombstones": tombstones},
            "sha256": sha256,
        }
    )


@dataclass(frozen=True)
class BundleLine:
    kind: str
    body: dict[str, Any]


def parse_line(text: str) -> BundleLine:
    """Parse one NDJSON line; raise InvalidInput naming what is wrong (and nothing else,
    whatever the line holds)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidInput(
            "line", "json", f"not valid JSON: {e.msg} at column {e.colno}", code="malformed_json"
        ) from e
    except RecursionError as e:  # nesting deeper than the parser's stack
        raise InvalidInput(
            "line", "json", "the line nests too deeply to be a memory", code="malformed_json"
        ) from e
    if not isinstance(obj, dict):
        raise InvalidInput(
            "line", "json_object", "each line must be a JSON object", code="malformed_json"
        )
    if _may_spell_surrogate(text):
        _check_text(obj)
    kind = obj.get("kind")
    if kind is None and "content" in obj:
        # A bare record (hand-written NDJSON): the whole line is the record.
        return BundleLine("record", {"kind": "record", "record": obj})
    if kind not in LINE_KINDS:
        raise InvalidInput(
            "kind", "enum", f"kind must be one of {', '.join(LINE_KINDS)}", code="unknown_line_kind"
        )
    if kind == "header":
        if obj.get("format") != FORMAT_NAME:
            raise InvalidInput(
                "format",
                "bundle_format",
                f"header format must be {FORMAT_NAME!r}",
                code="unsupported_format",
            )
        version = obj.get("format_version")
        if not isinstance(version, int) or version < 1:
            raise InvalidInput(
                "format_version",
                "positive_integer",
                "header format_version must be a positive integer",
                code="unsupported_format",
            )
    if kind == "record" and not isinstance(obj.get("record"), dict):
        raise InvalidInput("record", "json_object", "a record line needs a 'record' object")
    if kind == "tombstone":
        for key in ("id", "scope"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                raise InvalidInput(key, "required", f"a tombstone line needs {key!r}")
    return BundleLine(str(kind), obj)


def _may_spell_surrogate(text: str) -> bool:
    """Whether the parsed ``text`` could hold a lone surrogate. Walking every string of a
    line costs more than parsing it, so the walk runs only when this says yes; a paired
    escape or an escaped backslash before ``u`` also says yes (the walk is the judge,
    never this scan). ASCII text without ``\\u`` (most lines) is answered without a scan."""
    if text.isascii() and "\\u" not in text:
        return False
    return _SURROGATE_SOURCE.search(text) is not None


def _check_text(obj: dict[str, Any]) -> None:
    """Every string of the line, keys included, must be encodable UTF-8: JSON escapes can
    spell lone surrogates (``"\\ud800"``), and ids are derived from the text. The error
    names the record field (or the line key) holding it."""
    stack: list[tuple[object, str]] = []
    for key, value in obj.items():
        stack.append((key, "line"))
        if key == "record" and isinstance(value, dict):  # name the record's own fields
            stack.extend((inner_key, "record") for inner_key in value)
            stack.extend((inner, str(inner_key)) for inner_key, inner in value.items())
        else:
            stack.append((value, str(key)))
    while stack:
        node, field = stack.pop()
        if isinstance(node, str):
            check_utf8(node, field if _usable_field(field) else "line")
        elif isinstance(node, dict):
            stack.extend((k, field) for k in node)
            stack.extend((v, field) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, field) for v in node)


def _usable_field(name: str) -> bool:
    """Whether a key may itself be used as the field of an error."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return name.isprintable() and len(name) <= 80


def unknown_line_keys(line: BundleLine, format_version: int) -> list[str]:
    """Keys this reader does not know; only an error for bundles of our own version."""
    known = _LINE_KEYS.get(line.kind)
    if known is None or format_version > FORMAT_VERSION:
        return []
    return sorted(set(line.body) - known)
