"""A records-view row's sealed value (``core.view_sealing``): what it encodes, it parses
back — whatever the memory id (hence the key id) holds — and a malformed one is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.view_sealing import PREFIX, SealedValue, parse_sealed


@given(
    size=st.integers(min_value=0, max_value=2**40),
    memory_id=st.text(min_size=1),
    blob=st.binary(max_size=64),
)
def test_what_is_encoded_parses_back(size: int, memory_id: str, blob: bytes) -> None:
    value = SealedValue(size, memory_key_id(memory_id), blob)
    assert parse_sealed(value.encode()) == value


def test_a_key_id_holding_the_separator_parses_back() -> None:
    # A memory id written below the record's validation (an imported event) may hold NUL.
    for memory_id in ("\x00", "a\x00b", "\x00\x00"):
        value = SealedValue(3, memory_key_id(memory_id), b"abc")
        assert parse_sealed(value.encode()) == value


@pytest.mark.parametrize(
    "content",
    [
        "plain text",
        PREFIX,
        f"{PREFIX}12",
        f"{PREFIX}12\x00memory/m1",
        f"{PREFIX}x\x00memory/m1\x00YWJj",
        f"{PREFIX}١٢\x00memory/m1\x00YWJj",  # digits, but not ASCII ones
        f"{PREFIX}3\x00memory/m1\x00not base64!",
    ],
)
def test_a_malformed_value_is_refused(content: str) -> None:
    with pytest.raises(ValueError):
        parse_sealed(content)
