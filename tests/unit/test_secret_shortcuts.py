"""The facts the detector's shortcuts (``core.secrets.find_plain``,
``core.secret_disguise.find_disguised``) stand on, checked against the engine and the
slow paths themselves rather than restated."""

from __future__ import annotations

import re
import sys

import pytest

from ai_memory.core.secret_disguise import (
    _spaces_folded,
    _walked,
    caseless,
    nothing_to_undo,
)

EVERY_CHARACTER = "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF)


@pytest.mark.parametrize("letter", "abcdefghijklmnopqrstuvwxyz")
def test_caseless_folds_every_character_a_case_insensitive_letter_matches(letter: str) -> None:
    # The regex engine says which characters ``(?i)x`` matches (the Kelvin sign for k,
    # the long s for s, the dotted and dotless i for i): each must fold to ``x``, or a
    # piece test on the folded text would miss a match the patterns make.
    matched = set(re.findall(letter, EVERY_CHARACTER, re.IGNORECASE))
    assert {letter, letter.upper()} <= matched
    for ch in matched:
        assert caseless(f"..{ch}..") == f"..{letter}..", hex(ord(ch))


@pytest.mark.parametrize(
    "text",
    [
        "tab\there — and\n\nnewlines’",
        "  leading and trailing  \u00e9 ",
        "é\x1c\x1d\x1e\x1fseparators",
        "e\u0301 combining — ok",
        "one — two",
    ],
)
def test_the_quick_view_is_the_walked_view(text: str) -> None:
    assert _spaces_folded(text) == _walked(text)


@pytest.mark.parametrize(
    "text",
    ["scale-0", "user:alice", "agent-7", "Olu wants dark mode dashboards (session 0).", "tag0"],
)
def test_ordinary_text_takes_the_shortcut(text: str) -> None:
    assert nothing_to_undo(text, caseless(text))


@pytest.mark.parametrize(
    "text",
    ["my api key is", "A KIA 1234", "%41%42%43", "0123456789abcdef0123", "Zm9vYmFyYmF6cXV4eXo"],
)
def test_what_a_view_could_undo_does_not(text: str) -> None:
    assert not nothing_to_undo(text, caseless(text))
