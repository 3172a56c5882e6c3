"""Field mapping: --map syntax, mapping files, auto-detection, vector columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ai_memory.core.record import MemoryType
from ai_memory.migration.mapping import (
    FieldMap,
    FieldSpec,
    MappingError,
    is_vector,
    load_mapping_file,
    parse_map_spec,
)


def test_parse_map_spec() -> None:
    fm = parse_map_spec("content=text, created_at=ts,scope=user_id:user:{}")
    assert fm.fields == {
        "content": FieldSpec("text"),
        "created_at": FieldSpec("ts"),
        "scope": FieldSpec("user_id", "user:{}"),
    }
    assert fm.fields["scope"].apply("alice smith") == "user:alice_smith"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("content", "expected target=column"),
        ("body=text", "unknown target"),
        ("content=", "a column name is required"),
        ("scope=uid:user:", "placeholder"),
    ],
)
def test_bad_specs(spec: str, fragment: str) -> None:
    with pytest.raises(MappingError, match=fragment):
        parse_map_spec(spec)


def test_spec_overrides_a_mapping_file(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_text(
        "content: text\nscope: 'owner:team:{}'\n"
        "defaults: {type: fact, source_agent: old-bot}\ntypes: {kb: fact, pref: preference}\n",
        encoding="utf-8",
    )
    fm = parse_map_spec("content=body", load_mapping_file(path))
    assert fm.fields["content"] == FieldSpec("body")
    assert fm.fields["scope"] == FieldSpec("owner", "team:{}")
    assert fm.defaults == {"type": "fact", "source_agent": "old-bot"}
    assert fm.types == {"kb": MemoryType.FACT, "pref": MemoryType.PREFERENCE}


def test_json_mapping_file_errors(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"types": {"x": "banana"}}), encoding="utf-8")
    with pytest.raises(MappingError, match="not a memory type"):
        load_mapping_file(path)
    path.write_text(json.dumps({"defaults": {"colour": "red"}}), encoding="utf-8")
    with pytest.raises(MappingError, match="unknown target"):
        load_mapping_file(path)


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (
            ("Text", "TS", "user_id", "category"),
            {
                "content": FieldSpec("Text"),
                "created_at": FieldSpec("TS"),
                "scope": FieldSpec("user_id", "user:{}"),
                "type": FieldSpec("category"),
            },
        ),
        (
            ("memory", "timestamp", "scope", "kind", "id"),
            {
                "content": FieldSpec("memory"),
                "created_at": FieldSpec("timestamp"),
                "scope": FieldSpec("scope"),
                "type": FieldSpec("kind"),
                "id": FieldSpec("id"),
            },
        ),
        (
            ("body", "date", "agent_id"),
            {
                "content": FieldSpec("body"),
                "created_at": FieldSpec("date"),
                "scope": FieldSpec("agent_id", "agent:{}"),
            },
        ),
    ],
)
def test_auto_detection(columns: tuple[str, ...], expected: dict[str, FieldSpec]) -> None:
    assert FieldMap().resolve(columns) == expected


def test_explicit_mapping_wins_over_auto_detection() -> None:
    resolved = parse_map_spec("content=summary").resolve(("text", "summary", "time"))
    assert resolved["content"] == FieldSpec("summary")
    assert resolved["created_at"] == FieldSpec("time")


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("embedding", "[0.1, 0.2]", True),
        ("blob", b"\x00" * 1536, True),
        ("features", [0.5] * 384, True),
        ("features", "[" + ", ".join(["0.25"] * 32) + "]", True),
        ("tags", ["a", "b"], False),
        ("scores", [1, 2, 3], False),
        ("note", "[see above, and below]", False),
        ("embedding", None, False),
        ("text", "Alice likes tea", False),
    ],
)
def test_is_vector(column: str, value: object, expected: bool) -> None:
    assert is_vector(column, value) is expected
