"""The distributed ``VectorIndex``: a Qdrant server, through qdrant-client (sync, REST).

It stores exactly what the embedded Edge adapter stores — same point ids, payload,
tombstone points, order-safe plan and python-side reciprocal-rank fusion, all from
``index_payload`` — so the two engines answer the same queries with the same hits (pinned
by ``tests/integration/test_index_congruence.py``).

Collections. One per embedding model: the physical collection ``aimem_<model>_<gen>`` sits
behind the alias ``aimem_<model>``; readers and the live projector always address the
alias. Named dense vector ``dense`` (cosine) and sparse vector ``keywords`` with the IDF
modifier; keyword payload indexes on tenant (a tenant index) / scope / type / state /
tags and a float index on expires_at. A generation whose dense size differs from the
embedder's is replaced by an empty next generation: the index is a projection and the
projector rebuilds it from the log (the Edge adapter does the same).

Zero-downtime rebuild (``ai-memory replay --projection index``): ``begin_rebuild()`` creates
the next generation, not yet aliased, and returns an index bound to it; the replay applies
the whole log into it while searches keep hitting the old generation; ``switch_alias()``
then repoints the alias in one atomic alias request and drops the old collection.

Checkpoints live *in* the collection, one payload-only point per log partition (id
``uuid5(partition)`` in a namespace of their own). They are written in the same
``batch_update_points`` request as the data, after it: the server applies the operations
of a request in order through its WAL, so a stored checkpoint never runs ahead of the
points it describes, and a rebuilt generation carries its own checkpoints.

Order safety. ``apply`` reads the positions stored for the batch's points, reduces the
batch with ``plan_batch`` and writes the survivors. Against a server it also makes every
write conditional (``conditional_writes``): upserts carry an ``update_filter`` "stored
position < mine" and state changes select "this id, live, older position", so a second
writer racing between the read and the write (e.g. two projectors during a partition
handover) cannot regress a point either. Checkpoint upserts are always conditional.
Local mode is single-process (its storage folder is locked), so retrieve-then-write is
already exact there, and its pure-Python filter evaluation would make the per-point
guard quadratic in the batch size; the guarded path is still tested on local mode.

IDF. Keyword IDF is computed over the searching tenant's points only, like Edge (an IDF
corpus filter, ``index_payload.idf_corpus``; Qdrant ≥ 1.19), so one tenant's documents
never shape another's scores. A corpus is measured over live points, by the server and
by local mode alike, so scores stay identical to Edge's after segments are optimised too
(``tests/integration/test_index_congruence.py``).

Not atomic: the operations of one request are applied in order, not all-or-nothing. A
failure half-way leaves some points newer than the checkpoint; the projector re-applies
the batch, which the position checks make harmless.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from ai_memory.core.errors import InvalidInput, Unavailable
from ai_memory.core.fusion import fusion_for
from ai_memory.core.index_rebuild import GenerationRebuild
from ai_memory.core.ports import (
    IndexHit,
    IndexQuery,
    IndexRebuild,
    SparseVector,
    Vector,
    VectorIndex,
)
from ai_memory.core.projection import IndexMutation
from ai_memory.settings import Settings

from . import index_payload as ip
from . import qdrant_server_support as qs

log = logging.getLogger(__name__)

_LOCAL_INDEX_WARNING = "Payload indexes have no effect in the local Qdrant"


class QdrantServerIndex:
    """``VectorIndex`` on a Qdrant collection (see the module docstring).

    ``collection`` pins the index to one physical collection (a rebuild in progress);
    by default it addresses the model's alias, creating generation 1 when missing."""

    def __init__(
        self,
        client: QdrantClient,
        dim: int,
        model_name: str,
        *,
        search_ef: int | None = None,
        conditional_writes: bool | None = None,
        owns_client: bool = True,
        collection: str | None = None,
    ) -> None:
        if dim <= 0:
            raise InvalidInput("dim", "positive", "the vector dimension must be > 0")
        self._client = client
        self._dim = dim
        self._model_name = model_name
        self._fusion = fusion_for(model_name)  # how hybrid search weighs this model's vectors
        self._local = qs.is_local(client)
        self._guarded = (not self._local) if conditional_writes is None else conditional_writes
        # local mode ignores search params and warns about them
        self._params = (
            None if search_ef is None or self._local else qm.SearchParams(hnsw_ef=search_ef)
        )
        self._owns_client = owns_client
        self._alias = qs.alias_name(model_name)
        self._closed = False
        self._apply_lock = threading.Lock()
        # Local mode mutates numpy arrays in place: never let a search see that half-done.
        self._local_lock: AbstractContextManager[Any] = (
            threading.RLock() if self._local else nullcontext()
        )
        with qs.client_errors("open"):
            if not self._local:
                qs.check_server_version(self._client.info().version)
            if collection is not None:
                self._target = collection
                if not self._client.collection_exists(collection):
                    self._create(collection)
                else:
                    self._index_fields(collection)
            else:
                self._target = self._alias
                self._open_alias()

    @classmethod
    def from_url(cls, url: str, dim: int, model_name: str, **kw: Any) -> QdrantServerIndex:
        """``qdrant+http(s)://…``, ``qdrant+local:///path`` or ``qdrant+memory://``; a
        server's key, if the URL has none, is ``AIMEM_QDRANT_API_KEY``."""
        key = Settings.one_from_env("qdrant_api_key").qdrant_api_key.get_secret_value()
        return cls(qs.connect(qs.parse_url(url, key or None)), dim, model_name, **kw)

    @property
    def collection(self) -> str:
        """The physical collection the name addressed by this index resolves to now."""
        with self._call("resolve"):
            return self._resolve(self._target)

    # --- collections ----------------------------------------------------------------
    def _resolve(self, name: str) -> str:
        for a in self._client.get_aliases().aliases:
            if a.alias_name == name:
                return a.collection_name
        return name

    def _generations(self) -> list[int]:
        names = [c.name for c in self._client.get_collections().collections]
        return sorted(g for n in names if (g := qs.generation_of(self._alias, n)) is not None)

    def _open_alias(self) -> None:
        current = self._resolve(self._alias)
        if current == self._alias:  # no alias yet: first start for this model
            physical = qs.physical_name(self._alias, max(self._generations(), default=0) + 1)
            self._create(physical)
            self._point_alias(physical, had_alias=False)
            return
        size = self._dense_size(current)
        if size != self._dim:
            log.warning(
                "%s holds %s-dim vectors, the embedder makes %s; starting an empty generation",
                current,
                size,
                self._dim,
            )
            self._replace_generation(current)
        else:
            self._index_fields(current)

    def _dense_size(self, collection: str) -> int | None:
        vectors = self._client.get_collection(collection).config.params.vectors
        params = vectors.get(ip.DENSE) if isinstance(vectors, dict) else None
        return None if params is None else params.size

    def _create(self, name: str) -> None:
        self._client.create_collection(
            name,
            vectors_config={ip.DENSE: qm.VectorParams(size=self._dim, distance=qm.Distance.COSINE)},
            sparse_vectors_config={ip.SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
        )
        self._index_fields(name)

    def _index_fields(self, name: str) -> None:
        """Every payload index searches need; a collection made by an older version gets
        the ones it lacks (context orders turns by ``created_at``, which needs one)."""
        have = set(self._client.get_collection(name).payload_schema or {})
        with warnings.catch_warnings():  # local mode has no payload indexes; servers need them
            warnings.filterwarnings("ignore", message=_LOCAL_INDEX_WARNING)
            for field in ip.KEYWORD_INDEXES:
                if field in have:
                    continue
                schema = qm.KeywordIndexParams(
                    type=qm.KeywordIndexType.KEYWORD, is_tenant=field == ip.F_TENANT
                )
                self._client.create_payload_index(name, field, field_schema=schema)
            for field in ip.FLOAT_INDEXES:
                if field not in have:
                    self._client.create_payload_index(name, field, qm.PayloadSchemaType.FLOAT)

    def _point_alias(self, physical: str, *, had_alias: bool) -> None:
        ops: list[Any] = []
        if had_alias:
            ops.append(qm.DeleteAliasOperation(delete_alias=qm.DeleteAlias(alias_name=self._alias)))
        create = qm.CreateAlias(collection_name=physical, alias_name=self._alias)
        ops.append(qm.CreateAliasOperation(create_alias=create))
        self._client.update_collection_aliases(change_aliases_operations=ops)

    def _replace_generation(self, current: str) -> None:
        """An empty next generation behind the alias; the old one is dropped."""
        physical = qs.physical_name(self._alias, max(self._generations(), default=0) + 1)
        self._create(physical)
        self._point_alias(physical, had_alias=True)
        self._client.delete_collection(current)

    def begin_rebuild(self) -> QdrantServerIndex:
        """A new, empty generation, not yet aliased, with checkpoints of its own: replay
        the log into it, then ``switch_alias`` it in. Searches meanwhile see the old one.

        One rebuild at a time: unaliased generations left by an abandoned rebuild are
        dropped first."""
        with self._call("begin rebuild"):
            current = self._resolve(self._alias)
            generations = self._generations()
            for g in generations:
                if qs.physical_name(self._alias, g) != current:
                    self._client.delete_collection(qs.physical_name(self._alias, g))
            physical = qs.physical_name(self._alias, max(generations, default=0) + 1)
            return QdrantServerIndex(
                self._client,
                self._dim,
                self._model_name,
                conditional_writes=self._guarded,
                owns_client=False,
                collection=physical,
            )

    def rebuild(self) -> IndexRebuild:
        """The port's rebuild: ``begin_rebuild``, switched in by ``switch_alias``. Closing
        it closes only the new generation's handle (the client is shared)."""

        def switch(target: VectorIndex) -> None:
            assert isinstance(target, QdrantServerIndex)
            self.switch_alias(target)

        return GenerationRebuild(self.begin_rebuild(), switch)

    def switch_alias(self, rebuilt: QdrantServerIndex) -> None:
        """Atomically repoint the alias at ``rebuilt``'s collection, then drop the old one."""
        if rebuilt._alias != self._alias or rebuilt._target == self._alias:
            raise InvalidInput("rebuilt", "generation", "not a rebuild of this index")
        with self._apply_lock, self._call("switch alias"):
            old = self._resolve(self._alias)
            self._point_alias(rebuilt._target, had_alias=old != self._alias)
            if old not in (self._alias, rebuilt._target):
                self._client.delete_collection(old)

    # --- lifecycle ------------------------------------------------------------------
    @contextmanager
    def _call(self, what: str) -> Iterator[None]:
        if self._closed:
            raise Unavailable("the vector index is closed")
        with self._local_lock, qs.client_errors(what):
            yield

    def reset(self) -> None:
        """Drop points and checkpoints. On the alias this swaps in an empty generation
        (the old segments, and the deleted points the server's IDF statistics still
        count, go with it); a pinned rebuild collection is recreated in place."""
        with self._apply_lock, self._call("reset"):
            if self._target == self._alias:
                self._replace_generation(self._resolve(self._alias))
            else:
                self._client.delete_collection(self._target)
                self._create(self._target)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns_client:
            with self._apply_lock, self._local_lock, qs.client_errors("close"):
                self._client.close()

    def flush(self) -> None:
        """Nothing to do: every ``apply`` waits until the server has applied its WAL."""
        with self._call("flush"):
            return

    def optimize(self) -> bool:
        """The server's own optimizers build HNSW and vacuum in the background."""
        with self._call("optimize"):
            return False

    def start_compaction(self) -> None:
        """The server's optimizers run on their own."""

    def compaction_status(self) -> dict[str, float]:
        return {}

    def checkpoint(self, partition: int = 0) -> int:
        with self._call("checkpoint"):
            found = self._client.retrieve(
                self._target, [qs.checkpoint_id(partition)], with_payload=True, with_vectors=False
            )
        mark = ip.mark_from_payload(found[0].payload) if found else None
        return 0 if mark is None else mark.position

    # --- writes ---------------------------------------------------------------------
    def apply(
        self,
        mutations: Sequence[IndexMutation],
        vectors: dict[int, tuple[Vector, SparseVector]],
        *,
        checkpoint: int,
        partition: int = 0,
    ) -> None:
        with self._apply_lock, self._call("apply"):
            stored = self._stored_marks(ip.point_ids_of(mutations))
            plan = ip.plan_batch(mutations, vectors, stored, dim=self._dim)
            ops: list[Any] = []
            if plan.writes:
                guard = (
                    qs.newer_only([(w.point_id, w.payload[ip.F_POSITION]) for w in plan.writes])
                    if self._guarded
                    else None
                )
                points = [_point(w) for w in plan.writes]
                ops.append(
                    qm.UpsertOperation(upsert=qm.PointsList(points=points, update_filter=guard))
                )
            for sw in plan.state_writes:
                payload = {ip.F_STATE: sw.state.value, ip.F_POSITION: sw.position}
                where: dict[str, Any] = (
                    {"filter": qs.live_and_older(sw.point_id, sw.position)}
                    if self._guarded
                    else {"points": [sw.point_id]}
                )
                ops.append(
                    qm.SetPayloadOperation(set_payload=qm.SetPayload(payload=payload, **where))
                )
            cp = qm.PointsList(
                points=[qs.checkpoint_point(partition, checkpoint)],
                update_filter=qm.Filter(must=[qs.older_than(checkpoint)]),
            )
            ops.append(qm.UpsertOperation(upsert=cp))
            self._client.batch_update_points(self._target, ops, wait=True)

    def _stored_marks(self, ids: list[str]) -> dict[str, ip.StoredMark]:
        if not ids:
            return {}
        selector = qm.PayloadSelectorInclude(include=[ip.F_POSITION, ip.F_DELETED])
        stored: dict[str, ip.StoredMark] = {}
        for rec in self._client.retrieve(self._target, ids, with_payload=selector):
            mark = ip.mark_from_payload(rec.payload)
            if mark is not None:
                stored[str(rec.id)] = mark
        return stored

    # --- reads ----------------------------------------------------------------------
    def count(self, tenant: str) -> int:
        with self._call("count"):
            flt = qs.to_filter(ip.count_terms(tenant))
            return self._client.count(self._target, count_filter=flt, exact=True).count

    def search(self, query: IndexQuery) -> list[IndexHit]:
        plan = ip.plan_search(query, self._dim, self._fusion)
        if plan is None:
            return []
        flt = qs.to_filter(plan.terms)
        requests = [
            qm.QueryRequest(
                query=_query_vector(r),
                using=r.using,
                filter=flt if r.terms is None else qs.to_filter(r.terms),
                limit=plan.limit,
                params=self._params if r.using == ip.DENSE else _idf_params(query.tenant),
                with_payload=_TURN_PAYLOAD,
            )
            for r in plan.retrievers
        ]
        with self._call("search"):
            responses = self._client.query_batch_points(self._target, requests)
        ranked = [[(str(p.id), float(p.score)) for p in r.points] for r in responses]
        payloads = {str(p.id): p.payload for r in responses for p in r.points if p.payload}
        return ip.hits_of(plan, ranked, query.limit, lambda ids: payloads, self._neighbours)

    def _neighbours(
        self, queries: Sequence[ip.NeighbourQuery]
    ) -> list[list[tuple[str, dict[str, Any]]]]:
        """Every seed's nearest turns on both sides in one batch of ordered queries, each
        asking for one turn more than it keeps: where that one shares the last kept
        turn's time, the engine chose among equal times by its own order, so the turns
        at that time are read and chosen by point key (``index_payload.nearest_first``,
        the rule of every adapter)."""
        requests = [
            qm.QueryRequest(
                query=qm.OrderByQuery(
                    order_by=qm.OrderBy(
                        key=ip.F_CREATED_AT,
                        direction=qm.Direction.DESC if q.before else qm.Direction.ASC,
                        # from the seed's time, not from one end of the index (inclusive:
                        # the filter's strict range leaves the seed out)
                        start_from=q.seed.created_at,
                    )
                ),
                filter=_neighbour_filter(q),
                limit=q.limit + 1,
                with_payload=_TURN_PAYLOAD,
            )
            for q in queries
        ]
        with self._call("search"):
            responses = self._client.query_batch_points(self._target, requests)
        return [
            ip.nearest_first(
                ip.with_ties_read(_timed(r.points), q.limit, partial(self._at, q)),
                q.seed,
                q.before,
                q.limit,
            )
            for q, r in zip(queries, responses, strict=True)
        ]

    def _at(self, q: ip.NeighbourQuery, time: float) -> list[tuple[float, str, dict[str, Any]]]:
        """Every turn of the query's conversation at exactly ``time``."""
        out: list[tuple[float, str, dict[str, Any]]] = []
        offset: Any = None
        while True:
            with self._call("search"):
                points, offset = self._client.scroll(
                    self._target,
                    scroll_filter=_neighbour_filter(q, qm.Range(gte=time, lte=time)),
                    limit=ip.TIES_PAGE,
                    offset=offset,
                    with_payload=_TURN_PAYLOAD,
                )
            out += _timed(points)
            if offset is None or not points:
                return out


def _timed(points: Sequence[Any]) -> list[tuple[float, str, dict[str, Any]]]:
    return [(float(p.payload[ip.F_CREATED_AT]), str(p.id), p.payload) for p in points if p.payload]


def _point(w: ip.PointWrite) -> qm.PointStruct:
    vector: dict[str, Any] = {}
    if w.dense is not None:
        vector[ip.DENSE] = w.dense.astype("float32").tolist()
        if w.sparse is not None and w.sparse.indices:
            vector[ip.SPARSE] = _sparse(w.sparse)
    return qm.PointStruct(id=w.point_id, vector=vector, payload=w.payload)


_TURN_PAYLOAD = qm.PayloadSelectorInclude(include=list(ip.TURN_FIELDS))


def _neighbour_filter(q: ip.NeighbourQuery, at: qm.Range | None = None) -> qm.Filter:
    """The query's conversation on its side of the seed, or at ``at``."""
    seed = q.seed
    side = at or (qm.Range(lt=seed.created_at) if q.before else qm.Range(gt=seed.created_at))
    session: Any = (
        qm.IsEmptyCondition(is_empty=qm.PayloadField(key=ip.F_SESSION))
        if seed.session is None
        else qm.FieldCondition(key=ip.F_SESSION, match=qm.MatchValue(value=seed.session))
    )
    return qs.to_filter(
        q.terms,
        qm.FieldCondition(key=ip.F_SCOPE, match=qm.MatchValue(value=seed.scope)),
        qm.FieldCondition(key=ip.F_TYPE, match=qm.MatchValue(value=ip.INTERACTION)),
        qm.FieldCondition(key=ip.F_CREATED_AT, range=side),
        session,
    )


def _idf_params(tenant: str) -> qm.SearchParams:
    """Keyword IDF over the tenant's own points (``index_payload.idf_corpus``)."""
    return qm.SearchParams(idf=qm.IdfCorpusParams(corpus=qs.to_filter(ip.idf_corpus(tenant))))


def _sparse(v: SparseVector) -> qm.SparseVector:
    return qm.SparseVector(indices=list(v.indices), values=list(v.values))


def _query_vector(r: ip.Retriever) -> Any:
    if r.sparse is not None:
        return _sparse(r.sparse)
    assert r.dense is not None
    return r.dense.astype("float32").tolist()
