"""Conversation context: a turn is found through the turns around it.

An agent's interactions are conversation turns, and a question is rarely answered by
words of the one turn that holds the answer: "How long has Caroline had her friends?"
is answered by "4 years" in a reply whose question ("how long have you known them?")
is the turn before. Scoring each turn alone misses it. Search therefore adds to each
candidate turn a share of the scores of its neighbours — the interactions of the same
scope and conversation written just before and after it, ordered by ``created_at``.
A seed ``s`` and a turn ``t`` ``d`` turns away from it in its conversation add to each
other a share of their scores:

    score(s) += w · own(t),   score(t) += w · own(s),
    w = AFTER[d] if t comes after s, BEFORE[d] if it comes before      d = 1 … 2

(a pair reached from both of its turns counts once, at the larger weight). A turn lends
more to the turns after it than to those before: an answer follows its question.

Only the best ``SEEDS`` candidate turns are asked for their neighbours (the index
adapter finds them: an ordered scroll each way, or a window of time it proves equal),
so a neighbour that no retriever found still enters the
ranking with its share. The weights and the number of seeds were chosen on the tuning
half of LoCoMo (``loadtest/bench_locomo``, ``docs/design/RETRIEVAL.md``) as the best sum
over both embedders: before 0.5 / 0.3, after 0.6 / 0.5, 8 seeds (symmetric 0.5 / 0.4 with
5 seeds before; the static default's tuning half 77.65 → 78.20 and the recall-first
profile's 81.21 → 82.23 R@10, with the periods a query names).

Pure: the neighbour lookup is passed in by the index adapter, which knows its engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .ports import IndexHit

BEFORE: tuple[float, ...] = (0.5, 0.3)  # a turn 1, 2 turns before a seed
AFTER: tuple[float, ...] = (0.6, 0.5)  # a turn 1, 2 turns after it
REACH = max(len(BEFORE), len(AFTER))  # how far each side is looked up
SEEDS = 8
COMPONENT = "context"


@dataclass(frozen=True)
class Turn:
    """What context needs of a point: ``key`` as in fusion, the conversation it belongs
    to (``scope`` and ``session``, ``None`` for interactions written without one) and
    where it sits in it. ``is_turn`` is false for memories that are not interactions:
    they get no context and give none."""

    key: str
    scope: str
    session: str | None
    created_at: float
    is_turn: bool


# seeds → for each seed key: (the turns before it, nearest first; the turns after it,
# nearest first), at most ``REACH`` each.
Neighbours = Callable[[Sequence[Turn]], Mapping[str, tuple[Sequence[Turn], Sequence[Turn]]]]


def with_context(
    hits: Sequence[IndexHit], turns: Mapping[str, Turn], neighbours: Neighbours, limit: int
) -> list[IndexHit]:
    """``hits`` (keyed by point key, best first) re-scored with their conversation
    context, the best ``limit`` of them; neighbours that were not hits join with the
    share their seeds give them. A hit's components gain ``context``: what its
    neighbours added. ``turns`` describes the hits (a hit it lacks is no seed)."""
    own = {h.memory_id: h.score for h in hits}
    seeds = [t for h in hits if (t := turns.get(h.memory_id)) is not None and t.is_turn]
    seeds = seeds[:SEEDS]
    if not seeds:
        return list(hits[:limit])
    pairs: dict[tuple[str, str], float] = {}
    for seed_key, (before, after) in neighbours(seeds).items():
        for side, weights in ((before, BEFORE), (after, AFTER)):
            for weight, turn in zip(weights, side, strict=False):
                pair = (seed_key, turn.key) if seed_key < turn.key else (turn.key, seed_key)
                pairs[pair] = max(pairs.get(pair, 0.0), weight)
    added: dict[str, float] = {}
    for (a, b), weight in pairs.items():
        added[a] = added.get(a, 0.0) + weight * own.get(b, 0.0)
        added[b] = added.get(b, 0.0) + weight * own.get(a, 0.0)
    by_key = {h.memory_id: h for h in hits}
    scored: list[IndexHit] = []
    for key in {*by_key, *added}:
        extra = added.get(key, 0.0)
        hit = by_key.get(key)
        if hit is None:
            if extra <= 0.0:
                continue
            scored.append(IndexHit(key, extra, {COMPONENT: extra}))
        elif extra > 0.0:
            scored.append(IndexHit(key, hit.score + extra, {**hit.components, COMPONENT: extra}))
        else:
            scored.append(hit)
    scored.sort(key=lambda h: (-h.score, h.memory_id))
    return scored[:limit]
