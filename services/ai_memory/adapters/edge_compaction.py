"""Compaction of the embedded index off the serving path.

Qdrant Edge has no background optimizer: new points stay in an appendable segment that
every search scans by brute force until ``EdgeShard.optimize()`` builds the HNSW graph
and vacuums deleted points, and that call holds the interpreter's GIL for its whole run
(8–14 s at 100k points on the benchmark box, minutes at 1M) — inside a server it would
freeze every request. So the live server never calls it. Instead a compaction builds the
shard's next generation in a child process:

1. **snapshot** (the index's apply lock held, searches go on): flush the live shard and
   copy its directory to ``shard.<n+1>``; from here every ``apply`` is also journaled;
2. **optimize** (no lock): a child Python process (``main`` below) loads the copy,
   optimizes it, flushes and exits — on the other core, at a lower priority, with its own
   GIL; it dies with its parent (``PR_SET_PDEATHSIG``);
3. **catch up** (no lock): the parent reads the new generation's files into the page
   cache (``read_into_page_cache``: the engine's load holds the GIL while it reads), loads
   it and runs the journal on it,
   then once more under the apply lock for what arrived meanwhile. The journal holds the
   engine operations each ``apply`` ran on the live shard, in order — already planned
   against what the shard held and already converted to the engine's points — and the
   new generation holds what the live shard held when the journal began, so the same
   operations give it the same points (converting a point's payload for the binding is
   most of what writing one costs the interpreter: planning and converting them again
   doubled the index's cost of every write a compaction overlapped);
4. **swap** (exclusive for a pointer swap): searches move to the new shard; it is flushed,
   ``checkpoint.json`` names it (atomic replace), and only then the old generation's
   directory is deleted — with it the files that still held forgotten vectors.

A kill at any step leaves ``checkpoint.json`` naming a complete generation whose data
is at least as new as its checkpoints; ``open`` deletes every other generation.

Triggers (``CompactionPolicy``): ``after_points`` points written since the last
compaction, or a forget older than ``forget_delay`` seconds not yet vacuumed (forgotten
vectors leave the files within that delay plus one compaction). A compaction whose
journal outgrows ``max_journal`` mutations (a bulk import running meanwhile) is
abandoned and retried later: the journal holds the points, vectors included, in memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import qdrant_edge as qe

# Payload fields and vector names are shared with the index adapters.
from ai_memory.adapters import index_payload as ip

log = logging.getLogger(__name__)

FIRST_GENERATION = "shard"
_GENERATION = re.compile(r"shard(\.[0-9]+)?")
RETRY_AFTER_FAILURE = 60.0  # seconds; a failing compaction must not spin a core
# After an abandoned attempt: doubled for each one in a row (a bulk import that keeps
# outrunning them should not pay a shard copy every few seconds), reset by a success.
RETRY_AFTER_ABANDON = 15.0
RETRY_AFTER_ABANDON_MAX = 300.0
# ... but once nothing has been written for this long, the load is over: retry at once
# (a bulk import that ended would otherwise leave its points unindexed for minutes).
QUIET_BEFORE_RETRY = 5.0


@dataclass(frozen=True)
class Applied:
    """What one ``apply`` ran on the live shard: its engine operations in order, how many
    mutations they came from (the journal's size is counted in mutations) and whether
    they rewrote a stored point (the vacuum's bookkeeping)."""

    operations: Sequence[qe.UpdateOperation]
    mutations: int
    rewrote: bool


def is_generation(name: str) -> bool:
    return _GENERATION.fullmatch(name) is not None


def next_generation(name: str) -> str:
    number = 0 if name == FIRST_GENERATION else int(name.split(".", 1)[1])
    return f"{FIRST_GENERATION}.{number + 1}"


@dataclass(frozen=True)
class EdgeLayout:
    """Everything that decides how a shard is built: the live index and the compaction
    child must open a shard with the same configuration (the engine persists it)."""

    dim: int
    hnsw_m: int = 16
    hnsw_ef_construct: int = 100
    indexing_threshold_kb: int | None = None  # None: the engine default (10 MB of vectors)
    # Merges stop at this size, so a compaction rebuilds at most one segment of this size
    # however large the index grows (≈ 1 KB of dense vector per point at 256 dimensions).
    max_segment_kb: int | None = 200_000
    segments: int | None = None  # target segment count; None: the engine default
    # Threads one search may use across segments. The engine's default pool spends CPU
    # beyond the work itself (the calling thread waits holding the interpreter lock while
    # pool threads search: 1.5–1.9 ms of CPU for a hybrid query at 100k points against
    # 0.9–1.3 on the calling thread alone, and no slower), and a serving process has no
    # idle core to give it (``loadtest/RESULTS.md``, "One thread per engine search").
    # 0: the engine's own pool. Always passed: the engine keeps a value it persisted
    # with the shard when none is given, so leaving it out would not restore its default.
    search_threads: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(raw: str) -> EdgeLayout:
        return EdgeLayout(**json.loads(raw))


def edge_config(layout: EdgeLayout) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={ip.DENSE: qe.EdgeVectorParams(size=layout.dim, distance=qe.Distance.Cosine)},
        sparse_vectors={ip.SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        hnsw_config=qe.HnswIndexConfig(
            m=layout.hnsw_m, ef_construct=layout.hnsw_ef_construct, full_scan_threshold=10_000
        ),
        # Vacuum every segment that holds a deleted point whenever the optimizers run (the
        # engine's defaults wait for 20 % deleted and 1000 vectors): a forgotten memory's
        # vectors are rewritten out of the segment files then (docs/design/FORGETTING.md).
        optimizers=qe.EdgeOptimizersConfig(
            deleted_threshold=0.0,
            vacuum_min_vector_number=1,
            indexing_threshold=layout.indexing_threshold_kb,
            max_segment_size=layout.max_segment_kb,
            default_segment_number=layout.segments,
        ),
        wal_enabled=False,
        max_search_threads=layout.search_threads,
    )


@dataclass(frozen=True)
class CompactionPolicy:
    after_points: int = 10_000
    forget_delay: float = 30.0
    max_journal: int = 100_000
    poll_interval: float = 1.0  # how often the compactor looks at the triggers
    nice: int = 10  # the child yields the CPU to the server it works for


def die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the child
    # PR_SET_PDEATHSIG: the kernel kills the child when its parent dies, so a killed
    # server leaves no orphan writing into a directory its successor deletes. Set by the
    # child itself (``preexec_fn`` is unsafe in a threaded parent); a parent that died
    # before that shows as a changed parent pid.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    if os.getppid() != parent:
        raise SystemExit(3)


# The child imports this package from where the parent did (a checkout, a test's path),
# not from whatever ``python -m`` alone would find first: the parent's ``sys.path`` goes
# first on the child's.
_CHILD = (
    "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "from ai_memory.adapters.edge_compaction import main; raise SystemExit(main(sys.argv[2:]))"
)


def spawn_optimizer(shard_dir: Path, layout: EdgeLayout, nice: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            _CHILD,
            json.dumps([p for p in sys.path if p]),
            str(shard_dir),
            layout.to_json(),
            str(os.getpid()),
            str(nice),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def read_into_page_cache(directory: Path, chunk: int = 1 << 20) -> int:
    """Read every file under ``directory`` once, so that the kernel's page cache holds it;
    the bytes read.

    Loading a shard holds the interpreter lock for as long as the engine reads its files,
    and a shard a child process optimised and closed is not in the cache: the engine drops
    a closed shard's pages from it (``close`` took 394 MB of a 100k shard's files down to
    134 cached). Loaded from disk, the 100k generation held the lock for 0.8–1.0 s — every
    search waited (532 ms for the one under way at a swap, measured); read here first
    (0.3–0.4 s, file reads give the lock away), the load took 0.13–0.20 s
    (``loadtest/RESULTS.md``, "A compaction's load, read first"). A file that vanishes
    meanwhile is skipped: the load reports what is missing."""
    buffer = memoryview(bytearray(chunk))
    total = 0
    for path in sorted(directory.rglob("*")):
        try:
            with path.open("rb", buffering=0) as f:
                while read := f.readinto(buffer):
                    total += read
        except (IsADirectoryError, FileNotFoundError):
            continue
    return total


def optimize_in_place(shard_dir: Path, layout: EdgeLayout) -> bool:
    shard = qe.EdgeShard.load(str(shard_dir), edge_config(layout))
    try:
        changed: bool = shard.optimize()
        shard.flush()
        return changed
    finally:
        shard.close()


def main(args: list[str]) -> int:  # pragma: no cover - the child process
    shard_dir, layout, parent, nice = args
    die_with_parent(int(parent))
    os.nice(int(nice))  # the server it works for goes first
    optimize_in_place(Path(shard_dir), EdgeLayout.from_json(layout))
    return 0


class Compactor:
    """When to compact, the journal of what was applied meanwhile, the child process and
    the thread that drives it. ``record``/``begin``/``cancel`` run under the index's apply
    lock; everything else is the compaction thread's or thread-safe."""

    def __init__(
        self, policy: CompactionPolicy | None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.policy = policy
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._child: subprocess.Popen[bytes] | None = None
        self._journal: list[Applied] | None = None
        self._journaled = 0  # mutations in the journal
        self._epoch = 0
        self._target: str | None = None
        self._started = 0.0
        self._since = 0  # points written since the last compaction began
        self._forgotten = 0  # points forgotten since then (their vectors are still on disk)
        self._first_forget: float | None = None
        self._taken: tuple[int, int, float | None] = (0, 0, None)
        self._retry_at = 0.0
        self._abandoned_in_a_row = 0
        self._waiting_out_load = False  # the retry wait follows an abandoned attempt
        self._last_write = -float("inf")  # when the index last recorded a mutation
        self.outcomes = {"done": 0, "abandoned": 0, "failed": 0, "cancelled": 0}
        self.last_seconds = 0.0

    # --- under the index's apply lock ---------------------------------------------------
    def record(self, applied: Applied, written: int, forgotten: int) -> None:
        if self._journal is not None:
            self._journal.append(applied)
            self._journaled += applied.mutations
        if applied.mutations:
            self._last_write = self._clock()
        self._since += written
        if forgotten:
            self._forgotten += forgotten
            if self._first_forget is None:
                self._first_forget = self._clock()

    def optimized(self) -> None:
        """An in-place ``optimize()`` vacuumed and indexed everything."""
        self._since, self._forgotten, self._first_forget = 0, 0, None

    def begin(self, target: str) -> int:
        self._journal = []
        self._journaled = 0
        self._target = target
        self._started = self._clock()
        self._taken = (self._since, self._forgotten, self._first_forget)
        self._since, self._forgotten, self._first_forget = 0, 0, None
        return self._epoch

    def cancel(self) -> str | None:
        """The index is being reset: whatever is being built is obsolete. Returns the
        directory name the compaction thread still owns (it removes it itself)."""
        self._epoch += 1
        self._journal = None
        self._since, self._forgotten, self._first_forget = 0, 0, None
        self._taken = (0, 0, None)
        self._kill_child()
        return self._target

    # --- the compaction thread -------------------------------------------------------------
    def start(self, compact_once: Callable[[], None]) -> None:
        if self.policy is None or self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._run, args=(compact_once,), name="index-compaction", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._kill_child()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self, compact_once: Callable[[], None]) -> None:
        assert self.policy is not None
        while not self._stop.wait(self.policy.poll_interval):
            if not self.due():
                continue
            try:
                compact_once()
            except Exception:
                log.exception("index compaction failed; retrying in %.0f s", RETRY_AFTER_FAILURE)
                self.failed()

    def failed(self) -> None:
        self.outcomes["failed"] += 1
        self._retry_at = self._clock() + RETRY_AFTER_FAILURE
        self._waiting_out_load = False  # a failure waits its minute whatever the load

    def due(self) -> bool:
        """Whether a compaction should start now: one is ``pending`` and no retry wait is
        running — the wait after an abandoned attempt ends early once writes stopped."""
        now = self._clock()
        if now < self._retry_at and not (
            self._waiting_out_load and now - self._last_write >= QUIET_BEFORE_RETRY
        ):
            return False
        return self.pending()

    def pending(self) -> bool:
        """Whether a trigger is met (enough points written, a forget old enough), even
        while an abandoned or failed attempt's retry wait runs."""
        policy = self.policy
        if policy is None:
            return False
        if self._since >= policy.after_points:
            return True
        first = self._first_forget
        return first is not None and self._clock() - first >= policy.forget_delay

    def run_child(self, shard_dir: Path, layout: EdgeLayout) -> bool:
        """Optimise ``shard_dir`` in a child process: whether it finished and is wanted."""
        assert self.policy is not None
        child = spawn_optimizer(shard_dir, layout, self.policy.nice)
        with self._lock:
            self._child = child
        stderr = b""
        while True:
            try:
                _, stderr = child.communicate(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if self._journal is not None and self._journaled > self.policy.max_journal:
                    # A bulk load runs meanwhile: the journal (vectors in memory) would
                    # grow without bound. Give up now, compact when it is quieter.
                    self.abandon(f"{self._journaled} mutations arrived meanwhile")
                    self._kill_child()
                    child.communicate()
                    return False
        with self._lock:
            self._child = None
        if self._stop.is_set() or self._journal is None:
            self.outcomes["cancelled"] += 1
            return False
        if child.returncode != 0:
            tail = stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise RuntimeError(f"the compaction child exited with {child.returncode}: {tail}")
        return True

    def _kill_child(self) -> None:
        with self._lock:
            if self._child is not None and self._child.poll() is None:
                self._child.kill()

    def abandon(self, why: str) -> None:
        log.info("index compaction abandoned (%s); retried later", why)
        self.outcomes["abandoned"] += 1
        # The load that outran it is likely still on: leave it the CPU for a while.
        wait = min(RETRY_AFTER_ABANDON * 2**self._abandoned_in_a_row, RETRY_AFTER_ABANDON_MAX)
        self._abandoned_in_a_row += 1
        self._retry_at = self._clock() + wait
        self._waiting_out_load = True

    def mutations_between(self, start: int, stop: int) -> int:
        """Mutations in journal entries ``start:stop`` (entries are batches)."""
        return sum(applied.mutations for applied in self.journal_slice(start, stop))

    def journal_length(self) -> int:
        journal = self._journal
        return 0 if journal is None else len(journal)

    def journal_slice(self, start: int, stop: int) -> list[Applied]:
        journal = self._journal
        return [] if journal is None else journal[start:stop]

    def current(self, epoch: int) -> bool:
        return epoch == self._epoch and not self._stop.is_set()

    def finish(self, epoch: int) -> None:
        self._abandoned_in_a_row = 0
        self.outcomes["done"] += 1
        self.last_seconds = self._clock() - self._started
        self._taken = (0, 0, None)

    def end(self, epoch: int) -> None:
        """After every attempt: drop the journal; an attempt that did not swap puts its
        triggers back so the next one covers what it would have."""
        since, forgotten, first = self._taken
        if epoch == self._epoch:
            self._journal = None
            self._target = None
            self._since += since
            self._forgotten += forgotten
            if first is not None and (self._first_forget is None or first < self._first_forget):
                self._first_forget = first
        self._taken = (0, 0, None)

    def status(self) -> dict[str, float]:
        return {
            # Pending counts as running: a waiter (a benchmark, an operator) wants the
            # index as it will be — not the moment between the trigger and the next poll,
            # nor the retry wait after an attempt a bulk load outran, when searches still
            # read the points written since the last compaction unindexed.
            "running": float(self._target is not None or self.pending()),
            "points_since": float(self._since),
            "forgotten_pending": float(self._forgotten),
            "last_seconds": self.last_seconds,
            **{f"outcome_{k}": float(v) for k, v in self.outcomes.items()},
        }
