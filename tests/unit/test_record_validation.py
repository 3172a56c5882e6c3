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


def nested(depth: int) -> dict[str, Any]:
    """A meta object ``depth`` levels deep, itself included."""
    node: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        node = {"a": node}
    return node


@pytest.mark.parametrize(
    ("override", "field", "rule"),
    [
        # a far-future expiry: nothing can store it, so nothing may accept it
        ({"ttl": 2**62}, "ttl", "max_ttl"),
        ({"ttl": Limits().max_ttl_seconds + 1}, "ttl", "max_ttl"),
        ({"created_at": "9999-12-30T00:00:00Z", "ttl": 10**6}, "ttl", "expiry_range"),
        ({"created_at": "9999-12-31T23:59:59Z", "ttl": 1}, "ttl", "expiry_range"),
        ({"ttl": float("inf")}, "ttl", "positive_integer"),
        ({"ttl": float("nan")}, "ttl", "positive_integer"),
        # offsets that push a timestamp out of years 1–9999
        ({"created_at": "9999-12-31T23:00:00-05:00"}, "created_at", "timestamp_range"),
        ({"created_at": "0001-01-01T00:00:00+05:00"}, "created_at", "timestamp_range"),
        # lone surrogates anywhere
        ({"content": "hi \ud800"}, "content", "utf8"),
        ({"tags": ["ok", "\udfff"]}, "tags", "utf8"),
        ({"source_agent": "agent\ud800"}, "source_agent", "utf8"),
        ({"scope": "user:\ud800"}, "scope", "utf8"),
        ({"id": "m\ud800"}, "id", "utf8"),
        ({"meta": {"k\ud800": 1}}, "meta", "utf8"),
        ({"meta": {"a": [{"b": "x\udc00"}]}}, "meta", "utf8"),
        # control characters in identifiers
        ({"id": "m\x00"}, "id", "control_chars"),
        ({"scope": "user:al\x00ice"}, "scope", "control_chars"),
        ({"scope": "user:al\x85ice"}, "scope", "control_chars"),
        ({"source_agent": "age\x00nt"}, "source_agent", "control_chars"),
        ({"source_agent": "age\nnt"}, "source_agent", "control_chars"),
        ({"tags": ["ta\tg"]}, "tags", "control_chars"),
        ({"meta": {"k\x00": 1}}, "meta", "control_chars"),
        # meta shape
        ({"meta": nested(33)}, "meta", "max_depth"),
        ({"meta": nested(400)}, "meta", "max_depth"),
        ({"meta": {"k" * 257: 1}}, "meta", "key_length"),
        ({"meta": {"n": float("inf")}}, "meta", "json_object"),
        ({"meta": {1: "int key"}}, "meta", "json_object"),
        ({"meta": {"o": object()}}, "meta", "json_object"),
        ({"meta": {"x": "y" * 20_000}}, "meta", "max_bytes"),
        ({"meta": {"x": [0] * 20_000}}, "meta", "max_bytes"),
        # tags are counted as received, before de-duplication
        ({"tags": ["same"] * 33}, "tags", "max_items"),
        ({"tags": ["ok", 3]}, "tags", "string_list"),
        # unknown keys that are not printable are still reported safely
        ({"\ud800": 1}, "'\\ud800'", "unknown_field"),
    ],
)
def test_unprojectable_values_are_refused(override: dict[str, Any], field: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as e:
        parse_record(body(**override), now=T0, limits=Limits())
    assert (e.value.field, e.value.rule) == (field, rule)
    # every message can be sent back as UTF-8 (no raw surrogate is echoed)
    e.value.message.encode("utf-8")
    e.value.field.encode("utf-8")


def test_meta_errors_name_the_path() -> None:
    with pytest.raises(InvalidInput) as e:
        parse_record(body(meta={"a": [{"b": "x\udc00"}]}), now=T0, limits=Limits())
    assert 'meta["a"][0]["b"]' in e.value.message


@pytest.mark.parametrize(
    "override",
    [
        {"meta": nested(32)},
        {"created_at": "9999-12-31T23:00:00Z", "ttl": 3599},
        {"created_at": "0001-01-01T00:00:00Z"},
        {"ttl": Limits().max_ttl_seconds},
        {"tags": [f"t{i}" for i in range(32)]},
        {"tags": ["dup", "dup"]},
        {"content": "tab\tnew line\nC1 \x85 and emoji 🦀 and 𠀀"},
        {"meta": {"k" * 256: ["\U0010ffff", None, True, 1.5, -(2**70)]}},
    ],
)
def test_extremes_within_the_limits_are_accepted(override: dict[str, Any]) -> None:
    rec = parse_record(body(**override), now=T0, limits=Limits())
    if rec.ttl is not None:
        assert rec.expires_at() is not None


def test_many_tags_are_refused_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    with pytest.raises(InvalidInput) as e:
        parse_record(body(tags=[f"t{i}" for i in range(200_000)]), now=T0, limits=Limits())
    assert e.value.rule == "max_items"
    assert time.perf_counter() - started < 0.5


def test_an_upsert_keeping_created_at_cannot_push_the_expiry_out_of_range() -> None:
    from ai_memory.core.decide import decide_write
    from ai_memory.core.events import Head
    from tests.factories import header

    late = parse_record(body(id="m", created_at="9999-12-31T00:00:00Z"), now=T0, limits=Limits())
    head = Head("m", late.scope, 1, "sha", False, 1, late.created_at)
    update = parse_record(body(id="m", ttl=86_400 * 2), now=T0, limits=Limits())
    from ai_memory.core.decide import with_created_at_from

    with pytest.raises(InvalidInput) as e:
        decide_write(with_created_at_from(update, head, explicit=False), head, header())
    assert (e.value.field, e.value.rule) == ("ttl", "expiry_range")


def test_a_search_query_must_be_encodable() -> None:
    from ai_memory.service.memory_service import SearchRequest

    with pytest.raises(InvalidInput) as e:
        SearchRequest.parse({"query": "tea \ud800"}, Limits())
    assert (e.value.field, e.value.rule) == ("query", "utf8")


def test_a_number_too_large_to_print_is_still_refused_with_a_message() -> None:
    with pytest.raises(InvalidInput) as e:
        parse_record(body(schema_version=10**5000), now=T0, limits=Limits())
    assert e.value.rule == "supported" and len(e.value.message) < 300


def test_search_states_that_are_not_strings_are_refused() -> None:
    from ai_memory.service.memory_service import SearchRequest

    with pytest.raises(InvalidInput) as e:
        SearchRequest.parse({"query": "tea", "states": [[]]}, Limits())
    assert (e.value.field, e.value.rule) == ("states", "enum")


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"content": "x" * 10_000_000}, "content"),
        ({"source_agent": "a" * 10_000_000}, "source_agent"),
        ({"scope": "user:" + "s" * 10_000_000}, "scope"),
        ({"id": "i" * 10_000_000}, "id"),
        ({"tags": ["t"] * 10_000_000}, "tags"),
        ({"meta": {"x": "y" * 10_000_000}}, "meta"),
        ({"meta": {"x": [0] * 10_000_000}}, "meta"),
        ({"meta": {str(i): i for i in range(1_000_000)}}, "meta"),
    ],
)
def test_huge_values_are_refused_without_reading_them_whole(
    override: dict[str, Any], field: str
) -> None:
    import time

    started = time.perf_counter()
    with pytest.raises(InvalidInput) as e:
        parse_record(body(**override), now=T0, limits=Limits())
    assert e.value.field == field
    assert time.perf_counter() - started < 0.05


def test_meta_that_exactly_fits_is_accepted() -> None:
    import json

    limits = Limits()
    overhead = len(json.dumps({"x": ""}))
    meta = {"x": "y" * (limits.max_meta_bytes - overhead)}
    assert parse_record(body(meta=meta), now=T0, limits=limits).meta == meta
