"""Compaction of the embedded index off the serving path (adapters/edge_compaction.py):
searches go on, nothing applied meanwhile is lost, forgotten vectors leave the files
without an operator step, and a kill at any moment leaves an index that opens whole."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import qdrant_edge as qe

from ai_memory.adapters import edge_compaction, qdrant_edge_index
from ai_memory.adapters.edge_compaction import CompactionPolicy, Compactor
from ai_memory.adapters.index_payload import point_id
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.core.projection import IndexRemove, IndexSetState
from ai_memory.core.record import MemoryState
from tests.contract.vector_index_contract import (
    DIM,
    Batch,
    MakeIndex,
    VectorIndexContract,
    apply,
    axis,
    ids,
    merge,
    put,
    q,
)

FAST = CompactionPolicy(after_points=1, forget_delay=0.0, poll_interval=0.01)


class TestQdrantEdgeIndexWhileCompacting(VectorIndexContract):
    """The whole index contract holds with a compaction due after every write."""

    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        def make() -> QdrantEdgeIndex:
            idx = QdrantEdgeIndex(tmp_path / "index", DIM, "test-model", compaction=FAST)
            idx.start_compaction()
            return idx

        yield make


def wait_for(check: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def unit(rng: np.random.Generator) -> Any:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def generations(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("shard"))


def holding(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_compaction_swaps_in_a_new_generation_while_writes_and_searches_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Catch up outside the lock for all but a few mutations, so both paths run.
    monkeypatch.setattr(qdrant_edge_index, "_CATCH_UP_UNDER_LOCK", 3)
    policy = CompactionPolicy(after_points=40, forget_delay=3600, poll_interval=0.01)
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, compaction=policy)
    idx.start_compaction()
    rng = np.random.default_rng(3)
    errors: list[BaseException] = []
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            try:
                idx.search(q(axis(1), "memory", limit=5))
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)
                return

    readers = [threading.Thread(target=search) for _ in range(2)]
    for t in readers:
        t.start()
    try:
        n = 0
        # Keep writing until two compactions finished: the second one ran while this loop
        # applied, so its journal carried writes the child never saw.
        first = unit(rng)
        while idx.compaction_status()["outcome_done"] < 2:
            n += 1
            apply(idx, put(f"m{n}", n, first if n == 1 else unit(rng), f"memory number {n}"))
            time.sleep(0.002)
            assert n < 50_000
    finally:
        done.set()
        for t in readers:
            t.join()
    assert errors == []
    try:
        # The last writes may have made a third compaction due: let it finish, so the
        # files are looked at between compactions (a copy in progress is not a leftover).
        deadline = time.monotonic() + 120
        while idx.compaction_status()["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert idx.count("default") == n and idx.checkpoint() == n
        hits = idx._live().retrieve(
            [point_id("default", f"m{i}") for i in range(1, n + 1)], None, False
        )
        assert len(hits) == n
        live = json.loads((tmp_path / "checkpoint.json").read_text())["shard"]
        assert live != "shard" and generations(tmp_path) == [live]  # the old one is gone
        # Everything is in indexed segments or the small appendable one written since.
        assert idx._live().info().segments_count <= 4
    finally:
        idx.close()
    reopened = QdrantEdgeIndex(tmp_path, DIM, "m")
    try:
        assert reopened.count("default") == n and reopened.checkpoint() == n
        # Its own vector finds it (every text ties on "memory number": ties are
        # ordered by point id, so a text query says nothing about m1 in particular).
        assert ids(reopened.search(q(first, mode="semantic", limit=1))) == ["m1"]
    finally:
        reopened.close()


def test_forgotten_vectors_leave_the_files_without_an_operator_step(tmp_path: Path) -> None:
    """The byte scan of docs/design/FORGETTING.md, with no ``optimize`` call: the forget
    alone schedules the compaction that rewrites the segment without the vector."""
    policy = CompactionPolicy(after_points=10**9, forget_delay=0.2, poll_interval=0.02)
    idx = QdrantEdgeIndex(
        tmp_path, DIM, "m", optimize_after=None, indexing_threshold_kb=1, compaction=policy
    )
    rng = np.random.default_rng(7)
    try:
        for n in range(1, 41):
            apply(idx, put(f"m{n}", n, unit(rng)))
        idx.optimize()  # an indexed, immutable segment holds the vector
        idx.start_compaction()
        (point,) = idx._live().retrieve([point_id("default", "m7")], None, True)
        vectors: Any = point.vector
        gone = np.asarray(vectors["dense"], dtype="<f4").tobytes()
        apply(idx, ([IndexRemove("default", "m7", 41)], {}))
        idx.flush()
        assert holding(tmp_path, gone)
        assert idx._idf_params("default") is not None  # m7's old copy still counts
        wait_for(lambda: idx.compaction_status()["outcome_done"] >= 1)
        assert not holding(tmp_path, gone)
        assert idx.count("default") == 39
        assert idx.compaction_status()["forgotten_pending"] == 0
        # The new generation is vacuumed: the engine's own IDF is exact again.
        assert idx._idf_params("default") is None
    finally:
        idx.close()


def test_a_reset_during_a_compaction_discards_it(tmp_path: Path) -> None:
    policy = CompactionPolicy(after_points=1, forget_delay=3600, poll_interval=0.01)
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, compaction=policy)
    rng = np.random.default_rng(5)
    try:
        for n in range(1, 200):
            apply(idx, put(f"m{n}", n, unit(rng)))
        idx.start_compaction()
        wait_for(lambda: idx.compaction_status()["running"] == 1)
        idx.reset()
        apply(idx, put("after", 1, unit(rng)))
        wait_for(lambda: idx.compaction_status()["running"] == 0)
        assert idx.count("default") == 1 and idx.checkpoint() == 1
        wait_for(lambda: len(generations(tmp_path)) == 1)
    finally:
        idx.close()


def _written(tmp_path: Path, *, after_points: int, points: int) -> QdrantEdgeIndex:
    """An index compacting after ``after_points``, ``points`` memories written to it."""
    policy = CompactionPolicy(after_points=after_points, forget_delay=3600, poll_interval=0.01)
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, compaction=policy)
    rng = np.random.default_rng(points)
    for n in range(1, points + 1):
        apply(idx, put(f"m{n}", n, unit(rng)))
    return idx


def test_a_reset_between_a_swap_and_the_old_generations_close_keeps_its_new_shard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old generation is closed out of the apply lock, after a pause: a reset landing
    then removes it itself and creates ``shard`` again, which is the first compaction's old
    generation's name — the compaction must not delete it afterwards."""
    monkeypatch.setattr(qdrant_edge_index, "_SWAP_PAUSE", 0.5)
    idx = _written(tmp_path, after_points=1, points=49)
    rng = np.random.default_rng(9)
    try:
        idx.start_compaction()
        wait_for(lambda: idx._generation != "shard")  # swapped; the old one not closed yet
        idx.reset()
        apply(idx, put("after", 1, unit(rng)))
        wait_for(lambda: idx.compaction_status()["running"] == 0)
        assert idx.count("default") == 1 and idx.checkpoint() == 1
        idx.flush()
        # The generation the checkpoint names (``shard``, or a later compaction's) exists.
        live = json.loads((tmp_path / "checkpoint.json").read_text())["shard"]
        wait_for(lambda: generations(tmp_path) == [live])
    finally:
        idx.close()
    reopened = QdrantEdgeIndex(tmp_path, DIM, "m")
    try:
        assert reopened.count("default") == 1 and reopened.checkpoint() == 1
    finally:
        reopened.close()


