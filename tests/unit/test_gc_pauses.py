"""The collector's pauses, as ``aimem_gc_pause_seconds`` reports them."""

from __future__ import annotations

import gc
import threading

import pytest

from ai_memory.telemetry import gc_pauses
from ai_memory.telemetry.gc_pauses import BUCKETS, GcPauses


def test_a_pause_lands_in_its_bucket_and_the_total() -> None:
    ticks = iter([10.0, 10.003, 20.0, 20.2])
    pauses = GcPauses(perf_counter=lambda: next(ticks), monotonic=lambda: 99.0)
    pauses.callback("start", {"generation": 0})
    pauses.callback("stop", {"generation": 0})
    pauses.callback("start", {"generation": 2})
    pauses.callback("stop", {"generation": 2})
    snap = pauses.snapshot()
    young = dict(snap[0].cumulative())
    assert young["0.0025"] == 0 and young["0.005"] == 1 and young["+Inf"] == 1
    assert snap[0].total == pytest.approx(0.003)
    full = dict(snap[2].cumulative())
    assert full["0.1"] == 0 and full["0.25"] == 1
    assert snap[1].cumulative()[-1] == ("+Inf", 0)
    assert pauses.last_full is not None
    assert pauses.last_full[0] == pytest.approx(0.2) and pauses.last_full[1] == 99.0


def test_a_pause_past_the_largest_bound_is_counted_in_inf_only() -> None:
    pauses = GcPauses()
    pauses.record(2, BUCKETS[-1] + 1.0)
    cumulative = pauses.snapshot()[2].cumulative()
    assert cumulative[-2] == (str(BUCKETS[-1]), 0) and cumulative[-1] == ("+Inf", 1)


def test_watching_twice_adds_one_callback_and_real_collections_are_counted() -> None:
    before = gc.callbacks.count(gc_pauses.PROCESS.callback)
    first = gc_pauses.watch()
    second = gc_pauses.watch()
    try:
        assert first is second is gc_pauses.PROCESS
        assert gc.callbacks.count(gc_pauses.PROCESS.callback) == 1
        counted = first.snapshot()[2].cumulative()[-1][1]
        gc.collect(2)
        gc.collect(2)
        assert first.snapshot()[2].cumulative()[-1][1] == counted + 2
        assert first.last_full is not None and first.last_full[0] > 0
    finally:
        if before == 0:
            gc.callbacks.remove(gc_pauses.PROCESS.callback)


def test_collections_in_many_threads_while_scraped_never_deadlock() -> None:
    """The callback runs inside the collector in whichever thread allocated: it must take
    no lock a scraping or allocating thread could hold."""
    pauses = GcPauses()
    gc.callbacks.append(pauses.callback)
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            ring: list[object] = []
            ring.append(ring)  # a cycle: only the collector frees it
            gc.collect(0)

    def scrape() -> None:
        while not stop.is_set():
            for p in pauses.snapshot().values():
                p.cumulative()

    threads = [threading.Thread(target=f) for f in (churn, churn, scrape)]
    try:
        for t in threads:
            t.start()
        stop.wait(0.5)
    finally:
        stop.set()
        for t in threads:
            t.join(10)
        gc.callbacks.remove(pauses.callback)
    assert not any(t.is_alive() for t in threads)
    assert pauses.snapshot()[0].cumulative()[-1][1] > 10
