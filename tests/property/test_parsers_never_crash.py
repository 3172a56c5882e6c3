"""Every parser and decoder of untrusted input raises only its documented errors.

* ``parse_timestamp``: ``InvalidInput`` naming the field, or an aware UTC instant within
  years 1–9999;
* bundle lines (``core.bundle.parse_line``): ``InvalidInput``;
* every importer in ``migration.importers``: ``RowError`` for a file it cannot read at
  all, otherwise rows (malformed rows become ``rejected`` rows);
* the Avro event decoder, on random bytes and on mutated valid frames: a domain event or
  ``UndecodableEvent``.
"""

from __future__ import annotations

import inspect
import json
import re
import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from ai_memory.core.bundle import LINE_KINDS, parse_line
from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import DomainEvent
from ai_memory.core.query_dates import MAX_PERIODS, named_periods
from ai_memory.core.record import Limits
from ai_memory.core.timeparse import (
    MAX_TIMESTAMP,
    MIN_TIMESTAMP,
    format_timestamp,
    parse_timestamp,
)
from ai_memory.migration.importers import ImportOptions, RowError, cognee
from ai_memory.migration.importers.detect import IMPORTERS
from ai_memory.serialization import MAGIC, AvroEventSerializer, UndecodableEvent
from ai_memory.service.memory_service import SearchRequest
from tests.factories import header, record, written
from tests.strategies import (
    deep_json_texts,
    domain_events,
    hostile_texts,
    json_ish,
    timestamp_inputs,
)

SERIALIZER = AvroEventSerializer()
IO = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- timestamps -----------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(value=timestamp_inputs)
@example("9999-12-31T23:00:00-05:00")
@example("0001-01-01T00:00:00+05:00")
@example(10**400)
@example(float("nan"))
def test_parse_timestamp_is_utc_in_range_or_refused(value: object) -> None:
    try:
        parsed = parse_timestamp(value, field="at")
    except InvalidInput as e:
        assert e.field == "at"
        assert e.rule in ("timestamp", "timestamp_range")
        e.message.encode("utf-8")
        return
    assert parsed.utcoffset() == timedelta(0)
    assert MIN_TIMESTAMP <= parsed <= MAX_TIMESTAMP
    assert parse_timestamp(format_timestamp(parsed)) == parsed


# --- bundle lines ---------------------------------------------------------------------
_line_objects = st.fixed_dictionaries(
    {"kind": st.sampled_from([*LINE_KINDS, "other"]) | json_ish},
    optional={
        "record": json_ish | st.dictionaries(st.sampled_from(["content", "id", "meta"]), json_ish),
        "format": st.just("ai-memory.bundle") | json_ish,
        "format_version": json_ish,
        "id": json_ish,
        "scope": json_ish,
        "content": json_ish,
    },
)
bundle_texts = st.one_of(
    st.text(max_size=200),
    json_ish.map(json.dumps),
    _line_objects.map(json.dumps),
    deep_json_texts,
)


@settings(max_examples=200, deadline=None)
@given(text=bundle_texts)
@example('{"kind":"trailer","record":"\\ud800"}')  # a surrogate where no record is
def test_bundle_lines_parse_or_are_refused(text: str) -> None:
    try:
        line = parse_line(text)
    except InvalidInput as e:
        e.field.encode("utf-8")
        e.message.encode("utf-8")
        return
    assert line.kind in LINE_KINDS
    json.dumps(line.body, ensure_ascii=False).encode("utf-8")  # nothing unencodable got in


# --- importers ------------------------------------------------------------------------
@dataclass(frozen=True)
class RawJson:
    """JSON text written as it is (nesting too deep to hold as objects)."""

    text: str


def _keys_of(module: Any) -> list[str]:
    """The field names an importer looks for: its quoted identifiers."""
    return sorted(set(re.findall(r'"([a-z][a-z_]{1,30})"', inspect.getsource(module))))


def _rows(keys: list[str]) -> st.SearchStrategy[Any]:
    """Rows shaped like the importer's input, with anything as values."""
    row = st.dictionaries(st.sampled_from(keys), json_ish, max_size=8)
    nested = st.dictionaries(st.sampled_from(keys), json_ish | st.lists(row, max_size=3))
    return st.one_of(json_ish, row, nested, st.lists(row | nested, max_size=4))


IMPORTER_INPUTS = {
    name: _rows(_keys_of(inspect.getmodule(convert))) | deep_json_texts.map(RawJson)
    for name, convert in IMPORTERS.items()
}
_SUFFIX = {"mem0": ".json", "letta": ".af", "zep": ".json", "langmem": ".ndjson"}


def _text(data: Any) -> str:
    return data.text if isinstance(data, RawJson) else json.dumps(data)


def _lines(data: Any) -> str:
    rows = data if isinstance(data, list) else [data]
    return "\n".join(_text(r) for r in rows) + "\n"


