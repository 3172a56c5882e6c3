"""One store read for many concurrent callers of the same cache miss.

A cache entry that ages out on a busy gateway is missed by every request in flight at
that moment; each read the store for the same row (a thundering herd), and when that
store is slow — a frozen replica holds a read for seconds — every one of them waits
seconds and adds load to the store. ``SingleFlight.do`` lets the first caller for a key
read and the others wait for its answer (value or exception), as Go's
``golang.org/x/sync/singleflight`` and Guava's ``LoadingCache`` do.

Only a read that any earlier read would answer as well may join one: a caller that must
see a change it just made (a KEK it has just added) reads on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Call(Generic[V]):
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: V | None = None
        self.error: BaseException | None = None
        self.followers = 0


class SingleFlight(Generic[K, V]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[K, _Call[V]] = {}

    def do(self, key: K, load: Callable[[], V]) -> V:
        """``load()``, or the answer of a ``load`` for ``key`` already in flight."""
        with self._lock:
            call = self._calls.get(key)
            leader = call is None
            if call is None:
                call = self._calls[key] = _Call()
            else:
                call.followers += 1
        if not leader:
            call.done.wait()
            if call.error is not None:
                raise call.error
            return cast(V, call.value)  # set before done; V may itself allow None
        try:
            call.value = load()
            return call.value
        except BaseException as exc:
            call.error = exc
            raise
        finally:
            # Out of the table before waking the others: a caller arriving after this
            # answer reads again rather than joining a finished read.
            with self._lock:
                del self._calls[key]
            call.done.set()

    def in_flight(self) -> int:
        """Reads in flight now (for tests and metrics)."""
        with self._lock:
            return len(self._calls)

    def followers(self, key: K) -> int:
        """Callers waiting on the read in flight for ``key`` (0: none in flight)."""
        with self._lock:
            call = self._calls.get(key)
            return 0 if call is None else call.followers
