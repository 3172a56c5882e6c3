"""``LogWatch``: "the log advanced" for requests waiting on an event loop.

A change-feed long-poll (``service.changes``) must wake the moment something is appended,
without holding a worker thread per waiting request. One watcher thread per partition
blocks in ``EventLog.wait_for_events`` (woken at once by appends of this process on the
embedded log, other processes' appends polled at its own short interval; a long poll on
Kafka, answered by the broker when a commit lands) and resolves the futures of every
request waiting beyond the new head. So a thousand subscribers cost one thread per
partition, not a thousand threads.

The watchers start with the first waiter and end after ``IDLE_SECONDS`` without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from dataclasses import dataclass

from ai_memory.core.ports import EventLog

log = logging.getLogger(__name__)

IDLE_SECONDS = 30.0  # a watcher with no waiter for this long ends
_WAIT_SLICE = 1.0  # a watcher re-checks its waiters and the stop flag this often


@dataclass
class _Waiter:
    after: dict[int, int]  # partition → position already seen by the waiting request
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]


class LogWatch:
    def __init__(self, event_log: EventLog) -> None:
        self._log = event_log
        self._lock = threading.Lock()
        self._waiters: list[_Waiter] = []
        self._threads: dict[int, threading.Thread] = {}
        self._heads: dict[int, int] = {}  # the newest position each watcher has seen
        self._stop = threading.Event()

    async def wait_beyond(self, after: dict[int, int], timeout: float) -> bool:
        """True once some partition of ``after`` has an event beyond its position there;
        False after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        waiter = _Waiter(dict(after), loop, loop.create_future())
        with self._lock:
            if self._advanced(waiter):
                return True
            self._waiters.append(waiter)
            for partition in after:
                self._start(partition)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            with self._lock:
                self._waiters = [w for w in self._waiters if w is not waiter]

    def close(self) -> None:
        """Stop the watchers (each ends within its wait slice; they are daemons, so the
        log may close meanwhile: a failure after ``close`` is expected and not logged)."""
        self._stop.set()

    def _advanced(self, waiter: _Waiter) -> bool:
        return any(self._heads.get(p, 0) > pos for p, pos in waiter.after.items())

    def _start(self, partition: int) -> None:
        """(Under the lock.) A watcher for ``partition`` unless one runs."""
        if partition in self._threads or self._stop.is_set():
            return
        thread = threading.Thread(
            target=self._watch, args=(partition,), name=f"log-watch-{partition}", daemon=True
        )
        self._threads[partition] = thread
        thread.start()

    def _watch(self, partition: int) -> None:
        idle_since: float | None = None
        try:
            head = self._log.last_position(partition)
            with self._lock:
                self._heads[partition] = head
            self._wake(partition)
            while not self._stop.is_set():
                if self._log.wait_for_events(after=head, timeout=_WAIT_SLICE, partition=partition):
                    head = self._log.last_position(partition)
                    with self._lock:
                        self._heads[partition] = head
                    self._wake(partition)
                with self._lock:
                    if any(partition in w.after for w in self._waiters):
                        idle_since = None
                        continue
                    idle_since = idle_since or time.monotonic()
                    if time.monotonic() - idle_since >= IDLE_SECONDS:
                        return
        except Exception:  # the log is down: waiters time out and their clients poll again
            if not self._stop.is_set():
                log.exception("change feed: watching partition %d of the log failed", partition)
        finally:
            with self._lock:
                self._threads.pop(partition, None)

    def _wake(self, partition: int) -> None:
        with self._lock:
            due = [w for w in self._waiters if partition in w.after and self._advanced(w)]
        for waiter in due:
            with contextlib.suppress(RuntimeError):  # that loop has closed meanwhile
                waiter.loop.call_soon_threadsafe(_resolve, waiter.future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