def _write_source(name: str, data: Any, root: Path) -> Path:
    """``data`` as the importer's file(s): one JSON document, or one per line."""
    if name == "cognee":
        (root / "manifest.json").write_text(json.dumps({"cogx_version": "0.1"}))
        for file in (*cognee.RECORD_FILES, cognee.TOMBSTONES_FILE):
            (root / file).write_text(_lines(data))
        return root
    path = root / f"export{_SUFFIX[name]}"
    if name == "langmem":
        path.write_text(_lines(data))
        return path
    if name != "letta":
        path = path.with_suffix(".json")
    path.write_text(_text(data))
    return path


@pytest.mark.parametrize("name", sorted(IMPORTERS))
def test_importers_convert_or_refuse_any_json(name: str) -> None:
    @settings(IO, max_examples=60)
    @given(data=IMPORTER_INPUTS[name])
    def run(data: Any) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            source = _write_source(name, data, Path(tmp))
            try:
                converted = list(IMPORTERS[name](source, ImportOptions()))
            except RowError:
                event("refused as a whole")
                return
            event("rows converted" if any(isinstance(c, dict) for c in converted) else "no rows")
            for item in converted:
                if isinstance(item, dict):
                    json.dumps(item, default=str)

    run()


# --- Avro frames ----------------------------------------------------------------------
def _decode(data: bytes) -> DomainEvent | None:
    try:
        return SERIALIZER.decode(data)
    except UndecodableEvent:
        return None


_FINGERPRINTS = sorted(entry.fingerprint for entry in SERIALIZER.catalog.entries)


@settings(max_examples=200, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.tuples(st.sampled_from(_FINGERPRINTS), st.binary(max_size=300)).map(
            lambda p: MAGIC + p[0] + p[1]
        ),
    )
)
def test_random_bytes_decode_or_are_undecodable(data: bytes) -> None:
    _decode(data)


_mutations = st.lists(
    st.tuples(
        st.sampled_from(["flip", "set", "insert", "delete", "truncate"]),
        st.integers(min_value=0, max_value=10_000),
        st.integers(min_value=0, max_value=255),
    ),
    min_size=1,
    max_size=4,
)


def _mutate(frame: bytes, steps: list[tuple[str, int, int]]) -> bytes:
    out = bytearray(frame)
    for op, at, value in steps:
        i = at % (len(out) + 1)
        if op == "insert":
            out[i:i] = bytes([value])
        elif op == "truncate":
            del out[i:]
        elif i < len(out):
            if op == "flip":
                out[i] ^= 1 << (value % 8)
            elif op == "set":
                out[i] = value
            else:
                del out[i]
    return bytes(out)


@settings(max_examples=200, deadline=None)
@given(event=domain_events, steps=_mutations)
def test_mutated_frames_decode_or_are_undecodable(
    event: DomainEvent, steps: list[tuple[str, int, int]]
) -> None:
    frame = SERIALIZER.encode(event)
    assert SERIALIZER.decode(frame) == event
    decoded = _decode(_mutate(frame, steps))
    if decoded is not None:
        assert type(decoded).__name__ in SERIALIZER.catalog.names()


@pytest.mark.parametrize(
    "at", [MIN_TIMESTAMP, MAX_TIMESTAMP, datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC)]
)
def test_the_bounds_survive_the_frame(at: datetime) -> None:
    event = written(record("m1", created_at=at), tenant="default")
    event = replace(event, header=header(at=at))
    assert SERIALIZER.decode(SERIALIZER.encode(event)) == event


# --- search requests ------------------------------------------------------------------
_search_keys = [
    *("query", "scope", "types", "tags", "top_k", "mode", "states", "rerank", "as_of"),
    "context",
    "dates",
    "known_at",
]


@settings(max_examples=200, deadline=None)
@given(body=st.dictionaries(st.sampled_from(_search_keys), json_ish | hostile_texts))
def test_search_requests_parse_or_are_refused(body: dict[str, Any]) -> None:
    try:
        request = SearchRequest.parse({"query": "tea", **body}, Limits())
    except InvalidInput as e:
        e.message.encode("utf-8")
        return
    request.query.encode("utf-8")
    assert 1 <= request.top_k <= 100


_date_words = st.sampled_from(
    [
        "in",
        "on",
        "of",
        "the",
        "summer",
        "winter",
        "May",
        "Sept.",
        "13th",
        "31",
        "0",
        "9999",
        "0000",
        "2023",
        "2023-02-31",
        "last",
        "this",
        "week",
        "month",
        "year",
        "yesterday",
        ",",
        " ",
        "\u00a0",
        "\x00",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(_date_words | hostile_texts, max_size=30),
    now=st.datetimes(
        min_value=datetime(1, 2, 1), max_value=datetime(9999, 11, 30), timezones=st.just(UTC)
    ),
)
def test_named_periods_never_crash(words: list[str], now: datetime) -> None:
    found = named_periods(" ".join(words), now)
    assert len(found) <= MAX_PERIODS
    assert all(p.start < p.end and p.start.tzinfo is not None for p in found)
