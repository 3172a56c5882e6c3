"""The handlers' worker hop (``http/workers.in_worker``) keeps what anyio's gave them:
the request's context variables, errors raised where they are awaited, and a cancelled
request that waits for its call instead of leaving it running behind it."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest

from ai_memory.entrypoints.http.workers import in_worker

REQUEST = contextvars.ContextVar("request", default="none")


def test_the_call_runs_on_a_worker_thread_and_sees_the_callers_context() -> None:
    async def handler() -> tuple[str, bool]:
        REQUEST.set("req-1")
        return await in_worker(lambda: (REQUEST.get(), threading.current_thread().name))

    loop_thread = threading.current_thread().name
    seen, thread = asyncio.run(handler())
    assert seen == "req-1"
    assert thread != loop_thread and thread.startswith("aimem-http")


def test_a_change_the_call_makes_to_the_context_stays_in_the_call() -> None:
    async def handler() -> str:
        REQUEST.set("req-2")
        await in_worker(REQUEST.set, "changed by the call")
        return REQUEST.get()

    assert asyncio.run(handler()) == "req-2"


def test_an_error_is_raised_where_the_call_is_awaited() -> None:
    def fails(x: int, *, y: int) -> int:
        raise ValueError(f"{x} {y}")

    async def handler() -> int:
        return await in_worker(fails, 1, y=2)

    with pytest.raises(ValueError, match="1 2"):
        asyncio.run(handler())


def test_a_cancelled_request_waits_for_its_call_to_finish() -> None:
    started, finished = threading.Event(), threading.Event()

    def write() -> None:
        started.set()
        time.sleep(0.3)
        finished.set()

    async def main() -> bool:
        task = asyncio.create_task(in_worker(write))
        await asyncio.get_running_loop().run_in_executor(None, started.wait)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return finished.is_set()  # unwound only once the write was done

    assert asyncio.run(main())
