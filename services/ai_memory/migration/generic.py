"""The generic importer: arbitrary JSON / JSONL / CSV / SQLite rows → bundle lines.

Each source row becomes exactly one :data:`~ai_memory.migration.Converted` item:

* a ``record`` line with the portable fields, ``created_at`` normalised to UTC ISO-8601
  (Unix seconds, Unix milliseconds, naive ``YYYY-MM-DD HH:mm:ss`` in ``naive_tz``, ISO
  with an offset — via ``core.timeparse``), unmapped scalar columns kept in
  ``meta.source_fields`` and the row's location in ``meta.source_ref``;
* ``Unimported(system_log)`` for log lines, stack traces, access lines, heartbeat noise;
* ``Unimported(vector_ignored)`` for rows that hold only an embedding (no text) — vectors
  are never imported, the server re-embeds content; a vector column next to text is
  dropped and counted in ``notes["vector_column_dropped"]``;
* ``Unimported(duplicate)`` for the same memory (same id and content) seen earlier;
* ``Unimported(rejected)`` with a reason for anything malformed (unparseable row, no text,
  bad or implausible timestamp, invalid scope...), while the other rows go on.

Rows that already are bundle lines (``kind: record`` / ``tombstone``) pass through.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits, MemoryType, parse_record
from ai_memory.core.timeparse import format_timestamp, parse_timestamp

from . import Converted, Unimported, record_line
from .classify import classify, guess_type, map_type
from .mapping import FieldMap, FieldSpec, is_vector
from .sources import SourceRow, read_rows

EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
_MS_THRESHOLD = 100_000_000_000
_NUMERIC = re.compile(r"^[+-]?\d+(\.\d+)?$")
_MAX_EXTRA_FIELDS = 20
_MAX_EXTRA_CHARS = 500
# Same namespace as ``service.transfer``: an id derived here equals the one it derives.
_ID_NAMESPACE = uuid.UUID("6f1c1a8e-4f55-4b43-9a43-6d656d6f7279")


@dataclass(frozen=True)
class GenericOptions:
    """How to read rows: mapping, timezone of naive times, defaults for missing fields."""

    mapping: FieldMap = field(default_factory=FieldMap)
    naive_tz: tzinfo = UTC
    default_scope: str = "user:default"
    default_agent: str = "generic-import"
    default_type: MemoryType | None = None
    keep_extra: bool = True
    now: datetime | None = None
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class RowView:
    """A row seen through the mapping: raw values per target, extras and vector columns."""

    ref: str
    values: dict[str, Any]
    extra: dict[str, Any]
    vectors: tuple[str, ...]

    def get(self, target: str) -> Any:
        """The raw value for ``target`` (None when absent or empty)."""
        value = self.values.get(target)
        return None if isinstance(value, str) and not value.strip() else value


class RowReader:
    """Resolves the mapping once per distinct column set and views rows through it."""

    def __init__(self, mapping: FieldMap) -> None:
        self.mapping = mapping
        self._cache: dict[tuple[str, ...], dict[str, FieldSpec]] = {}

    def view(self, ref: str, data: dict[str, Any]) -> RowView:
        """Split ``data`` into mapped values, extra columns and vector columns."""
        columns = tuple(data)
        specs = self._cache.get(columns)
        if specs is None:
            specs = self._cache[columns] = self.mapping.resolve(columns)
        used = {spec.column for spec in specs.values()}
        values: dict[str, Any] = {}
        for target, spec in specs.items():
            raw = data.get(spec.column)
            if raw is not None and raw != "":
                values[target] = spec.apply(raw) if target == "scope" else raw
        vectors = tuple(c for c, v in data.items() if c not in used and is_vector(c, v))
        extra = {c: v for c, v in data.items() if c not in used and c not in vectors}
        return RowView(ref, values, extra, vectors)


def timestamp_kind(value: object) -> str:
    """``unix_s`` / ``unix_ms`` / ``iso_offset`` / ``naive`` / ``date`` / ``other``."""
    if isinstance(value, bool):
        return "other"
    if isinstance(value, int | float):
        return "unix_ms" if abs(value) >= _MS_THRESHOLD else "unix_s"
    if not isinstance(value, str):
        return "other"
    text = value.strip()
    if _NUMERIC.match(text):
        return timestamp_kind(float(text))
    if len(text) == 10 and text[4:5] == "-":
        return "date"
    tail = text[10:]
    if text.endswith(("Z", "z")) or "+" in tail or "-" in tail:
        return "iso_offset"
    return "naive"


def normalize_timestamp(
    value: object, *, naive_tz: tzinfo = UTC, now: datetime | None = None
) -> str:
    """UTC ISO-8601 for ``value``; InvalidInput if unparseable, before 1990 or in the future."""
    parsed = parse_timestamp(value, naive_tz=naive_tz)
    if parsed < EARLIEST:
        raise InvalidInput(
            "created_at",
            "timestamp_range",
            f"created_at {value!r} is before 1990 (a unit or parsing mix-up?)",
        )
    limit = (now or datetime.now(UTC)) + timedelta(days=1)
    if parsed > limit:
        raise InvalidInput(
            "created_at", "timestamp_range", f"created_at {value!r} is in the future"
        )
    return format_timestamp(parsed)


def derived_id(scope: str, type_: str, content: str) -> str:
    """The id ``ImportSession`` gives a record line without one."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"{scope}\n{type_}\n{content}"))


