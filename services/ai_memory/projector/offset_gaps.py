"""The offset gaps a Faust consumer tracks, added without rebuilding the tree each time.

Faust commits the offsets its stream acked and, so that a commit can pass offsets no
message has (a transaction's commit marker takes one), it records every jump in the
offsets it reads as a gap: an interval in a per-partition ``IntervalTree``. Its
``Consumer._add_gap`` calls ``merge_overlaps()`` after each ``addi``, and that rebuilds
the whole tree from its intervals: O(n log n) for every gap, with n the gaps read since
the last commit (every ``broker_commit_interval``, 2.8 s). On our log every transaction
leaves a gap, and single PUTs commit a transaction for one or two events, so the cost
grew with the square of the write rate: ≈ 80 µs a gap with 10 pending, 1.2 ms with 200,
and a third of a records worker's event loop at 65 PUTs/s (``loadtest/RESULTS.md``,
"Faust's offset gaps").

A consumer reads a partition in offset order, so a new gap almost always starts at or
after the end of every gap already held; the tree's intervals never overlap (Faust merges
them, and ``chop`` only cuts), so such a gap overlaps none and ``merge_overlaps`` would
leave the tree as ``addi`` made it. Only a gap that reaches back (a seek to an earlier
offset reads a stretch again) takes Faust's merge. The tree ends as Faust's would, gap
for gap (``tests/property/test_offset_gaps.py``).
"""

from __future__ import annotations

from typing import Any


def add_gap(tree: Any, begin: int, end: int) -> bool:
    """Add the gap ``[begin, end)`` to ``tree`` (an ``intervaltree.IntervalTree`` whose
    intervals do not overlap) as ``addi`` then ``merge_overlaps`` would; True when the
    merge was needed (the gap reaches back before the end of the tree's last one)."""
    if not tree or begin >= tree.end():
        tree.addi(begin, end)
        return False
    tree.addi(begin, end)
    tree.merge_overlaps()
    return True
