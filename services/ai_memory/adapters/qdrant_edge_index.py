"""The embedded ``VectorIndex``: Qdrant Edge running in-process.

One ``EdgeShard`` holds one point per live memory with a named dense vector ``dense``
(cosine, HNSW) and a named sparse vector ``keywords`` (BM25 weights from
``core.keywords``; IDF applied by the engine over the searching tenant's points only,
see ``index_payload.idf_corpus``). Payload and order-safety rules are shared with the
server adapter (``index_payload``).

Layout of ``path``::

    shard/             the EdgeShard (segments; WAL disabled, see below)
    checkpoint.json    {"checkpoints": {partition: position}, "checkpoint", "model_name",
                       "dim"}: written after every flush; "checkpoint" repeats partition 0
                       so files written before the log was partitioned still open

Durability. The checkpoint on disk never runs ahead of the data it describes: the shard
is ``flush()``ed first, then ``checkpoint.json`` is replaced atomically (tmp + fsync +
rename + directory fsync). After a crash the projector re-applies from the last durable
checkpoint, which is harmless because every mutation is position-checked. The event log
is already our write-ahead log, so the engine's own WAL would only duplicate writes and
is disabled. A flush costs 0.1–0.3 s (every payload index fsyncs its files), so
``apply`` flushes at most every ``flush_interval`` seconds (``0`` = every batch);
``checkpoint()`` reports what is applied and visible, ``flush()`` and ``close()`` make it
durable. A crash loses at most ``flush_interval`` seconds of index work, replayed from
the log.

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
destroy the shard; a separate mutex serialises ``apply`` calls (read, plan, write,
checkpoint must not interleave).

Hybrid search fuses in Python: the dense and sparse retrievals run as one
``query_batch`` call and ``rrf_fuse`` merges them. The engine's ``Fusion.Rrf`` works too,
but it returns only the fused score and per-retriever ranks are needed to explain hits.

HNSW. Edge runs no background optimizer: new points stay in a plain appendable segment
(brute force) until ``optimize()`` builds the HNSW graph, and that call holds the GIL for
its whole duration. Selective filters (a scope) stay fast without a graph because the
engine pre-filters by payload index; unfiltered tenant-wide searches need the graph
(100k × 256 on two cores: scoped hybrid 2.1 ms p50 either way, tenant-wide hybrid 25 ms
before ``optimize()`` and 2.8 ms after; the optimisation itself took 76 s).
``optimize_after`` triggers it from ``apply`` once that many points were written since
the last optimisation; pass ``None`` and call ``optimize()`` at a quiet moment instead.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from ai_memory.core.errors import AiMemoryError, InvalidInput, Unavailable
from ai_memory.core.index_rebuild import InPlaceRebuild
from ai_memory.core.ports import IndexHit, IndexQuery, IndexRebuild, SparseVector, Vector
from ai_memory.core.projection import IndexMutation

from . import index_payload as ip

log = logging.getLogger(__name__)

_INPUT_ERRORS = ("dimension error", "Wrong input", "Bad input", "Not existing vector name")


@contextlib.contextmanager
def _engine(what: str) -> Iterator[None]:
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


class _ReadWriteLock:
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


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
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


def _sparse(v: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(list(v.indices), list(v.values))


def _filter(terms: ip.FilterTerms) -> qe.Filter:
    must: list[Any] = [qe.FieldCondition(ip.F_TENANT, match=qe.MatchValue(terms.tenant))]
    must += [
        qe.FieldCondition(name, match=qe.MatchAny(list(values))) for name, values in terms.any_of
    ]
    must_not: list[Any] = []
    if terms.expired_at_or_before != float("inf"):
        must_not.append(
            qe.FieldCondition(ip.F_EXPIRES_AT, range=qe.RangeFloat(lte=terms.expired_at_or_before))
        )
    return qe.Filter(must=must, must_not=must_not or None)


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
    ) -> None:
        if dim <= 0:
            raise InvalidInput("dim", "positive", "the vector dimension must be > 0")
        self._root = Path(path)
        self._shard_dir = self._root / "shard"
        self._checkpoint_file = self._root / "checkpoint.json"
        self._dim = dim
        self._model_name = model_name
        self._hnsw = (hnsw_m, hnsw_ef_construct)
        self._params = None if search_ef is None else qe.SearchParams(hnsw_ef=search_ef)
        self._optimize_after = optimize_after
        # Vector KB after which ``optimize()`` turns a segment into an indexed, immutable
        # one; ``None`` keeps the engine default (tests lower it to get such segments).
        self._indexing_threshold_kb = indexing_threshold_kb
        self._written_since_optimize = 0
        self._flush_interval = flush_interval
        self._last_flush = time.monotonic()
        # partition -> position; ``_durable`` is what is on disk, ``_checkpoints`` may be ahead
        self._checkpoints: dict[int, int] = {}
        self._durable: dict[int, int] = {}
        self._rw = _ReadWriteLock()
        self._apply_lock = threading.Lock()
        self._shard: qe.EdgeShard | None = None
        with _engine("open"):
            self._open()

    # --- lifecycle ------------------------------------------------------------------
    def _config(self) -> qe.EdgeConfig:
        m, ef_construct = self._hnsw
        return qe.EdgeConfig(
            vectors={ip.DENSE: qe.EdgeVectorParams(size=self._dim, distance=qe.Distance.Cosine)},
            sparse_vectors={ip.SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            hnsw_config=qe.HnswIndexConfig(
                m=m, ef_construct=ef_construct, full_scan_threshold=10_000
            ),
            optimizers=self._optimizers(),
            wal_enabled=False,
        )

    def _optimizers(self) -> qe.EdgeOptimizersConfig:
        # Vacuum every segment that holds a deleted point whenever ``optimize()`` runs (the
        # engine's defaults wait for 20 % deleted and 1000 vectors): a forgotten memory's
        # vectors are rewritten out of the segment files then (docs/design/FORGETTING.md).
        return qe.EdgeOptimizersConfig(
            deleted_threshold=0.0,
            vacuum_min_vector_number=1,
            indexing_threshold=self._indexing_threshold_kb,
        )

    def _read_checkpoints(self) -> dict[int, int]:
        try:
            data = json.loads(self._checkpoint_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (ValueError, OSError) as e:
            log.warning("unreadable index checkpoint %s (%s); rebuilding", self._checkpoint_file, e)
            return {}
        if data.get("model_name") != self._model_name or data.get("dim") != self._dim:
            log.warning(
                "index was built for %s/%s, now %s/%s; rebuilding from the log",
                data.get("model_name"),
                data.get("dim"),
                self._model_name,
                self._dim,
            )
            return {}
        # Files from before partitioning hold only "checkpoint" (partition 0).
        raw = data.get("checkpoints") or {"0": data.get("checkpoint", 0)}
        return {int(p): int(c) for p, c in raw.items() if int(c) > 0}

    def _write_checkpoints(self, checkpoints: dict[int, int]) -> None:
        _write_json_atomic(
            self._checkpoint_file,
            {
                "checkpoints": {str(p): c for p, c in sorted(checkpoints.items())},
                "checkpoint": checkpoints.get(0, 0),
                "model_name": self._model_name,
                "dim": self._dim,
            },
        )
        self._checkpoints = dict(checkpoints)
        self._durable = dict(checkpoints)

    def _persist(self, shard: qe.EdgeShard) -> None:
        """Flush the engine, then (and only then) record the checkpoints on disk."""
        shard.flush()
        self._last_flush = time.monotonic()
        if self._checkpoints != self._durable:
            self._write_checkpoints(self._checkpoints)

    def _open(self) -> None:
        self._root.mkdir(parents=True, exist_ok=True)
        checkpoints = self._read_checkpoints()
        if checkpoints and self._shard_dir.exists():
            # With the configuration (the engine checks it against the shard's and persists
            # it): a shard made before the vacuum settings gets them too.
            self._shard = qe.EdgeShard.load(str(self._shard_dir), self._config())
            self._checkpoints = checkpoints
            self._durable = dict(checkpoints)
            return
        self._write_checkpoints({})  # from here on a crash means "rebuild"
        shutil.rmtree(self._shard_dir, ignore_errors=True)
        self._create_shard()

    def _create_shard(self) -> None:
        shard = qe.EdgeShard.create(str(self._shard_dir), self._config())
        for name in ip.KEYWORD_INDEXES:
            params = qe.KeywordIndexParams(is_tenant=name == ip.F_TENANT)
            shard.update(qe.UpdateOperation.create_field_index(name, params))
        for name in ip.FLOAT_INDEXES:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Float))
        shard.flush()
        self._shard = shard
        self._written_since_optimize = 0

    def _live(self) -> qe.EdgeShard:
        if self._shard is None:
            raise Unavailable("the vector index is closed")
        return self._shard

    def reset(self) -> None:
        with self._apply_lock, self._rw.exclusive(), _engine("reset"):
            self._write_checkpoints({})
            if self._shard is not None:
                self._shard.close()
                self._shard = None
            shutil.rmtree(self._shard_dir, ignore_errors=True)
            self._create_shard()

    def rebuild(self) -> IndexRebuild:
        """In place (one process owns this index): reset now, compacted on ``switch``."""
        return InPlaceRebuild.begin(self)

    def close(self) -> None:
        with self._apply_lock, self._rw.exclusive():
            if self._shard is None:
                return
            shard, self._shard = self._shard, None
            with _engine("close"):
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
        with self._apply_lock, self._rw.shared(), _engine("apply"):
            shard = self._live()
            ids = ip.point_ids_of(mutations)
            stored: dict[str, ip.StoredMark] = {}
            if ids:
                selector = qe.PayloadSelector.Include([ip.F_POSITION, ip.F_DELETED])
                for rec in shard.retrieve(list(ids), selector, False):
                    mark = ip.mark_from_payload(rec.payload)
                    if mark is not None:
                        stored[str(rec.id)] = mark
            plan = ip.plan_batch(mutations, vectors, stored, dim=self._dim)
            # A forget replaces a live point by a payload-only tombstone. Replaced in place,
            # its vectors would stay in the segment files as deleted vectors, which the
            # vacuum does not count; deleted first, the point is a deleted point, and the
            # next ``optimize()`` rewrites its segment without it.
            forgotten: list[qe.PointId] = [
                w.point_id
                for w in plan.writes
                if w.dense is None and (mark := stored.get(w.point_id)) is not None and mark.live
            ]
            if forgotten:
                shard.update(qe.UpdateOperation.delete_points(forgotten))
            if plan.writes:
                shard.update(
                    qe.UpdateOperation.upsert_points([self._point(w) for w in plan.writes])
                )
            for sw in plan.state_writes:
                shard.update(
                    qe.UpdateOperation.set_payload(
                        [sw.point_id], {ip.F_STATE: sw.state.value, ip.F_POSITION: sw.position}
                    )
                )
            if checkpoint > self._checkpoints.get(partition, 0):
                self._checkpoints[partition] = checkpoint
            self._written_since_optimize += len(plan.writes)
            if (
                self._optimize_after is not None
                and self._written_since_optimize >= self._optimize_after
            ):
                self._optimize(shard)
            if time.monotonic() - self._last_flush >= self._flush_interval:
                self._persist(shard)

    def flush(self) -> None:
        """Make everything applied so far durable and advance the on-disk checkpoint."""
        with self._apply_lock, self._rw.shared(), _engine("flush"):
            self._persist(self._live())

    @staticmethod
    def _point(w: ip.PointWrite) -> qe.Point:
        vector: dict[str, Any] = {}
        if w.dense is not None:
            vector[ip.DENSE] = w.dense.astype("float32", copy=False).tolist()
            if w.sparse is not None and w.sparse.indices:
                vector[ip.SPARSE] = _sparse(w.sparse)
        return qe.Point(w.point_id, vector, w.payload)

    def optimize(self) -> bool:
        """Build HNSW graphs / merge segments now. Blocks (and holds the GIL) until done."""
        with self._apply_lock, self._rw.shared(), _engine("optimize"):
            return self._optimize(self._live())

    def _optimize(self, shard: qe.EdgeShard) -> bool:
        changed = shard.optimize()
        self._written_since_optimize = 0
        return changed

    # --- reads ----------------------------------------------------------------------
    def count(self, tenant: str) -> int:
        with self._rw.shared(), _engine("count"):
            flt = _filter(ip.count_terms(tenant))
            return self._live().count(qe.CountRequest(exact=True, filter=flt))

    @staticmethod
    def _idf_params(tenant: str) -> qe.SearchParams:
        """Keyword IDF over the tenant's own points (``index_payload.idf_corpus``)."""
        return qe.SearchParams(idf=qe.IdfParams(corpus=_filter(ip.idf_corpus(tenant))))

    def search(self, query: IndexQuery) -> list[IndexHit]:
        plan = ip.plan_search(query, self._dim)
        if plan is None:
            return []
        flt = _filter(plan.terms)
        requests = [
            qe.QueryRequest(
                limit=plan.limit,
                query=qe.Query.Nearest(_query_vector(r), using=r.using),
                filter=flt,
                params=self._params if r.using == ip.DENSE else self._idf_params(query.tenant),
                with_payload=qe.PayloadSelector.Include([ip.F_MEMORY_ID]),
            )
            for r in plan.retrievers
        ]
        with self._rw.shared(), _engine("search"):
            shard = self._live()
            results = (
                shard.query_batch(qe.QueryBatchRequest(requests))
                if len(requests) > 1
                else [shard.query(requests[0])]
            )
        ranked = [
            [(str((p.payload or {})[ip.F_MEMORY_ID]), float(p.score)) for p in points]
            for points in results
        ]
        return ip.hits_of(plan, ranked, query.limit)


def _query_vector(r: ip.Retriever) -> Any:
    if r.sparse is not None:
        return _sparse(r.sparse)
    assert r.dense is not None
    return r.dense.astype("float32").tolist()
