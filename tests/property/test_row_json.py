"""The JSON of stored rows (``adapters/record_rows.py``: written by orjson, by the
standard library where orjson refuses) reads back as what the standard library wrote:
a store takes every value it took before and gives the same value back; the sealing AADs
and plaintexts written without ``json.dumps`` (``core/json_array.py``) are its bytes, and a
view row's plaintext as the store seals it (orjson) reads back as what it wrote."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.adapters.record_rows import json_text, sealed_json
from ai_memory.core.sealing import SealedFields
from ai_memory.core.view_sealing import ViewFields, view_aad
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.errors import UnencodableEvent
from tests.factories import record, written
from tests.strategies import json_ish, metas, texts


def stdlib(value: Any, *, sort_keys: bool = False) -> Any:
    """What the stores wrote and read before: the standard library both ways (or its
    refusal, as the exception's type)."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, sort_keys=sort_keys))
    except Exception as e:
        return type(e)


def ours(value: Any, *, sort_keys: bool = False) -> Any:
    try:
        return json.loads(json_text(value, sort_keys=sort_keys))
    except Exception as e:
        return type(e)


def same(a: Any, b: Any) -> bool:
    """Equal, -0.0 and 0.0 told apart (JSON keeps the sign)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(metas)
def test_meta_reads_back_as_the_standard_library_read_it(meta: dict[str, Any]) -> None:
    assert same(ours(meta, sort_keys=True), stdlib(meta, sort_keys=True))


@given(st.lists(texts, max_size=6))
def test_tags_read_back_as_the_standard_library_read_them(tags: list[str]) -> None:
    assert same(ours(tags), stdlib(tags))


def finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(finite(v) for v in value)
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    return True


@given(json_ish.filter(finite))
def test_what_orjson_refuses_is_written_as_before(value: Any) -> None:
    """Integers beyond 64 bits, nesting past orjson's 254 levels, lone surrogates: the
    same value back, or the same refusal, as the standard library."""
    assert same(ours(value, sort_keys=True), stdlib(value, sort_keys=True))


@given(st.sampled_from([math.inf, -math.inf, math.nan]))
def test_a_number_that_is_not_finite_never_reaches_a_row(number: float) -> None:
    """orjson would write it as null: it cannot get that far. The event that would carry
    it to a store does not encode, so the write is refused before the log."""
    event = written(record("m1", "x", meta={"n": [number]}))
    with pytest.raises(UnencodableEvent):
        AvroEventSerializer().encode(event)


def test_an_integer_beyond_64_bits_and_deep_nesting_are_kept() -> None:
    deep: Any = "leaf"
    for _ in range(300):
        deep = {"a": deep}
    for value in ({"n": 2**70}, {"n": -(2**64)}, deep):
        assert json.loads(json_text(value, sort_keys=True)) == value


@given(texts, texts, st.integers(0, 2**40), st.integers(0, 2**40))
def test_the_view_aad_is_the_bytes_json_dumps_wrote(
    tenant: str, memory_id: str, version: int, size: int
) -> None:
    """Rows sealed before open: their AAD is bound to these bytes."""
    before = json.dumps(
        ["aimem.view.v1", tenant, memory_id, version, size],
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    assert view_aad(tenant, memory_id, version, size) == before


@given(texts, st.lists(texts, max_size=4), metas, texts)
def test_sealed_event_fields_are_the_bytes_json_dumps_wrote(
    content: str, tags: list[str], meta: dict[str, Any], sha: str
) -> None:
    compact: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":")}
    sealed = SealedFields(content, tuple(tags), json.dumps(meta), sha)
    body = {"c": content, "t": tags, "m": json.dumps(meta), "h": sha}
    assert sealed.plaintext() == json.dumps(body, **compact).encode("utf-8")


def _read(write: Callable[[], bytes]) -> Any:
    try:
        return json.loads(write())
    except Exception as e:
        return type(e)


def sealed_before(view: ViewFields) -> bytes:
    """A view row's plaintext as the store sealed it before orjson."""
    return json.dumps(view.body(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@given(texts, st.lists(texts, max_size=4), metas, texts)
def test_a_sealed_view_row_reads_as_its_plaintext(
    content: str, tags: list[str], meta: dict[str, Any], sha: str
) -> None:
    """The store seals ``sealed_json(body)`` (orjson): read back, it is what it sealed
    before — or the same refusal — so rows sealed before and after open to the same
    fields."""
    view = ViewFields(content, tuple(tags), meta, sha)
    assert view.body() == {"c": content, "t": tags, "m": meta, "h": sha}
    ours = _read(lambda: sealed_json(view.body()))
    assert same(ours, _read(lambda: sealed_before(view)))
    if not isinstance(ours, type):
        assert ViewFields.parse(sealed_json(view.body())) == view


@pytest.mark.parametrize(
    "meta",
    [{"big": 2**70}, {"deep": json.loads("[" * 300 + "]" * 300)}, {"neg": -(2**64)}],
)
def test_a_view_row_orjson_refuses_is_sealed_as_before(meta: dict[str, Any]) -> None:
    view = ViewFields("content", ("a",), meta, "sha")
    assert sealed_json(view.body()) == sealed_before(view)
    assert ViewFields.parse(sealed_json(view.body())) == view


def test_a_lone_surrogate_is_refused_as_before() -> None:
    for fields in (
        ViewFields("half \ud800 pair", (), {}, "s"),
        ViewFields("c", ("\udfff",), {}, "s"),
    ):
        with pytest.raises(UnicodeEncodeError):
            sealed_before(fields)
        with pytest.raises(UnicodeEncodeError):
            sealed_json(fields.body())
