"""A bundle line's strings are walked for lone surrogates only when its text could spell
one; the answer must be exactly the walk's, whatever the line holds."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ai_memory.core import bundle
from ai_memory.core.errors import InvalidInput


def _walked(text: str) -> tuple[str, object]:
    """What ``parse_line`` answers when every line is walked."""
    real = bundle._may_spell_surrogate
    bundle._may_spell_surrogate = lambda text: True
    try:
        return _outcome(text)
    finally:
        bundle._may_spell_surrogate = real


def _outcome(text: str) -> tuple[str, object]:
    try:
        line = bundle.parse_line(text)
    except InvalidInput as e:
        return "refused", (e.field, e.rule, e.code, e.message)
    return "parsed", (line.kind, line.body)


# Escapes near the edge of the surrogate range, paired and lone, and backslashes before them.
_escapes = st.sampled_from(
    [
        "\\ud800",
        "\\uDBFF",
        "\\udc00",
        "\\uDFFF",
        "\\ud7ff",
        "\\ue000",
        "\\ud83d\\ude00",
        "\\\\ud800",
        "\\\\\\ud800",
        "\\\\ud83d\\ude00",
        "\\u00e9",
        "\\n",
        "é",
        "\ud800",
    ]
)
_strings = st.lists(st.one_of(_escapes, st.text(max_size=5)), max_size=6).map("".join)


def _line(key: str, value: str, inner: str) -> str:
    return (
        '{"kind":"record","record":{"content":"'
        + value
        + '","scope":"user:a","'
        + inner
        + '":["x"]},"'
        + key
        + '":1}'
    )


@settings(max_examples=300, deadline=None)
@given(key=_strings, value=_strings, inner=_strings)
@example(key="k", value="\\\\ud83d\\ude00", inner="tags")  # escaped backslash, lone low half
@example(key="k", value="\\ud83d\\ude00", inner="tags")  # a real pair: no error
@example(key="\\udfff", value="ok", inner="tags")  # in a line key
@example(key="k", value="ok", inner="\ud800")  # a literal surrogate in a record key
def test_the_scan_never_changes_the_answer(key: str, value: str, inner: str) -> None:
    text = _line(key, value, inner)
    assert _outcome(text) == _walked(text)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"kind":"record","record":{"content":"a\\ud800b","scope":"user:a"}}', "content"),
        ('{"content":"x","scope":"user:a","tags":["\\uDC00"]}', "tags"),
        ('{"kind":"record","record":{"content":"\\\\\\udbff","scope":"user:a"}}', "content"),
        ('{"kind":"record","record":{"content":"x\ud800","scope":"user:a"}}', "content"),
    ],
)
def test_lone_surrogates_are_still_refused_by_field(text: str, field: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        bundle.parse_line(text)
    assert refused.value.field == field
    assert refused.value.rule == "utf8"


def test_a_plain_line_is_not_walked() -> None:
    text = json.dumps({"kind": "record", "record": {"content": "plain é ☃", "scope": "user:a"}})
    assert not bundle._may_spell_surrogate(text)
    assert not bundle._may_spell_surrogate(json.dumps({"content": "plain é ☃"}, ensure_ascii=False))
    assert bundle.parse_line(text).body["record"]["content"] == "plain é ☃"
