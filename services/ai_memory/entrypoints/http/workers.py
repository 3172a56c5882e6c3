"""The HTTP handlers' blocking calls, run on worker threads.

asyncio's ``run_in_executor`` on a pool of our own rather than Starlette's
``run_in_threadpool`` (anyio's ``to_thread``, which enters a cancel scope, takes a
capacity-limiter token and detects the async library on every call): ≈ 0.04 ms less of
server CPU per request, a fifth of what the hop itself costs (``python -m
loadtest.probe_http_stack``). What callers rely on is kept:

* the call sees the request's context variables (its trace span, ``telemetry``);
* at most ``MAX_THREADS`` calls run at once, anyio's default; the rest wait their turn;
* a request cancelled while its call runs (the server stopping, the client gone) waits
  for the call to finish before it unwinds, as anyio's ``to_thread`` does by default: a
  write the thread is making is never left running behind a request already torn down.

Streamed bodies still use Starlette's ``iterate_in_threadpool``.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

MAX_THREADS = 40
_POOL = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="aimem-http")


async def in_worker(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on a worker thread, awaited."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    running = asyncio.get_running_loop().run_in_executor(_POOL, call)
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        await asyncio.wait([running])  # the thread finishes what it started, then we unwind
        raise
