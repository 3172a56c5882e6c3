"""Group commit for batch calls: concurrent callers share calls, each sees its own answers."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ai_memory.core.coalesce import Coalescer


class Gate:
    """A batch call that blocks until released, recording what each call carried."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.batches: list[tuple[str, list[int]]] = []

    def run(self, key: str, items: list[int]) -> dict[int, str]:
        self.batches.append((key, items))
        self.entered.set()
        assert self.release.wait(10)
        return {i: f"{key}:{i}" for i in items if i >= 0}  # negative items have no answer


def test_a_lone_caller_runs_at_once() -> None:
    gate = Gate()
    gate.release.set()
    c = Coalescer(gate.run)
    assert c.call("acme", [1, 2, -1]) == {1: "acme:1", 2: "acme:2"}
    assert gate.batches == [("acme", [1, 2, -1])] and c.calls == 1


def test_callers_arriving_during_a_call_share_the_next_and_see_only_their_answers() -> None:
    gate = Gate()
    c = Coalescer(gate.run)
    with ThreadPoolExecutor(12) as pool:
        first = pool.submit(c.call, "acme", [0])
        assert gate.entered.wait(5)
        rest = [pool.submit(c.call, "acme", [n, n + 100]) for n in range(1, 11)]
        other = pool.submit(c.call, "globex", [7])  # another key: a call of its own at once
        time.sleep(0.2)
        gate.release.set()
        assert first.result(5) == {0: "acme:0"}
        for n, f in enumerate(rest, start=1):
            assert f.result(5) == {n: f"acme:{n}", n + 100: f"acme:{n + 100}"}
        assert other.result(5) == {7: "globex:7"}
    acme = [items for key, items in gate.batches if key == "acme"]
    assert len(acme) == 2 and acme[0] == [0]
    assert sorted(acme[1]) == sorted([*range(1, 11), *range(101, 111)])


def test_a_failed_call_fails_its_callers_and_not_the_next() -> None:
    calls = 0
    started = threading.Event()
    release = threading.Event()

    def run(key: str, items: list[int]) -> dict[int, int]:
        nonlocal calls
        calls += 1
        if calls == 1:
            started.set()
            assert release.wait(5)
            raise ConnectionError("the vault is down")
        return {i: i for i in items}

    c = Coalescer(run)
    with ThreadPoolExecutor(4) as pool:
        doomed = pool.submit(c.call, "acme", [1])
        assert started.wait(5)
        later = pool.submit(c.call, "acme", [2])
        time.sleep(0.1)
        release.set()
        with pytest.raises(ConnectionError):
            doomed.result(5)
        assert later.result(5) == {2: 2}


def test_no_caller_serves_others_for_ever() -> None:
    """Under a steady stream of callers, each returns after at most two calls' time: the
    turn passes on, so the first caller is not kept running everyone else's calls."""
    stop = threading.Event()
    c: Coalescer[str, int, int] = Coalescer(
        lambda key, items: (time.sleep(0.01), {i: i for i in items})[1]
    )

    def stream() -> None:
        n = 1000
        while not stop.is_set():
            c.call("acme", [n])
            n += 1

    with ThreadPoolExecutor(5) as pool:
        feeders = [pool.submit(stream) for _ in range(4)]
        time.sleep(0.1)
        t0 = time.monotonic()
        assert c.call("acme", [1]) == {1: 1}
        assert time.monotonic() - t0 < 1.0
        stop.set()
        for f in feeders:
            f.result(5)
