"""Conversation context (``core.conversation_context``): the scoring rule on its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from ai_memory.core.conversation_context import (
    AFTER,
    BEFORE,
    REACH,
    SEEDS,
    Neighbours,
    Turn,
    with_context,
)
from ai_memory.core.ports import IndexHit


def turn(key: str, at: float, *, is_turn: bool = True) -> Turn:
    return Turn(key, "user:a", "s1", at, is_turn)


# One conversation, in order.
TALK = [turn(k, float(i)) for i, k in enumerate("abcdefghijkl")]


def neighbours_in(
    talk: Sequence[Turn],
) -> tuple[list[list[str]], Neighbours]:
    asked: list[list[str]] = []

    def find(seeds: Sequence[Turn]) -> Mapping[str, tuple[Sequence[Turn], Sequence[Turn]]]:
        asked.append([s.key for s in seeds])
        out = {}
        for s in seeds:
            i = next(n for n, t in enumerate(talk) if t.key == s.key)
            before = list(reversed(talk[max(0, i - REACH) : i]))
            out[s.key] = (before, talk[i + 1 : i + 1 + REACH])
        return out

    return asked, find


def test_two_adjacent_hits_add_to_each_other_once() -> None:
    asked, find = neighbours_in(TALK)
    hits = [IndexHit("c", 1.0), IndexHit("d", 0.5)]
    scored = {h.memory_id: h for h in with_context(hits, {t.key: t for t in TALK}, find, 10)}
    (before_1, before_2), (after_1, after_2) = BEFORE, AFTER
    # c and d are one pair, counted once at the larger of its two weights (d is after c).
    assert scored["c"].score == pytest.approx(1.0 + after_1 * 0.5)
    assert scored["d"].score == pytest.approx(0.5 + after_1 * 1.0)
    # Neighbours no retriever found join with their seeds' share.
    assert scored["b"].score == pytest.approx(before_1 * 1.0 + before_2 * 0.5)
    assert scored["e"].score == pytest.approx(after_1 * 0.5 + after_2 * 1.0)
    assert scored["a"].score == pytest.approx(before_2 * 1.0)
    assert scored["f"].score == pytest.approx(after_2 * 0.5)
    assert "g" not in scored
    assert asked == [["c", "d"]]


def test_only_the_best_interactions_are_seeds_and_the_limit_holds() -> None:
    asked, find = neighbours_in(TALK)
    fact = turn("fact", 3.5, is_turn=False)
    keys = ["fact", *"abcdefghijkl"]
    hits = [IndexHit(k, 1.0 - i / 10) for i, k in enumerate(keys)]
    turns = {t.key: t for t in [*TALK, fact]}
    out = with_context(hits, turns, find, 4)
    assert len(out) == 4
    assert len(TALK) > SEEDS
    assert asked == [list("abcdefghijkl")[:SEEDS]]  # the fact is never a seed
    assert {h.memory_id: h for h in with_context(hits, turns, find, 10)}["fact"].score == 1.0


def test_no_interaction_among_the_hits_changes_nothing() -> None:
    asked, find = neighbours_in(TALK)
    hits = [IndexHit("x", 0.9), IndexHit("y", 0.4)]
    turns = {"x": turn("x", 0.0, is_turn=False)}
    assert with_context(hits, turns, find, 1) == hits[:1]
    assert asked == []
