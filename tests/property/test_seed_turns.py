"""Conversation context describes only the hits it can take as seeds
(``index_payload.seed_turns``: the first ``SEEDS`` interactions in hit order): on any
hits, of any types and in any order, with any neighbours, the re-scored answer is the one
every hit described gives, and the neighbour lookup is asked for the same seeds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.adapters import index_payload as ip
from ai_memory.core.conversation_context import SEEDS, Neighbours, Turn, with_context
from ai_memory.core.ports import IndexHit
from ai_memory.core.record import MemoryType

KEYS = [f"k{n:02d}" for n in range(40)]


def payload(key: str, kind: str, n: int) -> dict[str, Any]:
    return {
        ip.F_MEMORY_ID: key,
        ip.F_SCOPE: f"user:{n % 2}",
        ip.F_TYPE: kind,
        ip.F_SESSION: None if n % 3 else "s",
        ip.F_CREATED_AT: float(n % 7),
    }


def lookup(asked: list[list[str]], everything: Sequence[Turn]) -> Neighbours:
    def find(seeds: Sequence[Turn]) -> Mapping[str, tuple[Sequence[Turn], Sequence[Turn]]]:
        asked.append([s.key for s in seeds])
        out = {}
        for s in seeds:
            others = [t for t in everything if t.key != s.key and t.is_turn]
            out[s.key] = (others[:2], others[-2:])
        return out

    return find


@settings(max_examples=300, deadline=None)
@given(
    kinds=st.lists(st.sampled_from([t.value for t in MemoryType]), min_size=1, max_size=40),
    scores=st.lists(st.floats(0.01, 1.0), min_size=40, max_size=40),
    limit=st.integers(1, 12),
)
def test_only_the_seeds_are_described(kinds: list[str], scores: list[float], limit: int) -> None:
    keys = KEYS[: len(kinds)]
    hits = sorted(
        (IndexHit(k, s) for k, s in zip(keys, scores, strict=False)),
        key=lambda h: (-h.score, h.memory_id),
    )
    found = {k: payload(k, kind, n) for n, (k, kind) in enumerate(zip(keys, kinds, strict=True))}
    every = {k: ip.turn_of(k, p) for k, p in found.items()}
    asked_all: list[list[str]] = []
    asked_seeds: list[list[str]] = []
    want = with_context(hits, every, lookup(asked_all, list(every.values())), limit)
    seeds = ip.seed_turns(hits, found)
    got = with_context(hits, seeds, lookup(asked_seeds, list(every.values())), limit)
    assert got == want
    assert asked_seeds == asked_all
    assert len(seeds) <= SEEDS
