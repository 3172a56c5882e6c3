"""The embedded index in a process of its own (``AIMEM_INDEX_PROCESS``).

Qdrant Edge's 0.9 bindings hold the interpreter's GIL during every engine call: a
search's engine work (the query, the kept hits' turns, the conversation context's
scrolls — about half of a search at 100k points), every point's payload conversion on a
write and every flush (≈ 28 ms) run on the interpreter that also serves HTTP, decides
writes and appends them. Beside 100 writes/s a search then waits for that interpreter
more than it works (``loadtest/RESULTS.md``, "What a live search's milliseconds are").
A second interpreter on the other core is the only way to run the engine beside the
rest on CPython, so ``ai-memory serve`` runs the ``QdrantEdgeIndex`` in a child
process and talks to it over socket pairs (``ProcessIndex``, a ``VectorIndex`` like any
other: ``tests/contract/test_index_process.py`` runs the contract suite on it).

What crosses the boundary is what the port says: an ``apply`` (mutations and their
vectors, pickled), a ``search`` (the ``IndexQuery``; the ``IndexHit`` list back), a
checkpoint. The parent keeps the projection, the embedding and the tag digests
(``TagDigestIndex`` wraps this adapter, so the child never holds a key); the child holds
the shard, its compaction (whose own child is then a grandchild) and nothing else.

Calls. ``connections`` socket pairs are made at spawn, each used by one calling thread
at a time (a queue of idle ones) and served by one thread in the child, so a search does
not queue behind an apply in the parent — the engine and the adapter's locks order them
in the child as they did in process.

Crashes. The child dies with the thread that spawned it (``PR_SET_PDEATHSIG``), so it is
spawned by a supervisor thread that lives as long as this adapter, never by a request's
worker thread. It also exits when every connection reads end-of-file, and it takes an
exclusive ``flock`` on ``process.lock`` beside the shard before opening it, so a
successor waits for a predecessor still closing instead of opening the same files. If
the child dies (killed, out of memory), the call that finds it gone raises
``Unavailable`` (a search answers 503) and the supervisor starts a new one, which
reopens the shard at its last durable checkpoint — possibly behind what the projection
had applied to the lost child (flushes are periodic). The next ``apply`` therefore
raises ``Rewind`` with the reopened checkpoint and the projection reads the log again
from there: nothing the child lost stays lost (``tests/integration/test_index_process
.py`` kills it with SIGKILL under writes).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import logging
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from ai_memory.core.errors import Rewind, Unavailable
from ai_memory.core.index_rebuild import InPlaceRebuild
from ai_memory.core.ports import IndexHit, IndexQuery, IndexRebuild, SparseVector, Vector
from ai_memory.core.projection import IndexMutation

log = logging.getLogger(__name__)

#: Socket pairs to the child: the projection's applies, the searches of a server's worker
#: threads and ``/metrics``. More would only queue in the child (one GIL).
CONNECTIONS = 8
#: Longest wait of a new child for its predecessor's lock on the shard (a predecessor
#: killed with its parent is gone at once; a closing one flushes first).
LOCK_WAIT = 60.0
# Restarts back off while the child keeps dying (a shard that cannot open).
_RESTART_FIRST, _RESTART_MAX = 0.5, 30.0
LOCK_NAME = "process.lock"

# The methods of the port the child serves (anything else is refused).
_METHODS = frozenset(
    {
        "apply",
        "checkpoint",
        "search",
        "count",
        "flush",
        "optimize",
        "start_compaction",
        "compaction_status",
        "reset",
        "close",
    }
)


@dataclass(frozen=True)
class IndexSpec:
    """How the child opens its ``QdrantEdgeIndex`` (the constructor's arguments)."""

    root: str
    dim: int
    model_name: str
    optimize_after: int | None = None
    flush_interval: float = 5.0
    compaction: dict[str, Any] | None = None  # a ``CompactionPolicy``'s fields
    search_threads: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(raw: str) -> IndexSpec:
        return IndexSpec(**json.loads(raw))

    def open(self) -> Any:  # pragma: no cover - runs in the child
        from .edge_compaction import CompactionPolicy
        from .qdrant_edge_index import QdrantEdgeIndex

        policy = None if self.compaction is None else CompactionPolicy(**self.compaction)
        return QdrantEdgeIndex(
            Path(self.root),
            self.dim,
            self.model_name,
            optimize_after=self.optimize_after,
            flush_interval=self.flush_interval,
            compaction=policy,
            search_threads=self.search_threads,
        )


# --- errors across the boundary ------------------------------------------------------


def _error_of(e: BaseException) -> tuple[str, str, tuple[Any, ...], dict[str, Any], str]:
    return (type(e).__module__, type(e).__qualname__, e.args, dict(vars(e)), str(e))


def _raise(error: tuple[str, str, tuple[Any, ...], dict[str, Any], str]) -> None:
    """Raise the child's exception as the same class with the same attributes (the
    service maps ``InvalidInput``, ``Unavailable``, … to their answers)."""
    module, name, args, attrs, text = error
    cls: Any = None
    with contextlib.suppress(Exception):
        cls = importlib.import_module(module)
        for part in name.split("."):
            cls = getattr(cls, part)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        raise RuntimeError(f"index process: {module}.{name}: {text}")
    e = cls.__new__(cls)
    e.args = args
    e.__dict__.update(attrs)
    raise e


# --- vectors across the boundary ---------------------------------------------------------
# Pickling a 256-float ndarray costs ≈ 12 µs out and in (its reduce protocol); its bytes
# cost < 1 µs. A 500-point apply sends 500 of them.

Packed = dict[int, tuple[bytes, SparseVector]]


def _vector_bytes(v: Vector) -> bytes:
    return np.ascontiguousarray(v, dtype=np.float32).tobytes()


def _pack(vectors: dict[int, tuple[Vector, SparseVector]]) -> Packed:
    return {p: (_vector_bytes(dense), sparse) for p, (dense, sparse) in vectors.items()}


def _unpack(packed: Packed) -> dict[int, tuple[Vector, SparseVector]]:
    return {
        p: (np.frombuffer(raw, dtype=np.float32), sparse) for p, (raw, sparse) in packed.items()
    }


def _unpack_call(method: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The port's arguments again, from what ``ProcessIndex`` sent (vectors as bytes)."""
    if method == "apply":
        mutations, packed = args
        return mutations, _unpack(packed)
    if method == "search":
        query, dense = args
        if dense is not None:
            query = replace(query, dense=np.frombuffer(dense, dtype=np.float32))
        return (query,)
    return args


# --- the parent's side ------------------------------------------------------------------


class _Child:
    """One spawned child and its connections (a restart makes a new one)."""

    def __init__(self, proc: subprocess.Popen[bytes], conns: list[Connection]) -> None:
        self.proc = proc
        self.conns = conns
        self.idle: queue.SimpleQueue[Connection] = queue.SimpleQueue()
        for conn in conns:
            self.idle.put(conn)
        self.lost = False

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.close()


class ProcessIndex:
    """``VectorIndex`` served by a child process (see the module docstring)."""

    def __init__(self, spec: IndexSpec, *, connections: int = CONNECTIONS) -> None:
        self._spec = spec
        self._connections = connections
        self._lock = threading.Lock()
        self._child: _Child | None = None
        self._closed = False
        self._restarts = 0
        self._delay = _RESTART_FIRST
        # What the projection applied, per partition: a restarted child that reopens
        # behind it makes the next apply raise ``Rewind``.
        self._applied: dict[int, int] = {}
        self._unchecked: set[int] = set()  # partitions to ask after a restart
        self._wanted = threading.Event()
        self._spawned = threading.Event()
        self._spawn_error: BaseException | None = None
        self._supervisor = threading.Thread(
            target=self._supervise, name="index-process", daemon=True
        )
        self._wanted.set()
        self._supervisor.start()
        self._spawned.wait()
        if self._spawn_error is not None:
            raise self._spawn_error

    # --- the supervisor ---------------------------------------------------------------
    def _supervise(self) -> None:
        # The only thread that spawns: PR_SET_PDEATHSIG follows the spawning *thread*.
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._closed:
                return
            try:
                child = self._spawn()
            except BaseException as e:  # reported to the constructor, or logged
                log.exception("could not start the index process; the index stays down")
                self._spawn_error = e
                self._spawned.set()
                return
            with self._lock:
                old, self._child = self._child, child
            if old is not None:
                old.close()
            self._spawned.set()

    def _spawn(self) -> _Child:
        pairs = [socket.socketpair() for _ in range(self._connections)]
        ours = [Connection(a.detach()) for a, _ in pairs]
        theirs = [b.detach() for _, b in pairs]
        try:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _CHILD,
                    json.dumps([p for p in sys.path if p]),
                    self._spec.to_json(),
                    str(os.getpid()),
                    json.dumps(theirs),
                ],
                pass_fds=theirs,
                stdin=subprocess.DEVNULL,
            )
        except BaseException:
            for conn in ours:
                conn.close()
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        return _Child(proc, ours)

    def _lost(self, child: _Child) -> None:
        """``child`` stopped answering: kill what is left of it and start another (at
        most once per death; backing off while deaths repeat)."""
        with self._lock:
            if child.lost or self._closed:
                return
            child.lost = True
            self._restarts += 1
            self._unchecked = set(self._applied)
            delay, self._delay = self._delay, min(self._delay * 2, _RESTART_MAX)
        with contextlib.suppress(OSError):
            child.proc.kill()
        child.proc.wait()
        log.error(
            "the index process exited (code %s); starting another in %.1f s",
            child.proc.returncode,
            delay,
        )
        timer = threading.Timer(delay, self._wanted.set)
        timer.daemon = True
        timer.start()

    @property
    def restarts(self) -> int:
        """Children started again after one died (a metric, and for tests)."""
        return self._restarts

    @property
    def pid(self) -> int | None:
        child = self._child
        return None if child is None else child.proc.pid

    # --- calls ------------------------------------------------------------------------
    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        child = self._child
        if child is None or self._closed:
            raise Unavailable("the index is closed")
        if child.lost:
            raise Unavailable("the index process is restarting", retry_after=1.0)
        conn = child.idle.get()
        try:
            conn.send((method, args, kwargs))
            status, payload = conn.recv()
        except (EOFError, OSError) as e:
            child.idle.put(conn)  # a waiter takes it and fails at once, as this one did
            self._lost(child)
            raise Unavailable("the index process exited; it is restarting") from e
        child.idle.put(conn)
        if status == "ok":
            if self._delay != _RESTART_FIRST:
                self._delay = _RESTART_FIRST  # answering again: the next death is news
            return payload
        _raise(payload)

    def apply(
        self,
        mutations: Sequence[IndexMutation],
        vectors: dict[int, tuple[Vector, SparseVector]],
        *,
        checkpoint: int,
        partition: int = 0,
    ) -> None:
        if partition in self._unchecked:
            self._rewound(partition)
        self._call("apply", list(mutations), vectors, checkpoint=checkpoint, partition=partition)
        with self._lock:
            self._applied[partition] = max(self._applied.get(partition, 0), checkpoint)

    def _rewound(self, partition: int) -> None:
        """After a restart: raise ``Rewind`` if the new child reopened behind what the
        lost one was given (its last flushes were lost with it)."""
        stored: int = self._call("checkpoint", partition)
        with self._lock:
            expected = self._applied.get(partition, 0)
            self._applied[partition] = stored
            self._unchecked.discard(partition)
        if stored < expected:
            log.warning(
                "index partition %d reopened at %d, behind %d: re-reading the log",
                partition,
                stored,
                expected,
            )
            raise Rewind(partition, stored, expected)

    def checkpoint(self, partition: int = 0) -> int:
        stored: int = self._call("checkpoint", partition)
        return stored

    def search(self, query: IndexQuery) -> list[IndexHit]:
        dense = None if query.dense is None else _vector_bytes(query.dense)
        hits: list[IndexHit] = self._call("search", replace(query, dense=None), dense)
        return hits

    def count(self, tenant: str) -> int:
        n: int = self._call("count", tenant)
        return n

    def flush(self) -> None:
        self._call("flush")

    def optimize(self) -> bool:
        changed: bool = self._call("optimize")
        return changed

    def start_compaction(self) -> None:
        self._call("start_compaction")

    def compaction_status(self) -> dict[str, float]:
        """The child's, and ``process_restarts`` (also while it restarts)."""
        try:
            status: dict[str, float] = self._call("compaction_status")
        except Unavailable:
            status = {}
        return {**status, "process_restarts": float(self._restarts)}

    def reset(self) -> None:
        self._call("reset")
        with self._lock:
            self._applied.clear()

    def rebuild(self) -> IndexRebuild:
        """In place, as the engine in process: reset now, compacted on ``switch``."""
        return InPlaceRebuild.begin(self)

    def close(self) -> None:
        if self._closed:
            return
        child = self._child
        try:
            if child is not None and not child.lost:
                self._call("close")  # flushes: what was applied is durable
        except Unavailable:
            pass
        finally:
            self._closed = True
            self._wanted.set()  # the supervisor sees ``_closed`` and returns
            if child is not None:
                child.close()
                try:
                    child.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.proc.kill()
                    child.proc.wait()
            self._supervisor.join(timeout=5)


