"""The scale profile's corpus: the same records whatever range asks for them, laid out
90 / 10 between one big scope and twenty small ones, and the loadtest stream unchanged."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from loadtest.corpus import QUERIES, memories

from ai_memory.benchmarks import locomo
from ai_memory.benchmarks.corpus import SCALE_QUERIES, scale_records
from ai_memory.benchmarks.layout import BIG_SCOPE, SMALL_SCOPES, WRITES_SCOPE, scope_of
from ai_memory.benchmarks.scale import default_sizes, parse_sizes
from ai_memory.benchmarks.server import BenchError


def test_a_record_does_not_depend_on_the_range_that_generates_it() -> None:
    whole = list(scale_records(0, 300))
    assert list(scale_records(120, 300)) == whole[120:]
    assert len({r["id"] for r in whole}) == 300
    assert len({r["content"] for r in whole}) == 300


def test_ninety_percent_sit_in_one_scope_the_rest_spread_evenly() -> None:
    scopes = Counter(r["scope"] for r in scale_records(0, 10_000))
    assert scopes[BIG_SCOPE] == 9_000
    small = {s: n for s, n in scopes.items() if s != BIG_SCOPE}
    assert len(small) == SMALL_SCOPES and set(small.values()) == {50}
    assert WRITES_SCOPE not in scopes
    assert scope_of(9) != BIG_SCOPE and scope_of(10) == BIG_SCOPE


def test_the_loadtest_stream_is_unchanged() -> None:
    """The loadtest figures in RESULTS.md were taken on this exact stream."""
    first = next(memories(1))
    assert first["id"] == "bench-0" and first["scope"] == "user:u0"
    assert first["content"] == next(memories(5))["content"]
    assert SCALE_QUERIES[: len(QUERIES)] == QUERIES


def test_locomo_turns_cycle_with_a_suffix(tmp_path: Path) -> None:
    sample = {
        "conversation": {
            "speaker_a": "Ann",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "later"}],
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "hi"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "hello"},
            ],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
        },
        "qa": [{"question": "Who said hi?", "answer": "Ann", "category": 4}],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    corpus = locomo.load(path)
    assert corpus.queries == ["Who said hi?"]
    contents = [r["content"] for r in corpus.records(0, 5)]
    assert contents[:3] == ["Ann: hi", "Bo: hello", "Bo: later"]
    assert contents[3].startswith("Ann: hi") and contents[3] != contents[0]
    with pytest.raises(locomo.LocomoError):
        locomo.load(tmp_path / "missing.json")


def test_sizes() -> None:
    assert parse_sizes("10k,100k,1M") == (10_000, 100_000, 1_000_000)
    assert parse_sizes("2000, 10_000") == (2_000, 10_000)
    assert default_sizes(100_000) == (10_000, 100_000)
    assert default_sizes(300_000) == (10_000, 100_000, 300_000)
    assert default_sizes(5_000) == (5_000,)
    for bad in ("10k,5k", "ten", "0"):
        with pytest.raises(BenchError):
            parse_sizes(bad)