def children_on(root: Path) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"edge_compaction" in cmdline and str(root).encode() in cmdline:
                found.append(int(proc.name))
    return found


def test_close_during_a_compaction_kills_the_child(tmp_path: Path) -> None:
    policy = CompactionPolicy(after_points=1, forget_delay=3600, poll_interval=0.01)
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, compaction=policy)
    rng = np.random.default_rng(9)
    for n in range(1, 300):
        apply(idx, put(f"m{n}", n, unit(rng)))
    idx.start_compaction()
    wait_for(lambda: bool(children_on(tmp_path)))
    idx.close()
    wait_for(lambda: not children_on(tmp_path), timeout=10)
    reopened = QdrantEdgeIndex(tmp_path, DIM, "m")
    try:
        assert reopened.count("default") == 299
        assert len(generations(tmp_path)) == 1
    finally:
        reopened.close()


VICTIM = """
import sys, time
import numpy as np
from pathlib import Path
from ai_memory.adapters.edge_compaction import CompactionPolicy, Compactor
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from tests.contract.vector_index_contract import DIM, apply, put

root = Path(sys.argv[1])
policy = CompactionPolicy(after_points=25, forget_delay=3600, poll_interval=0.005)
idx = QdrantEdgeIndex(root, DIM, "m", optimize_after=None, flush_interval=0.05, compaction=policy)
idx.start_compaction()
n = idx.checkpoint()
rng = np.random.default_rng(n)
print("ready", flush=True)
while True:
    n += 1
    v = rng.standard_normal(DIM).astype(np.float32)
    apply(idx, put(f"m{n}", n, v / np.linalg.norm(v), f"memory number {n}"))
    time.sleep(0.001)
"""