# --- the child's side -------------------------------------------------------------------

# The child imports this package from where the parent did (a checkout, a test's path):
# the parent's ``sys.path`` goes first (as ``edge_compaction``'s child).
_CHILD = (
    "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "from ai_memory.adapters.index_process import main; raise SystemExit(main(sys.argv[2:]))"
)


def _lock_shard(root: Path) -> int:  # pragma: no cover - runs in the child
    """An exclusive ``flock`` beside the shard, waiting out a predecessor that closes."""
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise SystemExit(f"index {root} is still open in another process") from None
            time.sleep(0.05)


def _serve(
    conn: Connection,
    call: Callable[[str, tuple[Any, ...], dict[str, Any]], Any],
    stop: threading.Event,
) -> None:  # pragma: no cover - runs in the child
    while not stop.is_set():
        try:
            method, args, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, Any] = ("ok", call(method, args, kwargs))
        except BaseException as e:  # every error goes back to the caller
            answer = ("error", _error_of(e))
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return
        if method == "close":
            stop.set()
            return


def main(args: list[str]) -> int:  # pragma: no cover - the child process
    from .edge_compaction import die_with_parent

    syspath_spec, parent, fds = args
    die_with_parent(int(parent))
    spec = IndexSpec.from_json(syspath_spec)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s index-process %(message)s"
    )
    conns = [Connection(fd) for fd in json.loads(fds)]
    lock = _lock_shard(Path(spec.root))
    index = spec.open()
    stop = threading.Event()
    closed = threading.Event()

    def call(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if method not in _METHODS:
            raise ValueError(f"not an index method: {method!r}")
        if method == "close":
            index.close()
            closed.set()
            return None
        return getattr(index, method)(*_unpack_call(method, args), **kwargs)

    threads = [threading.Thread(target=_serve, args=(c, call, stop), daemon=True) for c in conns]
    for t in threads:
        t.start()
    while not stop.is_set() and any(t.is_alive() for t in threads):
        stop.wait(0.5)
    if not closed.is_set():
        index.close()  # every connection gone: the parent died without closing us
    os.close(lock)
    return 0
