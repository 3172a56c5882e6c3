"""Plumbing around the Qdrant Edge engine's calls, apart from what the index does with
them: engine failures translated into the core error tree, the adapter's readers-writer
lock, and the atomic, fsynced JSON write its checkpoint file needs."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ai_memory.core.errors import AiMemoryError, InvalidInput, Unavailable

_INPUT_ERRORS = ("dimension error", "Wrong input", "Bad input", "Not existing vector name")


@contextlib.contextmanager
def engine_call(what: str) -> Iterator[None]:
    """Translate engine failures (plain ``Exception`` from the bindings) and I/O errors
    into the core error tree; programming errors propagate unchanged."""
    try:
        yield
    except AiMemoryError:
        raise
    except OSError as e:
        raise Unavailable(f"vector index {what} failed: {e}") from e
    except Exception as e:
        if type(e) is not Exception:
            raise
        message = str(e)
        if any(marker in message for marker in _INPUT_ERRORS):
            raise InvalidInput("query", "engine", f"vector index rejected {what}: {message}") from e
        raise Unavailable(f"vector index {what} failed: {message}") from e


class ReadWriteLock:
    """Many shared holders or one exclusive holder; writers are not starved."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._waiting_writers = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._waiting_writers:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting_writers += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._waiting_writers -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old file or the new one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
