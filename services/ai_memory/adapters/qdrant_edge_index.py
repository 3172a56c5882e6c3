"""The embedded ``VectorIndex``: Qdrant Edge running in-process.

One ``EdgeShard`` holds one point per live memory with a named dense vector ``dense``
(cosine, HNSW) and a named sparse vector ``keywords`` (BM25 weights from
``core.keywords``; IDF applied by the engine over the searching tenant's points only,
see ``index_payload.idf_corpus``). Payload and order-safety rules are shared with the
server adapter (``index_payload``).

Layout of ``path``::

    shard/, shard.N/   the EdgeShard generation named by checkpoint.json (segments; WAL
                       disabled, see below); a compaction builds the next one beside it
    checkpoint.json    {"checkpoints": {partition: position}, "checkpoint", "model_name",
                       "dim", "shard"}: written after every flush; "checkpoint" repeats
                       partition 0 so files written before the log was partitioned still
                       open; "shard" names the live generation (absent: ``shard``)

Durability. The checkpoint on disk never runs ahead of the data it describes: the shard
is ``flush()``ed first, then ``checkpoint.json`` is replaced atomically (tmp + fsync +
rename + directory fsync). After a crash the projector re-applies from the last durable
checkpoint, which is harmless because every mutation is position-checked. The event log
is already our write-ahead log, so the engine's own WAL would only duplicate writes and
is disabled. A flush costs 0.1–0.3 s (every payload index fsyncs its files), so
``apply`` flushes at most every ``flush_interval`` seconds (``0`` = every batch), and an
index being filled from position 0 (reset, or opened empty) at most every minute until
its first explicit ``flush`` (the projection's ``idle``, once caught up);
``checkpoint()`` reports what is applied and visible, ``flush()`` and ``close()`` make it
durable. A crash loses at most ``flush_interval`` seconds of index work (a minute while
filling), replayed from the log.

Model identity. ``checkpoint.json`` records the embedding model and dimension. Opening
with another model or dimension, or finding every checkpoint at 0 or no checkpoint at
all, starts from an empty shard at checkpoint 0: the index is a projection and the projector
rebuilds it from the log. Vectors of two models are never mixed.

Deletes leave tombstone points (payload only, no vectors; see ``index_payload``). They
live in the same shard as the points they guard, so they are flushed and checkpointed
together; a side table would need its own crash-consistency story.

Concurrency. EdgeShard is safe to call from several threads (the engine guards its
segments itself; a stress test of concurrent query/update/retrieve/count showed no
errors), but the 0.9 bindings hold the GIL during every call, so engine calls never run
in parallel with each other or with other Python threads. The adapter adds a
readers-writer lock for its own state: ``search``/``count``/``apply`` share it (the
engine orders them), ``reset``/``close`` take it exclusively because they replace or
destroy the shard, and so does the first batch of a tenant new to the shard (a shard
that holds one tenant leaves its condition out of searches' filters: ``_alone``); a
separate mutex serialises ``apply`` calls (read, plan, write, checkpoint must not
interleave). A search runs on its caller's thread (``search_threads``, 1 by default):
the engine's own search pool cost more CPU for no shorter searches on a busy server.

Hybrid search fuses in Python: the dense and sparse retrievals run as one
``query_batch`` call and ``rrf_fuse`` merges them. The engine's ``Fusion.Rrf`` works too,
but it returns only the fused score and per-retriever ranks are needed to explain hits.

HNSW. Edge runs no background optimizer: new points stay in a plain appendable segment
(brute force) until ``optimize()`` builds the HNSW graph, and that call holds the GIL for
its whole duration (100k points in one scope: hybrid search p50 30 ms before, 6 ms after;
the optimisation took 8–76 s). A serving process therefore compacts off the serving path
(``start_compaction``, ``edge_compaction``): the next generation is optimised in a child
process and swapped in. ``optimize()`` (blocking) is for offline tools; ``optimize_after``
runs it from ``apply`` once that many points were written (tests, small indexes).
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from ai_memory.core.errors import InvalidInput, Unavailable
from ai_memory.core.fusion import fusion_for
from ai_memory.core.index_rebuild import InPlaceRebuild
from ai_memory.core.ports import IndexHit, IndexQuery, IndexRebuild, SparseVector, Vector
from ai_memory.core.projection import IndexMutation

from . import index_payload as ip
from .edge_checkpoint_file import CheckpointFile, read_checkpoint_file, write_checkpoint_file
from .edge_compaction import (
    FIRST_GENERATION,
    Applied,
    CompactionPolicy,
    Compactor,
    EdgeLayout,
    edge_config,
    is_generation,
    next_generation,
    read_into_page_cache,
)
from .edge_engine import ReadWriteLock, engine_call
from .edge_reads import ContextReads, ensure_field_indexes
from .edge_requests import engine_filter, query_vector, sparse_vector, tenants_of
from .edge_timelines import DEFAULT_LIMIT
from .edge_turn_payloads import DEFAULT_CAPACITY, point_key

log = logging.getLogger(__name__)

# Points per page of conversation context's warm-up (``_warm_turns``).
_WARM_PAGE = 256
_WARM_PAUSE = 0.002  # s between pages: ≈ 0.8 s more at 100,000 points

_SWAP_PAUSE = 0.05  # s between a swap's flush and the old generation's close (both hold the GIL)
# A compaction's last stretch of catch-up runs under the apply lock (the projection waits
# for it: ≈ 0.5 s at this many mutations); everything before that runs beside the live
# projection, in passes over what arrived during the previous one. A load that keeps
# outrunning the passes abandons the compaction (retried later) rather than stall.
_CATCH_UP_UNDER_LOCK = 2_000
_CATCH_UP_PASSES = 8

# How often an index filled from position 0 (after a reset, or opened empty) flushes
# until its projection first catches up (``flush``): a crash before then rebuilds from the
# log whatever was flushed, so flushes only buy a shorter redo, and each one stalls the
# fill 0.2–0.5 s at 100k points (``loadtest/RESULTS.md``, 2026-12-05).
_FILL_FLUSH_INTERVAL = 60.0


class QdrantEdgeIndex:
    """``VectorIndex`` on an in-process Qdrant Edge shard (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        dim: int,
        model_name: str,
        *,
        hnsw_m: int = 16,
        hnsw_ef_construct: int = 100,
        search_ef: int | None = None,
        optimize_after: int | None = 20_000,
        flush_interval: float = 1.0,
        indexing_threshold_kb: int | None = None,
        compaction: CompactionPolicy | None = None,
        search_threads: int = 1,
        turn_cache: int = DEFAULT_CAPACITY,
        timeline_limit: int = DEFAULT_LIMIT,
    ) -> None:
        if dim <= 0:
            raise InvalidInput("dim", "positive", "the vector dimension must be > 0")
        self._root = Path(path)
        self._generation = FIRST_GENERATION
        self._checkpoint_file = self._root / "checkpoint.json"
        self._dim = dim
        self._model_name = model_name
        self._fusion = fusion_for(model_name)  # how hybrid search weighs this model's vectors
        # Vector KB after which the optimizers turn a segment into an indexed, immutable
        # one; ``None`` keeps the engine default (tests lower it to get such segments).
        self._layout = EdgeLayout(
            dim,
            hnsw_m,
            hnsw_ef_construct,
            indexing_threshold_kb=indexing_threshold_kb,
            search_threads=search_threads,
        )
        self._params = None if search_ef is None else qe.SearchParams(hnsw_ef=search_ef)
        self._optimize_after = optimize_after
        self._written_since_optimize = 0
        self._flush_interval = flush_interval
        self._filling = False  # filled from 0 and not caught up yet: see _FILL_FLUSH_INTERVAL
        self._last_flush = time.monotonic()
        # Whether the live shard ran an operation since its last flush. A flush that has
        # nothing to write still syncs every segment — ≈ 5 ms holding the interpreter at
        # 100k points — and an idle projection asks for one after each quiet spell (the
        # recalls searches append arrive about once a second).
        self._unflushed = False
        # partition -> position; ``_durable`` is what is on disk, ``_checkpoints`` may be ahead
        self._checkpoints: dict[int, int] = {}
        self._durable: dict[int, int] = {}
        self._rw = ReadWriteLock()
        self._apply_lock = threading.Lock()
        self._shard: qe.EdgeShard | None = None
        self._compaction = Compactor(compaction)
        # The keyword IDF shortcut (``_idf_params``): every tenant with a point in the live
        # shard (never shrinks), and whether no point was deleted or rewritten since the
        # shard was last vacuumed whole — kept in the checkpoint file too, cleared there
        # before the first rewrite after a vacuum, so a restart keeps the shortcut.
        self._tenants: set[str] = set()
        self._vacuumed = False
        self._durable_vacuumed = False
        # Conversation context's reads kept beside the shard (``edge_reads.ContextReads``:
        # window hints, turn fields, timelines), warmed from a loaded shard in the
        # background; none of it ever changes an answer.
        self._context = ContextReads(turn_cache, timeline_limit)
        with engine_call("open"):
            self._open()
        if self._context.timelines.warming:
            threading.Thread(target=self._warm_turns, name="aimem-turn-warm", daemon=True).start()

    @property
    def _shard_dir(self) -> Path:
        return self._root / self._generation

    # --- lifecycle ------------------------------------------------------------------
    def _config(self) -> qe.EdgeConfig:
        return edge_config(self._layout)

    def _write_checkpoints(self, checkpoints: dict[int, int]) -> None:
        self._write_checkpoint_file(checkpoints, self._vacuumed)
        self._checkpoints = dict(checkpoints)
        self._durable = dict(checkpoints)

    def _write_checkpoint_file(self, checkpoints: dict[int, int], vacuumed: bool) -> None:
        file = CheckpointFile(checkpoints, self._generation, vacuumed)
        write_checkpoint_file(self._checkpoint_file, self._model_name, self._dim, file)
        self._durable_vacuumed = vacuumed

    def _unvacuum(self) -> None:
        """Before a point of the live shard is deleted or rewritten: the engine's keyword
        statistics will count its old copy until the next vacuum. Said on disk first (the
        engine may persist the rewrite before the next checkpoint), once per vacuum."""
        self._vacuumed = False
        if self._durable_vacuumed:
            self._write_checkpoint_file(self._durable, False)

    def _persist(self, shard: qe.EdgeShard) -> None:
        """Flush the engine, then (and only then) record the checkpoints on disk."""
        if self._unflushed:
            shard.flush()
            self._unflushed = False
        self._last_flush = time.monotonic()
        if self._checkpoints != self._durable or self._vacuumed != self._durable_vacuumed:
            self._write_checkpoints(self._checkpoints)

    def _open(self) -> None:
        self._root.mkdir(parents=True, exist_ok=True)
        stored = read_checkpoint_file(self._checkpoint_file, self._model_name, self._dim)
        checkpoints, generation, vacuumed = stored.checkpoints, stored.generation, stored.vacuumed
        if checkpoints and (self._root / generation).exists():
            self._generation = generation
            self._remove_generations(keep=generation)  # what a killed compaction left
            # With the configuration (the engine checks it against the shard's and persists
            # it): a shard made before the vacuum settings gets them too.
            self._shard = qe.EdgeShard.load(str(self._shard_dir), self._config())
            ensure_field_indexes(self._shard)
            self._checkpoints = checkpoints
            self._durable = dict(checkpoints)
            self._tenants = tenants_of(self._shard)
            self._vacuumed = self._durable_vacuumed = vacuumed
            self._context.timelines.begin_warm()
            return
        self._generation = FIRST_GENERATION
        self._write_checkpoints({})  # from here on a crash means "rebuild"
        self._remove_generations(keep=None)
        self._create_shard()

    def _remove_generations(self, keep: str | None, *, spare: str | None = None) -> None:
        for entry in self._root.iterdir():
            if is_generation(entry.name) and entry.name not in (keep, spare):
                shutil.rmtree(entry, ignore_errors=True)

    def _create_shard(self) -> None:
        shard = qe.EdgeShard.create(str(self._shard_dir), self._config())
        ensure_field_indexes(shard)
        shard.flush()
        self._shard = shard
        self._context.clear()  # of the points thrown away
        self._written_since_optimize = 0
        self._tenants = set()
        self._vacuumed = True  # nothing in it yet
        self._filling = True

    def _warm_turns(self) -> None:
        """Read every point of a loaded shard once, a page at a time under the read lock
        (an apply or a search waits at most one page: ≈ 4 ms), into the conversations'
        timelines and the turn-field cache; a closed index ends it."""
        offset: Any = None
        try:
            while True:
                with self._rw.shared(), engine_call("warm"):
                    offset = self._context.warm(self._live(), offset, _WARM_PAGE)
                if offset is None:
                    return
                # Off the interpreter between pages: a lock released and taken again at
                # once by a running thread starves the threads waiting for it.
                time.sleep(_WARM_PAUSE)
        except Unavailable:
            return

    def _live(self) -> qe.EdgeShard:
        if self._shard is None:
            raise Unavailable("the vector index is closed")
        return self._shard

    def reset(self) -> None:
        with self._apply_lock, self._rw.exclusive(), engine_call("reset"):
            # A compaction under way built from what is being thrown away: it is discarded
            # (its thread removes its own directory once it notices).
            spare = self._compaction.cancel()
            self._generation = FIRST_GENERATION
            self._write_checkpoints({})
            if self._shard is not None:
                self._shard.close()
                self._shard = None
            self._remove_generations(keep=None, spare=spare)
            self._create_shard()

    def rebuild(self) -> IndexRebuild:
        """In place (one process owns this index): reset now, compacted on ``switch``."""
        return InPlaceRebuild.begin(self)

    def close(self) -> None:
        self._compaction.stop()  # kills a running child and waits for the thread
        with self._apply_lock, self._rw.exclusive():
            if self._shard is None:
                return
            shard, self._shard = self._shard, None
            with engine_call("close"):
                self._persist(shard)
                shard.close()

    def checkpoint(self, partition: int = 0) -> int:
        return self._checkpoints.get(partition, 0)

    # --- writes ---------------------------------------------------------------------
    def apply(
        self,
        mutations: Sequence[IndexMutation],
        vectors: dict[int, tuple[Vector, SparseVector]],
        *,
        checkpoint: int,
        partition: int = 0,
    ) -> None:
        with self._apply_lock:
            # A batch that brings the shard a tenant it does not hold yet is applied with
            # the lock held exclusively: a search decides under the shared lock whether to
            # leave the tenant condition out (``_alone``), so no search may be between that
            # decision and its engine calls when a second tenant's points land. A tenant's
            # first batch only: the others share the lock with searches.
            newcomer = any(m.tenant not in self._tenants for m in mutations)
            lock = self._rw.exclusive() if newcomer else self._rw.shared()
            with lock, engine_call("apply"):
                shard = self._live()
                written, forgotten, applied = self._write(shard, mutations, vectors, self._unvacuum)
                self._compaction.record(applied, written, forgotten)
                if checkpoint > self._checkpoints.get(partition, 0):
                    self._checkpoints[partition] = checkpoint
                self._written_since_optimize += written
                if (
                    self._optimize_after is not None
                    and self._written_since_optimize >= self._optimize_after
                ):
                    self._optimize(shard)
                interval = self._flush_interval
                if self._filling and interval > 0:  # 0 (every batch) is kept as asked
                    interval = max(interval, _FILL_FLUSH_INTERVAL)
                if time.monotonic() - self._last_flush >= interval:
                    self._persist(shard)

    def _write(
        self,
        shard: qe.EdgeShard,
        mutations: Sequence[IndexMutation],
        vectors: dict[int, tuple[Vector, SparseVector]],
        before_rewrite: Callable[[], None] | None = None,
    ) -> tuple[int, int, Applied]:
        """Apply ``mutations`` to ``shard``, position-checked against what it holds (so a
        replay of the same mutations changes nothing): (points written, points forgotten,
        the engine operations run — with whether a stored point was deleted, replaced or
        changed, leaving an old copy the engine's statistics count until a vacuum)."""
        ids = ip.point_ids_of(mutations)
        stored: dict[str, ip.StoredMark] = {}
        if ids:
            selector = qe.PayloadSelector.Include([ip.F_POSITION, ip.F_DELETED])
            for rec in shard.retrieve(list(ids), selector, False):
                mark = ip.mark_from_payload(rec.payload)
                if mark is not None:
                    stored[str(rec.id)] = mark
        plan = ip.plan_batch(mutations, vectors, stored, dim=self._dim)
        # Before the points land: a search that sees a new tenant's point sees its tenant.
        self._tenants.update(w.payload[ip.F_TENANT] for w in plan.writes)
        rewrote = bool(plan.state_writes) or any(w.point_id in stored for w in plan.writes)
        if rewrote and before_rewrite is not None:
            before_rewrite()
        # A forget replaces a live point by a payload-only tombstone. Replaced in place,
        # its vectors would stay in the segment files as deleted vectors, which the
        # vacuum does not count; deleted first, the point is a deleted point, and the
        # next optimisation rewrites its segment without it.
        forgotten: list[qe.PointId] = [
            w.point_id
            for w in plan.writes
            if w.dense is None and (mark := stored.get(w.point_id)) is not None and mark.live
        ]
        operations: list[qe.UpdateOperation] = []
        if forgotten:
            operations.append(qe.UpdateOperation.delete_points(forgotten))
        if plan.writes:
            operations.append(
                qe.UpdateOperation.upsert_points([self._point(w) for w in plan.writes])
            )
        for sw in plan.state_writes:
            operations.append(
                qe.UpdateOperation.set_payload(
                    [sw.point_id], {ip.F_STATE: sw.state.value, ip.F_POSITION: sw.position}
                )
            )
        for operation in operations:
            shard.update(operation)
        self._context.wrote(plan.writes, plan.state_writes)  # before the checkpoint moves
        if operations:  # always the live shard (a compaction's catch-up is ``_replay``)
            self._unflushed = True
        return len(plan.writes), len(forgotten), Applied(operations, len(mutations), rewrote)

    def flush(self) -> None:
        """Make everything applied so far durable and advance the on-disk checkpoint."""
        with self._apply_lock, self._rw.shared(), engine_call("flush"):
            self._persist(self._live())
            # The projection's ``idle``: it has caught up, periodic flushes resume.
            self._filling = False

    @staticmethod
    def _point(w: ip.PointWrite) -> qe.Point:
        vector: dict[str, Any] = {}
        if w.dense is not None:
            vector[ip.DENSE] = w.dense.astype("float32", copy=False).tolist()
            if w.sparse is not None and w.sparse.indices:
                vector[ip.SPARSE] = sparse_vector(w.sparse)
        return qe.Point(w.point_id, vector, w.payload)

    def optimize(self) -> bool:
        """Build HNSW graphs / merge segments now. Blocks (and holds the GIL) until done."""
        with self._apply_lock, self._rw.shared(), engine_call("optimize"):
            return self._optimize(self._live())

    def _optimize(self, shard: qe.EdgeShard) -> bool:
        changed = shard.optimize()
        self._unflushed = True
        self._vacuumed = True  # under the apply lock: nothing was written meanwhile
        self._written_since_optimize = 0
        self._compaction.optimized()
        return changed

    # --- compaction off the serving path (adapters/edge_compaction.py) ---------------
    def start_compaction(self) -> None:
        """Compact in a background thread and a child process (serving processes)."""
        self._compaction.start(self._compact_once)

    def compaction_status(self) -> dict[str, float]:
        warming = self._context.timelines.warming
        return {**self._compaction.status(), "context_warming": float(warming)}

    def _compact_once(self) -> None:
        state = self._compaction
        with self._apply_lock, engine_call("compaction snapshot"):
            shard = self._live()
            self._persist(shard)
            target = next_generation(self._generation)
            shutil.rmtree(self._root / target, ignore_errors=True)
            shutil.copytree(self._shard_dir, self._root / target)
            epoch = state.begin(target)
        new: qe.EdgeShard | None = None
        try:
            if not state.run_child(self._root / target, self._layout):
                return
            read_into_page_cache(self._root / target)  # off the interpreter lock
            with engine_call("compaction load"):
                new = qe.EdgeShard.load(str(self._root / target), self._config())
            done, rewrote = 0, False
            for _ in range(_CATCH_UP_PASSES):
                pending = state.journal_length()
                if state.mutations_between(done, pending) <= _CATCH_UP_UNDER_LOCK:
                    break
                rewrote |= self._replay(new, done, pending)
                done = pending
            else:
                state.abandon(f"the catch-up did not converge in {_CATCH_UP_PASSES} passes")
                return
            with self._apply_lock:
                if not state.current(epoch):
                    return
                rewrote |= self._replay(new, done, state.journal_length())
                with self._rw.exclusive():
                    old, self._shard = self._shard, new
                    old_generation, self._generation = self._generation, target
                    # The child vacuumed every segment with a deleted point; only what
                    # the catch-up rewrote is counted twice again.
                    self._vacuumed = not rewrote
                new = None
                with engine_call("compaction swap"):
                    live = self._live()
                    live.flush()
                    self._last_flush = time.monotonic()
                    # Names the new generation: from here a crash reopens it.
                    self._write_checkpoints(self._checkpoints)
            try:  # holds the GIL (0.24 s at 100k): out of the lock, waiting searches first
                if old is not None:
                    time.sleep(_SWAP_PAUSE)
                    with engine_call("compaction close"):
                        old.close()
            finally:
                with self._apply_lock:  # a reset meanwhile removed it and may reuse its name
                    if self._generation == target:
                        shutil.rmtree(self._root / old_generation, ignore_errors=True)
                        state.finish(epoch)  # done: the old generation's files are gone
        finally:
            if new is not None:
                new.close()
            if self._generation != target:
                shutil.rmtree(self._root / target, ignore_errors=True)
            state.end(epoch)

    def _replay(self, shard: qe.EdgeShard, start: int, stop: int) -> bool:
        """Run journal entries ``start:stop`` on ``shard`` — the operations the live shard
        ran, on the same content (``edge_compaction``, step 3): whether any rewrote."""
        rewrote = False
        with engine_call("compaction catch-up"):
            for applied in self._compaction.journal_slice(start, stop):
                for operation in applied.operations:
                    shard.update(operation)
                rewrote |= applied.rewrote
        return rewrote

    # --- reads ----------------------------------------------------------------------
    def _alone(self, tenant: str) -> bool:
        """Whether every point of the live shard is ``tenant``'s (``_tenants`` never misses
        a tenant whose point a search can see: it grows before the points land, under the
        exclusive lock for a new tenant), so that filters can leave its condition out.
        Called under the shared lock, which the engine calls that use the answer must
        also run under. Isolation does not rest on it alone: the record store reads a
        search's hits by tenant."""
        return self._tenants <= {tenant}

    def count(self, tenant: str) -> int:
        with self._rw.shared(), engine_call("count"):
            flt = engine_filter(ip.count_terms(tenant), alone=self._alone(tenant))
            return self._live().count(qe.CountRequest(exact=True, filter=flt))

    def _idf_params(self, tenant: str) -> qe.SearchParams | None:
        """Keyword IDF over the tenant's own points (``index_payload.idf_corpus``).

        The engine counts a term's documents over the corpus filter per query term (1.5 ms
        of a search at 100k points). When no other tenant has a point here and no point
        was deleted or rewritten since the last vacuum, that corpus is the whole shard and
        the engine's own statistics give the same IDF without filtering. Its statistics
        still count the old copies a delete or rewrite leaves until a vacuum, hence the
        second condition (``test_a_tenant_alone_in_the_shard_gets_the_same_keyword_scores``)."""
        if self._vacuumed and self._tenants <= {tenant}:
            return None
        return qe.SearchParams(idf=qe.IdfParams(corpus=engine_filter(ip.idf_corpus(tenant))))

    def search(self, query: IndexQuery) -> list[IndexHit]:
        plan = ip.plan_search(query, self._dim, self._fusion)
        if plan is None:
            return []
        vectors = [query_vector(r) for r in plan.retrievers]
        with self._rw.shared(), engine_call("search"):
            shard = self._live()
            alone = self._alone(query.tenant)
            flt = engine_filter(plan.terms, alone=alone)
            idf = self._idf_params(query.tenant)
            # Points only, no payload: memory ids are looked up for the kept hits only.
            requests = [
                qe.QueryRequest(
                    limit=plan.limit,
                    query=qe.Query.Nearest(vector, using=r.using),
                    filter=flt if r.terms is None else engine_filter(r.terms, alone=alone),
                    params=self._params if r.using == ip.DENSE else idf,
                    with_payload=False,
                )
                for r, vector in zip(plan.retrievers, vectors, strict=True)
            ]
            results = (
                shard.query_batch(qe.QueryBatchRequest(requests))
                if len(requests) > 1
                else [shard.query(requests[0])]
            )
            ranked = [[(point_key(p.id), float(p.score)) for p in found] for found in results]
            # Named (and given context) under the same lock: the shard cannot be swapped
            # in between.
            return ip.hits_of(
                plan,
                ranked,
                query.limit,
                lambda ids: self._context.turns(shard, ids),
                lambda queries: self._context.neighbours(shard, queries, alone=alone),
            )
