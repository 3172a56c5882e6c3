"""``SingleFlight``: concurrent callers for one key share one load, its value or its error;
a later caller loads again; other keys never wait."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from ai_memory.core.single_flight import SingleFlight
from tests.together import together


class Gate:
    """A load that blocks until released, counting its calls."""

    def __init__(self, answer: object = "v", error: BaseException | None = None) -> None:
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.answer = answer
        self.error = error

    def __call__(self) -> object:
        self.calls += 1
        self.started.set()
        assert self.release.wait(10)
        if self.error is not None:
            raise self.error
        return self.answer


def _waiters(flight: SingleFlight[str, object], load: Gate, n: int) -> list[object]:
    """``n`` callers of ``flight.do("k", load)``, all parked on one load when it answers."""
    return together(
        lambda: flight.do("k", load),
        n,
        holding=load.started,
        release=load.release,
        joined=lambda: flight.followers("k"),
    )


class Cancelled(BaseException):
    """Not an ``Exception``, as a cancellation or an interpreter exit is not."""


def test_concurrent_callers_share_one_load() -> None:
    flight: SingleFlight[str, object] = SingleFlight()
    load = Gate(answer=None)  # "unknown" is an answer too, shared like any other
    assert _waiters(flight, load, 8) == [None] * 8
    assert load.calls == 1 and flight.in_flight() == 0


def test_an_error_reaches_every_caller_and_the_next_call_loads_again() -> None:
    flight: SingleFlight[str, object] = SingleFlight()
    boom = TimeoutError("replica frozen")
    out = _waiters(flight, Gate(error=boom), 6)
    assert out == [boom] * 6
    again = Gate(answer="fresh")
    again.release.set()
    assert flight.do("k", again) == "fresh" and again.calls == 1


def test_a_finished_load_is_not_reused() -> None:
    flight: SingleFlight[str, int] = SingleFlight()
    calls = iter(range(10))
    assert [flight.do("k", lambda: next(calls)) for _ in range(3)] == [0, 1, 2]


def test_other_keys_do_not_wait() -> None:
    flight: SingleFlight[str, object] = SingleFlight()
    slow = Gate()
    with ThreadPoolExecutor(2) as pool:
        held = pool.submit(flight.do, "slow", slow)
        assert slow.started.wait(10)
        assert flight.do("other", lambda: "quick") == "quick"
        assert not held.done()
        slow.release.set()
        assert held.result(10) == "v"


def test_a_base_exception_in_the_leader_still_wakes_the_followers() -> None:
    flight: SingleFlight[str, object] = SingleFlight()
    out = _waiters(flight, Gate(error=Cancelled()), 3)
    assert all(isinstance(o, Cancelled) for o in out)
    assert flight.in_flight() == 0


@pytest.mark.parametrize("n", [2, 16])
def test_a_follower_gets_the_leaders_object(n: int) -> None:
    flight: SingleFlight[str, object] = SingleFlight()
    answer = object()
    assert all(o is answer for o in _waiters(flight, Gate(answer=answer), n))
