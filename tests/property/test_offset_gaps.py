"""The projectors' consumer tracks offset gaps as Faust's own consumer does.

``ViewConsumer._add_gap`` skips Faust's tree rebuild for a gap read in order
(``projector/offset_gaps.py``); whatever the order of the gaps, the commits' clamp and
the chops a commit makes between them, the tree must end holding exactly the intervals
Faust's ``Consumer._add_gap`` leaves."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from types import SimpleNamespace
from typing import Any

from faust.transport.consumer import Consumer as FaustConsumer
from faust.types import TP
from hypothesis import given, settings
from hypothesis import strategies as st
from intervaltree import IntervalTree

from ai_memory.projector.faust_worker import ViewConsumer
from ai_memory.projector.offset_gaps import add_gap

TP0 = TP("aimem.log", 0)

# A step: a gap read after an offset (mostly forward, sometimes back, as after a seek),
# a commit that chops what it passed, or a committed offset the next gaps are clamped to.
_gap = st.tuples(st.just("gap"), st.integers(-40, 60), st.integers(1, 30))
_chop = st.tuples(st.just("chop"), st.integers(0, 2_000), st.just(0))
_commit = st.tuples(st.just("commit"), st.integers(0, 2_000), st.just(0))
steps = st.lists(st.one_of(_gap, _gap, _gap, _chop, _commit), max_size=80)


def _consumer() -> Any:
    return SimpleNamespace(
        _committed_offset=defaultdict(lambda: None), _gap=defaultdict(IntervalTree)
    )


def _run(consumer: Any, add: Any, plan: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    read_to = 0
    for kind, a, b in plan:
        if kind == "gap":
            start = max(0, read_to + a)
            asyncio.run(add(consumer, TP0, start, start + b - 1))
            read_to = start + b
        elif kind == "chop":
            consumer._gap[TP0].chop(0, a)
        else:
            consumer._committed_offset[TP0] = a
    return sorted((i.begin, i.end) for i in consumer._gap[TP0])


@settings(max_examples=300, deadline=None)
@given(steps)
def test_the_gap_tree_ends_as_faust_leaves_it(plan: list[tuple[str, int, int]]) -> None:
    theirs = _run(_consumer(), FaustConsumer._add_gap, plan)
    ours = _run(_consumer(), ViewConsumer._add_gap, plan)
    assert ours == theirs


@given(st.lists(st.tuples(st.integers(0, 500), st.integers(1, 20)), max_size=60))
def test_add_gap_is_addi_then_merge(gaps: list[tuple[int, int]]) -> None:
    mine, reference = IntervalTree(), IntervalTree()
    for begin, length in gaps:
        add_gap(mine, begin, begin + length)
        reference.addi(begin, begin + length)
        reference.merge_overlaps()
        assert sorted(mine) == sorted(reference)


def test_gaps_read_in_order_are_appended_without_a_merge() -> None:
    tree = IntervalTree()
    merged = [add_gap(tree, 3 * i + 1, 3 * i + 2) for i in range(100)]
    assert not any(merged)
    assert len(tree) == 100
    # One that reaches back merges (Faust's path), and the tree stays merged.
    assert add_gap(tree, 0, 9)
    assert sorted(tree)[0].begin == 0 and sorted(tree)[0].end == 9
