"""The schema folder: pinned fingerprints, naming, the evolution rules, and how it is found.

A schema edited in place (instead of released as a new version) changes its fingerprint and
fails here; so does a later version that adds a field without a default.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastavro.schema import fingerprint, to_parsing_canonical_form

from ai_memory.serialization import (
    EVENT_TYPES,
    AvroEventSerializer,
    SchemaCatalog,
    SchemaCatalogError,
    compute_fingerprint,
    schema_dir,
)
from ai_memory.serialization.catalog import SCHEMA_DIR_ENV, lint
from ai_memory.serialization.catalog_tool import main as catalog_main

ROOT = Path(__file__).resolve().parents[2] / "schemas"
HEADER = [
    ("event_id", "string"),
    ("tenant", "string"),
    ("occurred_at", {"type": "long", "logicalType": "timestamp-micros"}),
    ("actor", "string"),
]


def _catalog_items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads((ROOT / "catalog.json").read_text())["schemas"]
    return items


@pytest.fixture
def schemas_copy(tmp_path: Path) -> Path:
    target = tmp_path / "schemas"
    shutil.copytree(ROOT, target)
    return target


def test_the_repository_folder_is_the_one_found() -> None:
    assert schema_dir().resolve() == ROOT.resolve()


@pytest.mark.parametrize("item", _catalog_items(), ids=lambda item: item["file"])
def test_pinned_fingerprint_matches_the_file(item: dict[str, Any]) -> None:
    schema = json.loads((ROOT / item["file"]).read_text())
    recomputed = fingerprint(to_parsing_canonical_form(schema), "CRC-64-AVRO")
    assert recomputed == item["fingerprint"], (
        f"{item['file']} changed after release; add {item['name']}.v{item['version'] + 1}.avsc"
    )
    assert item["file"] == f"events/{item['name']}.v{item['version']}.avsc"


def test_fingerprint_is_crc64_avro_of_the_spec() -> None:
    # Test vector from the Avro specification's schema fingerprint tests: "null".
    assert int.from_bytes(compute_fingerprint({"type": "null"}), "little") == 7195948357588979594


def test_folder_follows_every_rule() -> None:
    assert lint(ROOT) == []
    assert catalog_main(["--dir", str(ROOT)]) == 0


def test_every_event_type_has_a_schema_and_nothing_else() -> None:
    assert SchemaCatalog.load(ROOT).names() == sorted(EVENT_TYPES)


@pytest.mark.parametrize("entry", SchemaCatalog.load(ROOT).entries, ids=lambda e: e.file)
def test_schemas_carry_the_common_header(entry: Any) -> None:
    fields = [(f["name"], f["type"]) for f in entry.schema["fields"][:4]]
    assert fields == HEADER
    assert entry.schema["namespace"] == "ai.memory.events"


def test_memory_written_embeds_the_named_record() -> None:
    schema = SchemaCatalog.load(ROOT).latest("MemoryWritten").schema
    record = next(f["type"] for f in schema["fields"] if f["name"] == "record")
    assert (record["namespace"], record["name"]) == ("ai.memory", "MemoryRecord")
    types = {f["name"]: f["type"] for f in record["fields"]}
    assert types["type"] == "string"
    assert types["ttl"] == ["null", "long"]
    assert types["created_at"] == {"type": "long", "logicalType": "timestamp-micros"}


def test_a_schema_edited_in_place_refuses_to_load(schemas_copy: Path) -> None:
    path = schemas_copy / "events" / "MemoryDeleted.v1.avsc"
    schema = json.loads(path.read_text())
    schema["fields"].append({"name": "extra", "type": "string", "default": ""})
    path.write_text(json.dumps(schema))
    with pytest.raises(SchemaCatalogError, match="fingerprint"):
        SchemaCatalog.load(schemas_copy)


def _add_version(root: Path, name: str, field: dict[str, Any]) -> None:
    schema = json.loads((root / "events" / f"{name}.v1.avsc").read_text())
    schema["version"] = 2
    schema["fields"].append(field)
    (root / "events" / f"{name}.v2.avsc").write_text(json.dumps(schema))


def test_a_new_field_without_default_breaks_the_rule(schemas_copy: Path) -> None:
    _add_version(schemas_copy, "MemoryDeleted", {"name": "extra", "type": "string"})
    assert catalog_main(["--dir", str(schemas_copy), "--write"]) == 1
    assert lint(schemas_copy) == ["MemoryDeleted.v2: field extra was added without a default"]


def test_a_nested_field_without_default_breaks_the_rule(schemas_copy: Path) -> None:
    path = schemas_copy / "events" / "MemoryWritten.v2.avsc"
    schema = json.loads(path.read_text())
    schema["version"] = 3
    record = next(f["type"] for f in schema["fields"] if f["name"] == "record")
    record["fields"].append({"name": "language", "type": "string"})
    (schemas_copy / "events" / "MemoryWritten.v3.avsc").write_text(json.dumps(schema))
    assert lint(schemas_copy) == [
        "events/MemoryWritten.v3.avsc: not in catalog.json",
        "MemoryWritten.v3: field record.language was added without a default",
    ]


def test_enums_are_not_allowed(schemas_copy: Path) -> None:
    enum = {"type": "enum", "name": "Kind", "symbols": ["A"]}
    _add_version(schemas_copy, "MemoryDeleted", {"name": "kind", "type": enum, "default": "A"})
    assert any("Avro enums are not allowed (kind)" in p for p in lint(schemas_copy))


def test_write_adds_new_versions_and_keeps_old_entries(schemas_copy: Path) -> None:
    before = _catalog_items()
    _add_version(schemas_copy, "MemoryDeleted", {"name": "extra", "type": "long", "default": 0})
    assert catalog_main(["--dir", str(schemas_copy), "--write"]) == 0
    after = json.loads((schemas_copy / "catalog.json").read_text())["schemas"]
    assert [item for item in after if item in before] == before
    catalog = SchemaCatalog.load(schemas_copy)
    assert catalog.latest("MemoryDeleted").version == 2
    assert [e.version for e in catalog.versions("MemoryDeleted")] == [1, 2]


def test_env_override_wins(schemas_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCHEMA_DIR_ENV, str(schemas_copy))
    assert schema_dir() == schemas_copy
    assert AvroEventSerializer().catalog.names() == sorted(EVENT_TYPES)


def test_env_override_without_catalog_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SCHEMA_DIR_ENV, str(tmp_path))
    with pytest.raises(SchemaCatalogError, match=SCHEMA_DIR_ENV):
        AvroEventSerializer()


def test_unknown_event_type_has_no_schema() -> None:
    with pytest.raises(SchemaCatalogError):
        SchemaCatalog.load(ROOT).latest("MemoryTeleported")