def test_kill_9_at_any_moment_of_a_compaction_leaves_an_index_that_opens_whole(
    tmp_path: Path,
) -> None:
    """The owning process is killed at random moments while it writes and compacts
    (snapshot copy, child optimising, catch-up, swap, checkpoint, old generation's
    removal): every reopen finds one generation, every point up to its durable
    checkpoint, and no compaction child left running."""
    script = tmp_path / "victim.py"
    script.write_text(VICTIM)
    root = tmp_path / "index"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    rand = random.Random(11)
    swaps = 0
    for _ in range(10):
        victim = subprocess.Popen(
            [sys.executable, str(script), str(root)], stdout=subprocess.PIPE, env=env
        )
        assert victim.stdout is not None and victim.stdout.readline() == b"ready\n"
        time.sleep(rand.uniform(0.3, 2.0))
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        victim.stdout.close()
        wait_for(lambda: not children_on(root), timeout=10)  # died with its parent
        live = json.loads((root / "checkpoint.json").read_text()).get("shard", "shard")
        swaps += live != "shard"
        idx = QdrantEdgeIndex(root, DIM, "m", optimize_after=None)
        try:
            top = idx.checkpoint()
            assert top > 0
            wanted = [point_id("default", f"m{i}") for i in range(1, top + 1)]
            assert len(idx._live().retrieve(wanted, None, False)) == top
            assert generations(root) == [live]
        finally:
            idx.close()
    assert swaps > 0  # compactions did complete between the kills


def test_a_catch_up_the_load_outruns_is_abandoned_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(qdrant_edge_index, "_CATCH_UP_PASSES", 0)  # never converges
    monkeypatch.setattr(qdrant_edge_index, "_CATCH_UP_UNDER_LOCK", -1)
    policy = CompactionPolicy(after_points=5, forget_delay=3600, poll_interval=0.01)
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, compaction=policy)
    rng = np.random.default_rng(4)
    try:
        for n in range(1, 21):
            apply(idx, put(f"m{n}", n, unit(rng)))
        idx.start_compaction()
        wait_for(lambda: idx.compaction_status()["outcome_abandoned"] >= 1)
        wait_for(lambda: generations(tmp_path) == ["shard"])  # its copy is removed
        assert idx.compaction_status()["outcome_done"] == 0
        assert idx.compaction_status()["points_since"] >= 20  # still due, later
        apply(idx, put("m21", 21, unit(rng)))
        assert idx.count("default") == 21 and idx.checkpoint() == 21
    finally:
        idx.close()


def _overlapping_batches(rng: np.random.Generator, first: int) -> list[Batch]:
    """Every kind of index change, at positions from ``first`` on: new memories, new
    versions of stored ones, state changes, forgets, a forget and a new version in one
    batch, and re-deliveries of earlier batches (which the plan skips)."""
    batches: list[Batch] = []
    position = first
    for step in range(60):
        position += 1
        memory = f"m{int(rng.integers(1, 41))}"
        kind = step % 6
        if kind in (0, 1):
            batch = put(memory, position, unit(rng), f"version {position} of {memory}")
        elif kind == 2:
            state = MemoryState.HISTORICAL if step % 12 == 2 else MemoryState.ARCHIVED
            batch = ([IndexSetState("default", memory, state, position)], {})
        elif kind == 3:
            batch = ([IndexRemove("default", memory, position)], {})
        elif kind == 4:
            other = f"m{int(rng.integers(1, 41))}"
            position += 1
            batch = merge(
                ([IndexRemove("default", memory, position - 1)], {}),
                put(other, position, unit(rng), f"version {position} of {other}"),
            )
        else:
            batch = batches[int(rng.integers(0, len(batches)))]  # delivered again
        batches.append(batch)
    return batches


