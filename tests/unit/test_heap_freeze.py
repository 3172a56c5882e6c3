"""When a serving process freezes its heap (``entrypoints/heap_freeze.py``)."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from ai_memory.entrypoints.heap_freeze import HeapFreezer, Policy, freeze_heap, start_for
from ai_memory.telemetry.gc_pauses import GcPauses


@pytest.mark.parametrize(
    ("last_full", "frozen_at", "now", "due"),
    [
        (None, 0.0, 1_000.0, False),  # no full collection yet
        ((0.2, 50.0), 100.0, 1_000.0, False),  # it came before the last freeze
        ((0.01, 500.0), 100.0, 1_000.0, False),  # short: the heap is small enough
        ((0.2, 150.0), 100.0, 200.0, False),  # the last freeze is too recent
        ((0.2, 500.0), 100.0, 400.0, True),
        ((0.05, 500.0), 100.0, 400.0, True),  # the bounds count
    ],
)
def test_a_refreeze_is_due_after_a_long_full_collection_when_the_last_is_old(
    last_full: tuple[float, float] | None, frozen_at: float, now: float, due: bool
) -> None:
    policy = Policy(refreeze_pause=0.05, refreeze_every=300.0)
    assert policy.refreeze_due(last_full, frozen_at, now) is due


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _wait_for(check: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.005)
    raise AssertionError("not reached in time")


def test_the_first_freeze_waits_for_ready_and_collects_first() -> None:
    ready = threading.Event()
    calls: list[bool] = []
    clock = _Clock()
    freezer = HeapFreezer(GcPauses(), ready.is_set, poll=0.01, freeze=calls.append, monotonic=clock)
    freezer.start()
    try:
        time.sleep(0.1)
        assert calls == []  # warming: nothing frozen yet
        ready.set()
        _wait_for(lambda: calls == [True])
    finally:
        freezer.stop()


def test_it_freezes_anyway_when_ready_never_comes_or_fails() -> None:
    clock = _Clock()
    calls: list[bool] = []

    def broken() -> bool:
        raise RuntimeError("status unavailable")

    freezer = HeapFreezer(
        GcPauses(), broken, ready_timeout=60.0, poll=0.01, freeze=calls.append, monotonic=clock
    )
    freezer.start()
    try:
        time.sleep(0.05)
        assert calls == []
        clock.now = 61.0
        _wait_for(lambda: calls == [True])
    finally:
        freezer.stop()


def test_a_grown_heap_is_frozen_again_without_a_second_collection() -> None:
    clock = _Clock()
    pauses = GcPauses(monotonic=clock)
    calls: list[bool] = []
    policy = Policy(refreeze_pause=0.05, refreeze_every=300.0)
    freezer = HeapFreezer(
        pauses, lambda: True, policy=policy, poll=0.01, freeze=calls.append, monotonic=clock
    )
    freezer.start()
    try:
        _wait_for(lambda: calls == [True])
        clock.now = 100.0
        pauses.record(2, 0.2)  # long, but the freeze is 100 s old
        time.sleep(0.05)
        assert calls == [True]
        clock.now = 400.0
        pauses.record(2, 0.01)  # old enough, but short
        time.sleep(0.05)
        assert calls == [True]
        pauses.record(2, 0.15)
        _wait_for(lambda: calls == [True, False])
        clock.now = 450.0
        pauses.record(2, 0.3)  # long again, but the freeze just happened
        time.sleep(0.05)
        assert calls == [True, False]
        assert freezer.freezes == 2
    finally:
        freezer.stop()


def test_frozen_objects_leave_full_collections_and_still_die_by_reference() -> None:
    class Held:
        pass

    kept = [[Held()] for _ in range(10_000)]
    before = gc.get_freeze_count()
    try:
        freeze_heap(collect=True)
        assert gc.get_freeze_count() >= before + 10_000
        # What the collector still walks is what came after the freeze.
        assert all(not any(o is kept for o in gen) for gen in (gc.get_objects(g) for g in range(3)))
        probe = Held()
        ref = weakref.ref(probe)
        freeze_heap(collect=False)
        del probe
        assert ref() is None  # freed by its count, frozen or not
    finally:
        gc.unfreeze()


def test_start_for_waits_for_the_index_context_to_be_warm() -> None:
    status = {"context_warming": 1.0}
    before = gc.get_freeze_count()
    freezer = start_for(lambda: status)
    try:
        time.sleep(1.2)
        assert freezer.freezes == 0
        status["context_warming"] = 0.0
        _wait_for(lambda: freezer.freezes == 1)
        assert gc.get_freeze_count() > before
    finally:
        freezer.stop()
        gc.unfreeze()


def test_start_for_an_index_that_reports_nothing_freezes_at_once() -> None:
    freezer = start_for(None)
    try:
        _wait_for(lambda: freezer.freezes == 1)
    finally:
        freezer.stop()
        gc.unfreeze()
