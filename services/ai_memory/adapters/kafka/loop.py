"""A private asyncio event loop on a background thread: the sync ↔ async bridge.

Why: the ``EventLog`` port is synchronous and is called from many threads at once (HTTP
worker threads, one tailer thread per projection), while aiokafka is asyncio-only and its
clients are bound to the loop that created them and are not thread-safe. So one loop
thread owns every Kafka client of a log; callers hand it coroutines with
``asyncio.run_coroutine_threadsafe`` and block on the result.

The alternatives are worse: ``asyncio.run`` per call would build a new producer (a new
connection and a new idempotent producer id) for every append, and a loop per calling
thread would mean a producer per thread with no shared batching between concurrent
appends. CPU work that needs no client (Avro encode/decode) stays on the calling thread so
the loop only does I/O.

The loop is uvloop's: this one thread carries every producer and consumer of the process,
and its socket I/O and callbacks cost less CPU — and less time holding the GIL that the
request threads wait for — in C than in asyncio's Python loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import uvloop

from ai_memory.core.errors import Unavailable

T = TypeVar("T")
log = logging.getLogger(__name__)


class BackgroundLoop:
    """An event loop running forever on a daemon thread until ``close``."""

    def __init__(self, name: str) -> None:
        self._loop = uvloop.new_event_loop()
        self._closed = False
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and wait for its result (re-raising its exception).

        On ``timeout`` the coroutine is cancelled and ``concurrent.futures.TimeoutError``
        is raised; callers translate it."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("BackgroundLoop.run called from its own thread (deadlock)")
        if self._closed:
            coro.close()
            raise Unavailable("the Kafka event log is closed", code="event_log_closed")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def spawn(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start ``coro`` on the loop without waiting for it (a reader that runs until
        ``close`` cancels it)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def close(self, shutdown: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Run ``shutdown`` (closing the clients), cancel what is left, stop the thread.

        Idempotent. Closing the clients on their own loop is what lets aiokafka release its
        sockets and tasks without "unclosed" warnings."""
        if self._closed:
            return
        try:
            if shutdown is not None:
                asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(60)
            asyncio.run_coroutine_threadsafe(_cancel_all(), self._loop).result(10)
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            if not self._thread.is_alive():
                try:
                    self._loop.close()
                except OSError as e:
                    # libuv refuses (EBUSY) while a handle is still open: a client whose
                    # close timed out above. Closing is best effort; the caller is done.
                    log.warning("the %s loop closed with handles open: %s", self._thread.name, e)


async def _cancel_all() -> None:
    current = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()