def normalize_scope(value: object, default: str) -> str:
    """A scope string; a bare name (``alice``) becomes ``user:alice``."""
    if value is None:
        return default
    text = "_".join(str(value).split())
    if text == "public" or ":" in text:
        return text
    return f"user:{text}"


class GenericImporter:
    """Converts rows one at a time; remembers what it saw to report duplicates."""

    def __init__(
        self, options: GenericOptions | None = None, *, notes: Counter[str] | None = None
    ) -> None:
        """``notes``: where to count informational notes (e.g. ``SourceReport.notes``)."""
        self.options = options or GenericOptions()
        self.reader = RowReader(self.options.mapping)
        self.notes: Counter[str] = notes if notes is not None else Counter()
        self._seen: dict[str, str] = {}
        self._now = self.options.now or datetime.now(UTC)

    def convert(self, rows: Iterable[SourceRow]) -> Iterator[Converted]:
        """One Converted item per row (bundle header/trailer lines are framing: skipped)."""
        for row in rows:
            if row.control:
                continue
            yield self.convert_row(row)

    def convert_row(self, row: SourceRow) -> Converted:
        """Convert one row."""
        if row.data is None:
            return Unimported(row.ref, "rejected", row.error or "unreadable row")
        kind = row.data.get("kind")
        if kind in ("record", "tombstone") and (kind == "tombstone" or "record" in row.data):
            return self._bundle_line(row.ref, row.data)
        return self._convert_mapped(self.reader.view(row.ref, row.data), row.data)

    # --- internals ---------------------------------------------------------------------
    def _bundle_line(self, ref: str, data: dict[str, Any]) -> Converted:
        if data["kind"] == "record" and isinstance(data["record"], dict):
            rec = data["record"]
            key = _dedupe_key(rec.get("id"), rec.get("scope"), rec.get("type"), rec.get("content"))
            first = self._seen.setdefault(key, ref)
            if first != ref:
                return Unimported(ref, "duplicate", f"same memory as {first}")
        return {**data, "source_ref": ref}

    def _convert_mapped(self, view: RowView, data: dict[str, Any]) -> Converted:
        opts, ref = self.options, view.ref
        content = view.get("content")
        if content is None:
            if view.vectors:
                return Unimported(
                    ref, "vector_ignored", f"only an embedding ({', '.join(view.vectors)}), no text"
                )
            return Unimported(ref, "rejected", "no text: no content column or it is empty")
        if isinstance(content, bytes | bytearray | memoryview):
            return Unimported(ref, "rejected", "content is binary, not text")
        if isinstance(content, dict | list):
            return Unimported(ref, "rejected", "content is structured data, not text")
        text = str(content)
        type_raw = view.get("type")
        verdict = classify(text, data, type_raw)
        if verdict.system_log:
            return Unimported(ref, "system_log", verdict.reason)
        type_ = self._type_of(type_raw, text)
        record: dict[str, Any] = {
            "type": type_.value,
            "content": text,
            "scope": normalize_scope(
                view.get("scope") or opts.mapping.defaults.get("scope"), opts.default_scope
            ),
            "source_agent": str(
                view.get("source_agent")
                or opts.mapping.defaults.get("source_agent")
                or opts.default_agent
            ),
        }
        if view.get("id") is not None:
            record["id"] = str(view.get("id")).strip()
        created = view.get("created_at")
        if created is not None:
            try:
                record["created_at"] = normalize_timestamp(
                    created, naive_tz=opts.naive_tz, now=self._now
                )
            except InvalidInput as e:
                return Unimported(ref, "rejected", e.message)
        tags = _tags(view.get("tags"))
        if tags:
            record["tags"] = tags
        ttl = view.get("ttl") or opts.mapping.defaults.get("ttl")
        if ttl is not None:
            record["ttl"] = _number(ttl)
        meta: dict[str, Any] = {"source_ref": ref}
        if opts.keep_extra:
            extra = _extra_fields(view.extra)
            if extra:
                meta["source_fields"] = extra
        record["meta"] = meta
        try:
            parse_record(record, now=self._now, limits=opts.limits)
        except InvalidInput as e:
            return Unimported(ref, "rejected", f"{e.field}: {e.message}")
        key = _dedupe_key(record.get("id"), record["scope"], record["type"], text)
        first = self._seen.setdefault(key, ref)
        if first != ref:
            return Unimported(ref, "duplicate", f"same memory as {first}")
        if view.vectors:
            self.notes["vector_column_dropped"] += 1
        return {**record_line(record), "source_ref": ref}

    def _type_of(self, raw: object, text: str) -> MemoryType:
        if isinstance(raw, str):
            custom = self.options.mapping.types.get(raw.strip().lower())
            mapped = custom or map_type(raw)
            if mapped is not None:
                return mapped
            self.notes["type_label_unknown"] += 1
        default = self.options.mapping.defaults.get("type") or self.options.default_type
        return MemoryType(default) if default else guess_type(text)