def _points(idx: QdrantEdgeIndex, n: int) -> list[tuple[str, Any, dict[str, Any]]]:
    """Every point of memories m1…mn: id, payload, vectors (sparse ones as lists: the
    binding's ``SparseVector`` compares by identity)."""
    points = [point_id("default", f"m{i}") for i in range(1, n + 1)]
    found = idx._live().retrieve(points, True, True)
    return sorted(
        (
            str(r.id),
            r.payload,
            {
                name: (list(v.indices), list(v.values)) if hasattr(v, "indices") else v
                for name, v in (r.vector or {}).items()
            },
        )
        for r in found
    )


def test_what_a_compaction_overlapped_lands_as_it_did_on_the_live_shard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up runs the live shard's own operations on the new generation
    (``edge_compaction``, step 3) instead of planning the mutations again: every kind of
    change applied while the child optimises leaves the swapped-in generation holding
    what an index that never compacted holds — each point's payload and vectors."""
    overlapped, proceed = threading.Event(), threading.Event()
    real_run_child = Compactor.run_child

    def run_child(self: Compactor, shard_dir: Path, layout: Any) -> bool:
        overlapped.set()  # the snapshot is taken and the journal open
        assert proceed.wait(60)
        return real_run_child(self, shard_dir, layout)

    monkeypatch.setattr(Compactor, "run_child", run_child)
    policy = CompactionPolicy(after_points=40, forget_delay=3600, poll_interval=0.01)
    idx = QdrantEdgeIndex(tmp_path / "live", DIM, "m", optimize_after=None, compaction=policy)
    reference = QdrantEdgeIndex(tmp_path / "reference", DIM, "m", optimize_after=None)
    rng = np.random.default_rng(11)
    try:
        before = [put(f"m{n}", n, unit(rng), f"memory number {n}") for n in range(1, 41)]
        during = _overlapping_batches(rng, first=40)
        for batch in before:
            apply(idx, batch)
            apply(reference, batch)
        idx.start_compaction()
        assert overlapped.wait(60)
        for batch in during:
            apply(idx, batch)
            apply(reference, batch)
        proceed.set()
        wait_for(lambda: idx.compaction_status()["outcome_done"] >= 1)
        assert idx._generation != "shard"  # the new generation serves
        assert _points(idx, 40) == _points(reference, 40)
        assert idx.checkpoint() == reference.checkpoint()
        assert idx._vacuumed is False  # the overlapped changes rewrote stored points
    finally:
        proceed.set()
        idx.close()
        reference.close()


def test_the_new_generation_is_read_into_the_page_cache_before_its_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's load holds the interpreter lock while it reads the files, and the
    child's close dropped them from the cache: they are read first, off the lock."""
    loads: list[str] = []
    reads: list[tuple[str, int, list[str]]] = []
    real_read = edge_compaction.read_into_page_cache

    def read(directory: Path) -> int:
        total = real_read(directory)
        reads.append((directory.name, total, list(loads)))
        return total

    class Engine:
        """``qe`` with ``EdgeShard.load`` recorded (the bindings' class is immutable)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(real_qe, name)

    class Shards:
        def __getattr__(self, name: str) -> Any:
            return getattr(real_qe.EdgeShard, name)

        @staticmethod
        def load(path: str, config: Any = None) -> Any:
            loads.append(Path(path).name)
            return real_qe.EdgeShard.load(path, config)

    real_qe = qe
    engine = Engine()
    engine.EdgeShard = Shards()  # type: ignore[attr-defined]
    monkeypatch.setattr(qdrant_edge_index, "read_into_page_cache", read)
    monkeypatch.setattr(qdrant_edge_index, "qe", engine)
    idx = _written(tmp_path, after_points=5, points=10)
    try:
        idx.start_compaction()
        wait_for(lambda: idx.compaction_status()["outcome_done"] >= 1)
    finally:
        idx.close()
    target, total, loaded_before = reads[0]
    assert target == "shard.1" and target not in loaded_before  # read, then loaded
    assert target in loads
    size = sum(p.stat().st_size for p in (tmp_path / target).rglob("*") if p.is_file())
    assert total > 0 and (size == 0 or total >= size // 2)  # what the generation held


def test_reading_into_the_page_cache_reads_every_file_and_skips_what_vanished(
    tmp_path: Path,
) -> None:
    from ai_memory.adapters.edge_compaction import read_into_page_cache

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "one").write_bytes(b"x" * 3_000_000)  # more than one chunk
    (tmp_path / "a" / "b" / "two").write_bytes(b"y" * 10)
    (tmp_path / "empty").write_bytes(b"")
    assert read_into_page_cache(tmp_path) == 3_000_010
    assert read_into_page_cache(tmp_path / "missing") == 0
