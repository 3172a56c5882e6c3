"""How long the interpreter's garbage collector stops the process, per generation.

A collection holds the interpreter lock from start to end: every thread of the process —
searches, the write path, the HTTP loop — waits for it. A server that keeps an index's
context in memory (``adapters/edge_timelines.py``, ``edge_turn_payloads.py``) has a heap
whose full collection took 156–191 ms at 100,000 memories (108–116 ms of it for the
modules and the app alone), every ≈ 11 s under 100 writes/s and searches
(``loadtest/RESULTS.md``, "The collector's pauses"): the longest search latency of every
run. ``entrypoints/heap_freeze.py`` keeps those pauses short; this
module measures them, for ``aimem_gc_pause_seconds`` and for the freezer's decisions.

The callback runs inside the collector, in whichever thread allocated: it takes no lock
(a thread holding that lock could be the one that triggered the collection) and only
updates plain counters, which the interpreter lock keeps whole enough for a scrape.
"""

from __future__ import annotations

import bisect
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Histogram bounds, seconds: a young collection takes microseconds, a full one of a big
#: heap a large fraction of a second.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
GENERATIONS = (0, 1, 2)
FULL = 2


@dataclass(frozen=True)
class Pauses:
    """One generation's pauses: counts per bucket (not cumulative, the last one past the
    largest bound), their total seconds."""

    counts: tuple[int, ...]
    total: float

    def cumulative(self) -> list[tuple[str, int]]:
        """``(le, count)`` pairs as Prometheus histograms give them, ``+Inf`` last."""
        out: list[tuple[str, int]] = []
        running = 0
        for bound, count in zip((*map(str, BUCKETS), "+Inf"), self.counts, strict=True):
            running += count
            out.append((bound, running))
        return out


class GcPauses:
    """The process's collection pauses, and the latest full one (its length and when it
    ended, on ``monotonic``)."""

    def __init__(
        self,
        perf_counter: Callable[[], float] = time.perf_counter,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._perf_counter = perf_counter
        self._monotonic = monotonic
        self._counts = {g: [0] * (len(BUCKETS) + 1) for g in GENERATIONS}
        self._totals = dict.fromkeys(GENERATIONS, 0.0)
        self._began = 0.0
        self.last_full: tuple[float, float] | None = None  # (seconds, ended at)

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        """For ``gc.callbacks``."""
        if phase == "start":
            self._began = self._perf_counter()
            return
        self.record(int(info["generation"]), self._perf_counter() - self._began)

    def record(self, generation: int, seconds: float) -> None:
        counts = self._counts.get(generation)
        if counts is None:
            return
        counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self._totals[generation] += seconds
        if generation == FULL:
            self.last_full = (seconds, self._monotonic())

    def snapshot(self) -> dict[int, Pauses]:
        return {g: Pauses(tuple(self._counts[g]), self._totals[g]) for g in GENERATIONS}


#: This process's: the collector is one per interpreter.
PROCESS = GcPauses()


def watch() -> GcPauses:
    """Measure this process's collections (once, however often called) and return them."""
    if PROCESS.callback not in gc.callbacks:
        gc.callbacks.append(PROCESS.callback)
    return PROCESS
