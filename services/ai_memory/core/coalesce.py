"""Group commit for any batch call: concurrent callers share one call per key.

Sixteen clients each writing one memory ask the vault for sixteen keys, each in a round
trip of its own (on Cassandra, two writes and a read apiece) although the vault takes a
batch as cheaply as one. ``Coalescer.call`` lets the first caller for a key run the call
with its items; callers arriving meanwhile queue theirs, and when the running call ends
the next of them runs one call with every queued item — as a database's group commit or
Kafka's producer batching do. Nobody waits for a timer: a lone caller runs at once, and
under load each call carries what arrived during the one before.

A call's failure is every one of its callers' failure (each judges it for itself); the
answers are split by item, so a caller sees only the answers to its own items.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
I = TypeVar("I", bound=Hashable)  # noqa: E741 - an item, as in the other type variables
R = TypeVar("R")


class _Ask(Generic[I, R]):
    __slots__ = ("answers", "error", "finished", "items", "wake")

    def __init__(self, items: Sequence[I]) -> None:
        self.items = items
        self.wake = threading.Event()  # answered, or its turn to run the next call
        self.finished = False
        self.answers: Mapping[I, R] = {}
        self.error: BaseException | None = None


class Coalescer(Generic[K, I, R]):
    """``run(key, items)`` → answers by item, shared by the concurrent callers of a key."""

    def __init__(self, run: Callable[[K, list[I]], Mapping[I, R]]) -> None:
        self._run = run
        self._lock = threading.Lock()
        self._queued: dict[K, list[_Ask[I, R]]] = {}
        self._running: set[K] = set()
        self.calls = 0  # how many calls ``run`` made (for tests and metrics)

    def waiting(self, key: K) -> int:
        """Callers of ``key`` queued for the next call (for tests and metrics)."""
        with self._lock:
            return len(self._queued.get(key, ()))

    def call(self, key: K, items: Sequence[I]) -> dict[I, R]:
        """The answers to ``items`` (an item ``run`` left out is left out here)."""
        ask: _Ask[I, R] = _Ask(items)
        with self._lock:
            self._queued.setdefault(key, []).append(ask)
            turn = key not in self._running
            self._running.add(key)
        if not turn:
            ask.wake.wait()
        if not ask.finished:  # its turn: one call for everything queued, itself included
            self._run_queued(key)
        if ask.error is not None:
            raise ask.error
        return {item: ask.answers[item] for item in ask.items if item in ask.answers}

    def _run_queued(self, key: K) -> None:
        """One call with every queued item; then the turn goes to the first caller that
        queued meanwhile (each caller runs at most one call: none serves others for ever)."""
        with self._lock:
            asks = self._queued.pop(key, [])
        items = list(dict.fromkeys(item for ask in asks for item in ask.items))
        answers: Mapping[I, R] = {}
        error: BaseException | None = None
        try:
            self.calls += 1
            answers = self._run(key, items)
        except BaseException as e:  # every caller of this call hears it
            error = e
        for ask in asks:
            ask.answers, ask.error, ask.finished = answers, error, True
            ask.wake.set()
        with self._lock:
            waiting = self._queued.get(key)
            if waiting:
                waiting[0].wake.set()  # not finished: it runs the next call
            else:
                self._running.discard(key)
