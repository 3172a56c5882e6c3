"""Concurrent callers parked on one held call, released together (single-flight tests)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def together(
    call: Callable[[], Any],
    n: int,
    *,
    holding: threading.Event,
    release: threading.Event,
    joined: Callable[[], int],
) -> list[Any]:
    """``n`` concurrent ``call()``s: the first reaches the held load (``holding``), the other
    ``n - 1`` are started and must all be waiting on it (``joined``) before ``release``.
    Each caller's answer, or the exception it raised, in start order."""
    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(call)]
        assert holding.wait(10)
        futures += [pool.submit(call) for _ in range(n - 1)]
        deadline = time.monotonic() + 10
        while joined() < n - 1:
            assert time.monotonic() < deadline, "the callers never shared the held call"
            time.sleep(0.005)
        release.set()
        out: list[Any] = []
        for f in futures:
            try:
                out.append(f.result(10))
            except BaseException as exc:  # the error is the answer under test
                out.append(exc)
        return out
