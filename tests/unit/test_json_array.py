"""``json_array`` writes the bytes ``json.dumps`` wrote: every AAD sealed so far must
still open, so the two sealing AADs are pinned against the old encoding too."""

from __future__ import annotations

import json

import pytest

from ai_memory.adapters.key_wrapping import _aad
from ai_memory.core.json_array import json_array
from ai_memory.core.sealing import aad

HOSTILE = [
    "",
    "default",
    "tenant-1",
    'quote"inside',
    "back\\slash",
    "new\nline\ttab\r\x00\x01\x1f\x7f",
    "naïve café",
    "日本語のテキスト",
    "emoji 😀 and \u2028 \u2029",
    '["aimem.seal.v1","x"]',
    "mem:abc/def:1",
    "\ufeffbom",
]
NUMBERS = [0, 1, -1, 7, 2**31, 2**63 + 5, -(2**70)]


def _dumps(parts: list[object], ensure_ascii: bool) -> bytes:
    return json.dumps(parts, ensure_ascii=ensure_ascii, separators=(",", ":")).encode("utf-8")


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_strings_and_integers_are_written_as_json_dumps_writes_them(ensure_ascii: bool) -> None:
    for text in HOSTILE:
        for number in NUMBERS:
            parts = ("aimem.test.v1", text, number, text[::-1])
            assert json_array(parts, ensure_ascii=ensure_ascii) == _dumps(list(parts), ensure_ascii)
    assert json_array((), ensure_ascii=ensure_ascii) == b"[]"


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_other_values_are_left_to_json_dumps(ensure_ascii: bool) -> None:
    class Name(str):
        pass

    for odd in (True, False, None, 1.5, Name("sub")):
        parts = ("x", odd, 3)
        assert json_array(parts, ensure_ascii=ensure_ascii) == _dumps(list(parts), ensure_ascii)


def test_a_lone_surrogate_fails_as_before_unless_escaped() -> None:
    with pytest.raises(UnicodeEncodeError):
        _dumps(["\ud800"], False)
    with pytest.raises(UnicodeEncodeError):
        json_array(("\ud800",), ensure_ascii=False)
    assert json_array(("\ud800",), ensure_ascii=True) == _dumps(["\ud800"], True)


def test_the_sealing_aad_is_the_old_encoding() -> None:
    for tenant in HOSTILE:
        for subject in HOSTILE:
            for version in (0, 1, 12345):
                old = json.dumps(
                    ["aimem.seal.v1", tenant, "MemoryWritten", subject, version],
                    ensure_ascii=False,
                    separators=(",", ":"),
                ).encode("utf-8")
                assert aad(tenant, "MemoryWritten", subject, version) == old


def test_the_key_wrapping_aad_is_the_old_encoding() -> None:
    for tenant in HOSTILE:
        for key_id in HOSTILE:
            for version in (1, 2, 99):
                old_data = json.dumps(
                    ["aimem.wrap.v1", "data", tenant, version, key_id], separators=(",", ":")
                ).encode("utf-8")
                assert _aad("data", tenant, version, key_id) == old_data
                old_kek = json.dumps(
                    ["aimem.wrap.v1", "kek", tenant, version], separators=(",", ":")
                ).encode("utf-8")
                assert _aad("kek", tenant, version) == old_kek
    # Literal bytes, not only equal to json.dumps: what stored keys were wrapped with.
    assert _aad("data", "t\u00e9", 1, "mem:a") == b'["aimem.wrap.v1","data","t\\u00e9",1,"mem:a"]'
    assert aad("t\u00e9", "MemoryWritten", "m", 2) == (
        '["aimem.seal.v1","t\u00e9","MemoryWritten","m",2]'.encode()
    )
