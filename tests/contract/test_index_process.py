"""The embedded index in a process of its own passes the ``VectorIndex`` contract, and
keeps what it promises when its process dies (``adapters/index_process.py``)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.index_process import IndexSpec, ProcessIndex
from ai_memory.core.errors import InvalidInput, Rewind, Unavailable
from tests.contract.vector_index_contract import (
    DIM,
    MakeIndex,
    VectorIndexContract,
    apply,
    axis,
    ids,
    put,
    q,
)


def spec(root: Path, **kw: object) -> IndexSpec:
    return IndexSpec(str(root), DIM, "test-model", **kw)  # type: ignore[arg-type]


class TestProcessIndex(VectorIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        opened: list[ProcessIndex] = []

        def make() -> ProcessIndex:
            index = ProcessIndex(
                spec(tmp_path / "index", optimize_after=20_000, flush_interval=1.0)
            )
            opened.append(index)
            return index

        yield make
        for index in opened:
            index.close()


def _wait_for(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():  # type: ignore[operator]
                return
        except Unavailable:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_errors_cross_as_the_same_class_with_their_fields(tmp_path: Path) -> None:
    index = ProcessIndex(spec(tmp_path))
    try:
        with pytest.raises(InvalidInput) as caught:
            index.search(q(None, None, mode="semantic"))  # a semantic query needs a vector
        assert caught.value.field and caught.value.code
    finally:
        index.close()


def test_a_killed_child_is_restarted_and_the_projection_told_to_read_again(
    tmp_path: Path,
) -> None:
    # flush_interval 3600: nothing applied after the first flush is durable, so the child
    # killed below takes positions 2–3 with it and reopens at 1.
    index = ProcessIndex(spec(tmp_path, flush_interval=3600.0))
    try:
        apply(index, put("m1", 1, axis(1), "tea"))
        index.flush()
        apply(index, put("m2", 2, axis(0, 1), "coffee"))
        apply(index, put("m3", 3, axis(1, 1), "cocoa"), checkpoint=3)
        first = index.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        with pytest.raises(Unavailable):  # the call that finds it gone
            index.search(q(axis(1), "tea"))
        _wait_for(lambda: index.pid != first and index.count("default") >= 0)
        assert index.restarts == 1
        # The next apply says where the view really is; nothing was silently skipped.
        with pytest.raises(Rewind) as rewound:
            apply(index, put("m4", 4, axis(1), "milk"))
        assert (rewound.value.checkpoint, rewound.value.expected) == (1, 3)
        assert ids(index.search(q(axis(1), "tea", limit=10))) == ["m1"]
        # The projection re-reads from 1: positions 2–4 land, in order.
        apply(index, put("m2", 2, axis(0, 1), "coffee"))
        apply(index, put("m3", 3, axis(1, 1), "cocoa"))
        apply(index, put("m4", 4, axis(1), "milk"))
        assert index.checkpoint() == 4 and index.count("default") == 4
    finally:
        index.close()


def test_a_child_that_loses_nothing_is_not_rewound(tmp_path: Path) -> None:
    index = ProcessIndex(spec(tmp_path))
    try:
        apply(index, put("m1", 1, axis(1), "tea"))
        index.flush()  # durable: the restarted child reopens where the projection is
        first = index.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        with pytest.raises(Unavailable):
            index.count("default")
        _wait_for(lambda: index.pid != first and index.count("default") == 1)
        apply(index, put("m2", 2, axis(0, 1), "coffee"))
        assert index.checkpoint() == 2
    finally:
        index.close()


def test_two_processes_never_open_one_shard(tmp_path: Path) -> None:
    # A second child waits for the first one's lock on the shard (a predecessor that is
    # still closing, an orphan): it opens the files only once the first has let them go.
    one = ProcessIndex(spec(tmp_path))
    apply(one, put("m1", 1, axis(1), "tea"))
    two = ProcessIndex(spec(tmp_path))
    answered: list[int] = []
    asking = threading.Thread(target=lambda: answered.append(two.checkpoint()))
    try:
        asking.start()
        asking.join(1.5)
        assert answered == []  # still waiting for the lock
        one.close()  # flushes: what it applied is on disk for the next opener
        asking.join(30)
        assert answered == [1] and two.count("default") == 1
    finally:
        one.close()
        two.close()


def test_after_a_restart_each_partition_is_checked_on_its_own(tmp_path: Path) -> None:
    index = ProcessIndex(spec(tmp_path, flush_interval=3600.0))
    try:
        apply(index, put("a1", 1, axis(1), "tea"), partition=0)
        apply(index, put("b1", 1, axis(0, 1), "coffee"), partition=1)
        index.flush()
        apply(index, put("b2", 2, axis(1, 1), "cocoa"), partition=1)  # lost with the child
        first = index.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        with pytest.raises(Unavailable):
            index.count("default")
        _wait_for(lambda: index.pid != first and index.count("default") == 2)
        # Partition 0 lost nothing: it goes on. Partition 1 is told to read from 1 again,
        # once; its replayed event then lands.
        apply(index, put("a2", 2, axis(1), "milk"), partition=0)
        with pytest.raises(Rewind) as rewound:
            apply(index, put("b3", 3, axis(1), "water"), partition=1)
        assert (rewound.value.partition, rewound.value.checkpoint) == (1, 1)
        apply(index, put("b2", 2, axis(1, 1), "cocoa"), partition=1)
        apply(index, put("b3", 3, axis(1), "water"), partition=1)
        assert (index.checkpoint(0), index.checkpoint(1), index.count("default")) == (2, 3, 5)
    finally:
        index.close()
