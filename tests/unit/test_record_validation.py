from __future__ import annotations

from typing import Any

import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits, MemoryType, parse_record
from tests.factories import T0

LIMITS = Limits(max_content_bytes=100)


def body(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "fact",
        "content": "The build uses Rust 1.80.",
        "scope": "team:data-platform",
        "source_agent": "agent-a",
    }
    base.update(kw)
    return base


def test_valid_record_with_defaults() -> None:
    rec = parse_record(body(), now=T0, limits=LIMITS, new_id="fixed")
    assert rec.id == "fixed" and rec.type is MemoryType.FACT
    assert rec.created_at == T0 and rec.tags == () and rec.meta == {}


def test_generated_ids_are_uuids() -> None:
    import uuid

    rec = parse_record(body(), now=T0, limits=LIMITS)
    assert uuid.UUID(rec.id)


@pytest.mark.parametrize(
    ("override", "field", "rule"),
    [
        ({"type": "opinion"}, "type", "enum"),
        ({"content": ""}, "content", "non_empty"),
        ({"content": "   "}, "content", "non_empty"),
        ({"content": "x" * 101}, "content", "max_bytes"),
        ({"content": "汉" * 34}, "content", "max_bytes"),  # 102 bytes in UTF-8
        ({"content": "PNG\x00\x01\x02"}, "content", "text_only"),
        ({"content": 42}, "content", "text_only"),
        ({"scope": "Alice"}, "scope", "scope_format"),
        ({"scope": "user: alice"}, "scope", "scope_format"),
        ({"scope": None}, "scope", "required"),
        ({"source_agent": ""}, "source_agent", "required"),
        ({"created_at": "last tuesday"}, "created_at", "timestamp"),
        ({"ttl": -5}, "ttl", "positive_integer"),
        ({"ttl": 1.5}, "ttl", "positive_integer"),
        ({"tags": "a,b"}, "tags", "string_list"),
        ({"tags": [""]}, "tags", "tag_format"),
        ({"meta": ["not", "object"]}, "meta", "json_object"),
        ({"colour": "blue"}, "colour", "unknown_field"),
        ({"id": "a/b"}, "id", "id_format"),
        ({"schema_version": 99}, "schema_version", "supported"),
    ],
)
def test_invalid_input_names_field_and_rule(
    override: dict[str, Any], field: str, rule: str
) -> None:
    with pytest.raises(InvalidInput) as e:
        parse_record(body(**override), now=T0, limits=LIMITS)
    assert (e.value.field, e.value.rule) == (field, rule)
    assert field in e.value.message or e.value.field == field


def test_oversize_content_has_a_stable_code() -> None:
    with pytest.raises(InvalidInput) as e:
        parse_record(body(content="y" * 500), now=T0, limits=LIMITS)
    assert e.value.code == "content_too_large"


def test_path_id_must_match_body_id() -> None:
    with pytest.raises(InvalidInput) as e:
        parse_record(body(id="other"), now=T0, limits=LIMITS, memory_id="m1")
    assert e.value.rule == "matches_path"


def test_tags_are_trimmed_and_deduplicated() -> None:
    rec = parse_record(body(tags=[" rust ", "rust", "构建"]), now=T0, limits=LIMITS)
    assert rec.tags == ("rust", "构建")


def test_fingerprint_ignores_nothing_a_writer_controls() -> None:
    a = parse_record(body(id="x"), now=T0, limits=LIMITS)
    assert a.fingerprint() == parse_record(body(id="x"), now=T0, limits=LIMITS).fingerprint()
    for change in (
        {"content": "other"},
        {"tags": ["t"]},
        {"meta": {"a": 1}},
        {"ttl": 60},
        {"type": "skill"},
        {"created_at": "2020-01-01T00:00:00Z"},
    ):
        other = parse_record(body(id="x", **change), now=T0, limits=LIMITS)
        assert other.fingerprint() != a.fingerprint(), change


def test_ttl_expiry() -> None:
    from datetime import timedelta

    rec = parse_record(body(ttl=60), now=T0, limits=LIMITS)
    assert not rec.is_expired(T0 + timedelta(seconds=59))
    assert rec.is_expired(T0 + timedelta(seconds=60))
