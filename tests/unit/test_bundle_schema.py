"""The bundle v1 JSON Schema: it is valid, the v1 fixture matches it and still imports,
and what the current exporter writes matches it too."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ai_memory.bootstrap import Container
from ai_memory.service.transfer import ImportSession, export_lines
from tests.factories import writing_of

ROOT = Path(__file__).resolve().parents[2] / "schemas" / "bundle"
FIXTURE = ROOT / "fixtures" / "v1-sample.ndjson"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads((ROOT / "bundle-line.v1.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def lines() -> list[dict[str, Any]]:
    return [json.loads(t) for t in FIXTURE.read_text(encoding="utf-8").splitlines()]


def test_fixture_lines_match_the_schema(validator: Draft202012Validator) -> None:
    body = lines()
    for line in body:
        assert not list(validator.iter_errors(line)), line
    assert body[0]["kind"] == "header"
    assert body[-1]["kind"] == "trailer"
    raw = FIXTURE.read_text(encoding="utf-8").splitlines()
    digest = hashlib.sha256("".join(t + "\n" for t in raw[:-1]).encode("utf-8")).hexdigest()
    assert body[-1]["sha256"] == digest


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "record", "record": {"type": "fact", "content": "x", "scope": "public"}},
        {
            "kind": "record",
            "record": {
                "type": "fact",
                "content": "x",
                "scope": "public",
                "source_agent": "a",
                "embedding": [0.1],
            },
        },
        {
            "kind": "record",
            "record": {"type": "note", "content": "x", "scope": "public", "source_agent": "a"},
        },
        {
            "kind": "record",
            "record": {"type": "fact", "content": "x", "scope": "alice", "source_agent": "a"},
        },
        {"kind": "tombstone", "id": "m1", "scope": "public", "content": "leaked"},
        {"kind": "trailer", "counts": {"records": 1, "tombstones": 0}, "sha256": "abc"},
        {
            "kind": "header",
            "format": "other",
            "format_version": 1,
            "producer": "x",
            "exported_at": "2026-01-01T00:00:00Z",
            "filters": {},
        },
        {"kind": "vector", "values": [0.1]},
    ],
)
def test_schema_rejects(validator: Draft202012Validator, bad: dict[str, Any]) -> None:
    assert list(validator.iter_errors(bad))


def test_v1_fixture_imports_with_the_newest_code(container: Container) -> None:
    session = ImportSession(writing_of(container.service), "default")
    text = FIXTURE.read_text(encoding="utf-8").splitlines()
    session.feed(list(enumerate(text, start=1)))
    report = session.finish(wait=True)
    assert report.rejected == 0, report.errors
    assert (report.received, report.written, report.tombstones_applied) == (7, 6, 1)
    states = {s.record.id: s.state.value for s in container.store.scan_records("default")}
    assert states["0b1f6a52-8f0e-4c1d-9a55-000000000003"] == "historical"
    assert states["0b1f6a52-8f0e-4c1d-9a55-000000000004"] == "archived"
    again = ImportSession(writing_of(container.service), "default")
    again.feed(list(enumerate(text, start=1)))
    assert again.finish(wait=True).written == 0


def test_the_exporter_writes_schema_valid_lines(
    container: Container, validator: Draft202012Validator
) -> None:
    session = ImportSession(writing_of(container.service), "default")
    session.feed(list(enumerate(FIXTURE.read_text(encoding="utf-8").splitlines(), start=1)))
    session.finish(wait=True)
    exported = [
        json.loads(t)
        for t in export_lines(container.service.store, container.service.clock, "default", None)
    ]
    assert len(exported) == 9
    for line in exported:
        assert not list(validator.iter_errors(line)), line