def _dedupe_key(memory_id: object, scope: object, type_: object, content: object) -> str:
    digest = hashlib.sha256(str(content).encode("utf-8")).hexdigest()
    base = str(memory_id) if memory_id is not None else f"{scope}\n{type_}"
    return f"{base}\n{digest}"


def _tags(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(t).strip() for t in value if str(t).strip()]
    if isinstance(value, str):
        text = value.strip().strip("[]")
        return [t.strip().strip("'\"") for t in text.split(",") if t.strip().strip("'\"")]
    return []


def _number(value: object) -> object:
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    return value


def _extra_fields(extra: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for column, value in extra.items():
        if len(kept) >= _MAX_EXTRA_FIELDS:
            break
        if value is None or value == "" or isinstance(value, bytes | bytearray | memoryview):
            continue
        if isinstance(value, str):
            kept[column] = value[:_MAX_EXTRA_CHARS]
        elif isinstance(value, bool | int | float):
            kept[column] = value
    return kept


def convert_file(
    path: Path,
    options: GenericOptions | None = None,
    *,
    fmt: str | None = None,
    table: str | None = None,
    importer: GenericImporter | None = None,
) -> Iterator[Converted]:
    """Convert every row of ``path``; pass ``importer`` to share duplicate detection."""
    worker = importer or GenericImporter(options)
    yield from worker.convert(read_rows(path, fmt=fmt, table=table))
