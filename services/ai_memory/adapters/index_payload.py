"""Engine-neutral rules of the ``index`` projection, shared by the Qdrant adapters.

The embedded adapter (Qdrant Edge, in-process) and the server adapter (qdrant-client)
must store the same points and make the same decisions, so everything that is not an
engine call lives here:

* point ids: ``uuid5(tenant/memory_id)`` under a fixed namespace, stable forever, so a
  replay or a second writer addresses the same point without a lookup;
* the payload schema and which fields carry payload indexes;
* ``plan_batch``: the order-safe, idempotent reduction of a batch of mutations against
  the positions already stored (the heart of exactly-once effect on at-least-once
  delivery);
* ``filter_terms``: what a query filters on, before translation into engine classes;
* ``idf_corpus``: the points keyword IDF is computed over — the query's tenant only;
* the search plan (``plan_search``) and turning engine results into hits; the fusion
  itself (``Fusion``, ``fuse``) is pure and lives in ``ai_memory.core.fusion``.

**Keyword IDF per tenant.** The sparse vectors carry BM25 term-frequency weights; the
engine multiplies them by IDF (``Modifier.Idf``). By default the engine counts N and df
over the whole collection (Edge: the shard), whatever the query's filter — measured:
another tenant flooding a term lowered its IDF for everyone, and rankings flipped
(``test_keyword_idf_is_computed_per_tenant`` in the vector index contract). Since Qdrant
1.19 (server and Edge 0.9) a query may name an IDF *corpus* filter; every keyword
retrieval names the tenant's points (``idf_corpus``). Chosen over the alternatives:

* a collection (or shard key) per tenant: isolates everything, but multiplies
  collections, checkpoints and rebuilds by the number of tenants — a migration of every
  deployment for a scoring property;
* sparse vectors named per tenant: a schema change per new tenant;
* IDF computed by us from per-tenant document frequencies: a second counter to keep
  exact under replays, rewrites and deletes, beside the engine's;
* the corpus filter: no stored data changes, so nothing is migrated or replayed; the
  same points and vectors score per tenant from the first query after the upgrade.

Cost: the engine counts the query terms' df among the tenant's points per query (through
the tenant payload index) instead of reading collection-wide counters. Measured on Edge
(2 cores under load): a 4-term keyword query over a 50,000-point tenant went from ~0.25 ms
to ~1 ms; over a 300-point tenant it did not change. A corpus is counted over live points,
so the old copies an optimised segment keeps of rewritten points no longer skew Edge's
scores (``tests/integration/test_index_congruence.py``). The server must be Qdrant ≥ 1.19
(``qdrant_server_support.check_server_version``).

Deleted memories leave a *tombstone point*: same point id, no vectors, payload
``{tenant, memory_id, position, deleted: true}`` and no ``state``. It keeps the delete's
position so an older ``IndexPut`` replayed later cannot resurrect the memory. Every
search and count filters on ``state``, which tombstones lack, so they are invisible.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import numpy as np

from ai_memory.core.conversation_context import REACH as CONTEXT_REACH
from ai_memory.core.conversation_context import SEEDS as CONTEXT_SEEDS
from ai_memory.core.conversation_context import Turn, with_context
from ai_memory.core.errors import InvalidInput
from ai_memory.core.fusion import DEFAULT_FUSION, Fusion, Ranked, by_score, fuse, single_hits
from ai_memory.core.ports import HitFacts, IndexHit, IndexQuery, SparseVector, Vector
from ai_memory.core.projection import IndexMutation, IndexPut, IndexRemove, IndexSetState
from ai_memory.core.record import MemoryState, MemoryType

DENSE = "dense"
SPARSE = "keywords"
# Never change: every stored point id is derived from it.
POINT_NAMESPACE = uuid.UUID("5f1c0a52-3d0e-4c53-9a51-6d2b1e0f7a31")

F_TENANT = "tenant"
F_MEMORY_ID = "memory_id"
F_SCOPE = "scope"
F_TYPE = "type"
F_STATE = "state"
F_TAGS = "tags"
F_CREATED_AT = "created_at"
F_EXPIRES_AT = "expires_at"
F_POSITION = "position"
F_DELETED = "deleted"
# The conversation an interaction belongs to (``meta.session_id``; absent without one):
# what conversation context (``core.conversation_context``) keeps its neighbours within.
F_SESSION = "session"
SESSION_META = "session_id"

KEYWORD_INDEXES = (F_TENANT, F_SCOPE, F_TYPE, F_STATE, F_TAGS, F_SESSION)
# created_at: a conversation's turns are ordered by it (the engines order only by an
# indexed field). Its index keeps the engine's extra HNSW links although they are 40–50 %
# of building the graph (a distinct value per point): without them a created-at window of
# 12 % of a 100k scope kept 0.835 of its true top ten (loadtest/RESULTS.md, "What the
# index's compactions cost, now counted"). Drop them only with windows searched otherwise.
FLOAT_INDEXES = (F_EXPIRES_AT, F_CREATED_AT)
# What a kept hit's payload is read for: its memory id and where it sits in a conversation.
TURN_FIELDS = (F_MEMORY_ID, F_SCOPE, F_TYPE, F_SESSION, F_CREATED_AT, F_POSITION)
ALL_STATES = tuple(s.value for s in MemoryState)

PREFETCH_MIN = 50

# The dated retrievers (``plan_search``): their component names' prefix, and their weight
# in fusion relative to the unrestricted retriever of the same kind. Chosen on the tuning
# half of LoCoMo (``docs/design/RETRIEVAL.md``, "Periods a query names"): 0.5, 0.75 and 1
# tie with the static embedder, 1 is best with mpnet.
DATED = "dated_"
DATED_WEIGHT = 1.0


_NAMESPACE_BYTES = POINT_NAMESPACE.bytes


@functools.lru_cache(maxsize=1 << 14)
def point_id(tenant: str, memory_id: str) -> str:
    """Stable point id. Memory ids never contain '/', so the key is unambiguous. Cached:
    a batch asks for each id twice (the stored marks, then the plan), and a memory's
    later versions and reads ask again.

    ``uuid5`` spelled out (SHA-1 of namespace and name, version 5, RFC 4122 variant)
    without the ``UUID`` object, whose checks cost as much as the hash: every event of
    a replay misses the cache. Equal to ``str(uuid.uuid5(...))``, which a test holds."""
    digest = bytearray(
        hashlib.sha1(
            _NAMESPACE_BYTES + f"{tenant}/{memory_id}".encode(), usedforsecurity=False
        ).digest()[:16]
    )
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def prefetch_limit(limit: int) -> int:
    """How deep each retriever of a hybrid search reads to keep ``limit`` fused hits.
    Twice the limit: on LoCoMo (``loadtest/bench_locomo.py``) 2× gives the recall@5 and
    @10 of 3× and 4× (57.4 / 65.6; @20 72.3 against 72.5) and 1× loses 0.8 at @10, while
    at 100k points in one scope 2× is ≈ 0.5 ms cheaper than 4× (``loadtest/RESULTS.md``)."""
    return max(limit * 2, PREFETCH_MIN)


@dataclass(frozen=True)
class StoredMark:
    """What the engine already holds for a point: the position it reflects."""

    position: int
    live: bool


def mark_from_payload(payload: Mapping[str, Any] | None) -> StoredMark | None:
    if not payload or F_POSITION not in payload:
        return None
    return StoredMark(int(payload[F_POSITION]), not payload.get(F_DELETED, False))


@dataclass(frozen=True)
class PointWrite:
    """Replace a whole point. ``dense is None`` means a tombstone (payload only)."""

    point_id: str
    payload: dict[str, Any]
    dense: Vector | None = None
    sparse: SparseVector | None = None


@dataclass(frozen=True)
class StateWrite:
    """Change only the lifecycle state (and position) of a live point."""

    point_id: str
    state: MemoryState
    position: int


@dataclass(frozen=True)
class IndexPlan:
    writes: list[PointWrite]
    state_writes: list[StateWrite]
    skipped: int


def _mutation_key(m: IndexMutation) -> str:
    memory_id = m.record.id if isinstance(m, IndexPut) else m.memory_id
    return point_id(m.tenant, memory_id)


def point_ids_of(mutations: Sequence[IndexMutation]) -> list[str]:
    return list(dict.fromkeys(_mutation_key(m) for m in mutations))


def put_payload(m: IndexPut) -> dict[str, Any]:
    """A live point's payload. Tags, expiry and conversation are left out when a memory
    has none: every reader treats a missing field as an empty one (a tag or range
    condition never matches it, ``IsEmpty`` matches both, ``turn_of`` reads ``None``),
    and each field costs the engine's binding ≈ 1–3 µs to convert per point."""
    r = m.record
    payload: dict[str, Any] = {
        F_TENANT: m.tenant,
        F_MEMORY_ID: r.id,
        F_SCOPE: r.scope,
        F_TYPE: r.type.value,
        F_STATE: m.state.value,
        F_CREATED_AT: r.created_at.timestamp(),
        F_POSITION: m.position,
    }
    if r.tags:
        payload[F_TAGS] = list(r.tags)
    expires = r.expires_at()
    if expires is not None:
        payload[F_EXPIRES_AT] = expires.timestamp()
    session = session_of(r.meta)
    if session is not None:
        payload[F_SESSION] = session
    return payload


def session_of(meta: Mapping[str, Any]) -> str | None:
    """The conversation a memory's ``meta`` names, if it names one as a string."""
    session = meta.get(SESSION_META)
    return session if isinstance(session, str) and session else None


def tombstone_payload(m: IndexRemove) -> dict[str, Any]:
    return {F_TENANT: m.tenant, F_MEMORY_ID: m.memory_id, F_POSITION: m.position, F_DELETED: True}


def check_dense(vector: Vector, dim: int, field: str = "dense") -> None:
    if vector.shape != (dim,):
        raise InvalidInput(
            field, "dimension", f"dense vector must have shape ({dim},), got {tuple(vector.shape)}"
        )
    if not np.isfinite(vector).all():
        raise InvalidInput(field, "finite", "dense vector contains NaN or infinity")


def plan_batch(
    mutations: Sequence[IndexMutation],
    vectors: Mapping[int, tuple[Vector, SparseVector]],
    stored: Mapping[str, StoredMark],
    *,
    dim: int,
) -> IndexPlan:
    """Reduce a batch to the writes that make the engine reflect it.

    A mutation whose position is ≤ the position held for its point (stored or earlier in
    the batch) is skipped; the last surviving mutation per point decides the write. A
    state change for a point that is not live (missing or tombstoned) has nothing to
    change. Validation happens before anything is written.
    """
    marks: dict[str, StoredMark] = dict(stored)
    writes: dict[str, PointWrite] = {}
    states: dict[str, StateWrite] = {}
    skipped = 0
    for m in mutations:
        pid = _mutation_key(m)
        mark = marks.get(pid)
        if mark is not None and m.position <= mark.position:
            skipped += 1
            continue
        if isinstance(m, IndexPut):
            pair = vectors.get(m.position)
            if pair is None:
                raise InvalidInput(
                    "vectors", "required", f"no vectors for the write at position {m.position}"
                )
            check_dense(pair[0], dim)
            writes[pid] = PointWrite(pid, put_payload(m), pair[0], pair[1])
            states.pop(pid, None)
            marks[pid] = StoredMark(m.position, True)
        elif isinstance(m, IndexRemove):
            writes[pid] = PointWrite(pid, tombstone_payload(m))
            states.pop(pid, None)
            marks[pid] = StoredMark(m.position, False)
        elif isinstance(m, IndexSetState):
            if mark is None or not mark.live:
                skipped += 1
                continue
            pending = writes.get(pid)
            if pending is not None:  # a put earlier in this batch: fold the state into it
                payload = {**pending.payload, F_STATE: m.state.value, F_POSITION: m.position}
                writes[pid] = PointWrite(pid, payload, pending.dense, pending.sparse)
            else:
                states[pid] = StateWrite(pid, m.state, m.position)
            marks[pid] = StoredMark(m.position, True)
    return IndexPlan(list(writes.values()), list(states.values()), skipped)


@dataclass(frozen=True)
class FilterTerms:
    """Engine-neutral search filter: all ``any_of`` pairs must hold, TTL not passed."""

    tenant: str
    any_of: tuple[tuple[str, tuple[str, ...]], ...]
    expired_at_or_before: float
    matches_nothing: bool
    # created_at within any of these [start, end) ranges (none: any time).
    created_in: tuple[tuple[float, float], ...] = ()


def filter_terms(query: IndexQuery) -> FilterTerms:
    """An empty list for any filter means "any of nothing": the query matches nothing
    (an empty scope list must never widen to all scopes)."""
    any_of: list[tuple[str, tuple[str, ...]]] = []
    for name, values in (
        (F_SCOPE, query.scopes),
        (F_TYPE, None if query.types is None else [t.value for t in query.types]),
        (F_TAGS, query.tags),
        (F_STATE, [MemoryState(s).value for s in query.states]),
    ):
        if values is not None:
            any_of.append((name, tuple(dict.fromkeys(values))))
    return FilterTerms(
        tenant=query.tenant,
        any_of=tuple(any_of),
        expired_at_or_before=query.now.timestamp(),
        matches_nothing=any(not values for _, values in any_of),
    )


def idf_corpus(tenant: str) -> FilterTerms:
    """The points a tenant's keyword IDF is computed over: every point of the tenant
    (tombstones carry no keywords, so they never count), whatever the query's other
    filters. Only the tenant's own documents decide how rare a term is for it, and a
    scope or state filter does not change its scores either (``keyword_idf`` below).

    IDF over the searched scopes instead was measured and not kept: +1.1 LoCoMo R@10
    without conversation context, +0.5 with it, for ≈ 6 ms more per search in a scope
    of 90k memories (the engine counts each query term over the filter; the tenant's
    corpus often takes the shortcut of the engine's own statistics instead,
    ``docs/design/RETRIEVAL.md``)."""
    return FilterTerms(tenant, (), float("inf"), False)


def count_terms(tenant: str) -> FilterTerms:
    """Live points of a tenant in any state (tombstones have no state)."""
    return FilterTerms(tenant, ((F_STATE, ALL_STATES),), float("inf"), False)


@dataclass(frozen=True)
class Retriever:
    """One half of a search: ``name`` is the component name in explanations (``dense`` /
    ``keyword``), ``using`` the engine's vector name, and exactly one query vector."""

    name: str
    using: str
    dense: Vector | None = None
    sparse: SparseVector | None = None
    # Its own filter (the dated retrievers'); ``None``: the plan's.
    terms: FilterTerms | None = None


@dataclass(frozen=True)
class SearchPlan:
    """What both engines run for a query: the same retrievers, filter and limit, so the
    only engine-specific work left is translating classes and making the calls."""

    retrievers: list[Retriever]
    terms: FilterTerms
    limit: int  # per retriever: the final limit, or the prefetch depth when fusing
    fuse: bool
    fusion: Fusion = DEFAULT_FUSION
    context: bool = False


def plan_search(query: IndexQuery, dim: int, fusion: Fusion = DEFAULT_FUSION) -> SearchPlan | None:
    """Validate ``query`` and decide the retrievers; ``None`` when it matches nothing.

    semantic needs ``dense``; keyword needs ``sparse`` (a query of only stop words
    matches nothing); hybrid uses whichever of the two is present."""
    if query.limit < 1:
        raise InvalidInput("limit", "positive", "limit must be ≥ 1")
    if query.mode == "semantic" and query.dense is None:
        raise InvalidInput("query.dense", "required", "semantic search needs a dense vector")
    if query.mode == "keyword" and query.sparse is None:
        raise InvalidInput("query.sparse", "required", "keyword search needs query terms")
    if query.mode == "hybrid" and query.dense is None and query.sparse is None:
        raise InvalidInput("query", "required", "hybrid search needs a dense or sparse vector")
    out: list[Retriever] = []
    if query.mode in ("semantic", "hybrid") and query.dense is not None:
        check_dense(query.dense, dim, "query.dense")
        out.append(Retriever("dense", DENSE, dense=query.dense))
    if query.mode in ("keyword", "hybrid") and query.sparse is not None and query.sparse.indices:
        out.append(Retriever("keyword", SPARSE, sparse=query.sparse))
    terms = filter_terms(query)
    if terms.matches_nothing or not out:
        return None
    fuse = query.mode == "hybrid"
    limit = prefetch_limit(query.limit) if fuse else query.limit
    if fuse and query.periods:
        # The memories created in the periods the query names compete in their own right
        # (``core.query_dates``): each retriever again, restricted to the periods, fused
        # beside the unrestricted ones at ``DATED_WEIGHT`` of their weight.
        dated = replace(terms, created_in=query.periods)
        out += [replace(r, name=f"{DATED}{r.name}", terms=dated) for r in out]
        fusion = fusion.with_dated(DATED, DATED_WEIGHT)
    return SearchPlan(out, terms, limit, fuse, fusion, query.context)


def filter_of(plan: SearchPlan, retriever: Retriever) -> FilterTerms:
    """The filter ``retriever`` runs with."""
    return plan.terms if retriever.terms is None else retriever.terms


# Point keys → the ``TURN_FIELDS`` of their payloads, for the points it still finds.
Describe = Callable[[Collection[str]], Mapping[str, Mapping[str, Any]]]


@dataclass(frozen=True)
class NeighbourQuery:
    """The turns of ``seed``'s conversation just before (``before``) or after it, nearest
    first, among the points the search's own filter admits (``terms``: the tenant, the
    scopes, types, tags and states asked for, nothing expired)."""

    terms: FilterTerms
    seed: Turn
    before: bool
    limit: int = CONTEXT_REACH


# One answer per query, in order: (point key, ``TURN_FIELDS`` payload), nearest first.
FindNeighbours = Callable[
    [Sequence[NeighbourQuery]], Sequence[Sequence[tuple[str, Mapping[str, Any]]]]
]

INTERACTION = MemoryType.INTERACTION.value


_P = TypeVar("_P")  # a turn's payload, as each adapter reads it


def nearest_first(
    turns: Sequence[tuple[float, str, _P]], seed: Turn, before: bool, limit: int
) -> list[tuple[str, _P]]:
    """The ``limit`` turns nearest the seed on one side, nearest first; turns at the same
    time in point-key order, so that the answer does not depend on how it was read (the
    engine orders equal times by its internal offsets, which differ between a scroll
    and a window read, and between shards that hold the same points)."""
    at = seed.created_at
    on_side = [w for w in turns if (w[0] < at if before else w[0] > at)]
    on_side.sort(key=lambda w: (at - w[0] if before else w[0] - at, w[1]))
    return [(key, payload) for _, key, payload in on_side[:limit]]


#: Turns per read of the turns at one time (``with_ties_read``); more are read page by page.
TIES_PAGE = 256


def with_ties_read(
    found: list[tuple[float, str, _P]],
    limit: int,
    read_at: Callable[[float], list[tuple[float, str, _P]]],
) -> list[tuple[float, str, _P]]:
    """``found``: an engine's ordered read of ``limit + 1`` turns, nearest first. When the
    last one shares its time with the one before it, the engine chose among equal times
    by its own order, so every turn at that time is read (``read_at``) for
    ``nearest_first`` to choose by key; otherwise ``found`` already holds them all."""
    if len(found) > limit and found[limit][0] == found[limit - 1][0]:
        edge = found[limit - 1][0]
        return [w for w in found if w[0] != edge] + read_at(edge)
    return found


def turn_of(key: str, payload: Mapping[str, Any]) -> Turn:
    session = payload.get(F_SESSION)
    return Turn(
        key,
        str(payload.get(F_SCOPE, "")),
        session if isinstance(session, str) else None,
        float(payload.get(F_CREATED_AT) or 0.0),
        payload.get(F_TYPE) == INTERACTION,
    )


def hits_of(
    plan: SearchPlan,
    results: Sequence[Ranked],
    limit: int,
    describe: Describe,
    neighbours: FindNeighbours | None = None,
) -> list[IndexHit]:
    """Engine results (one list of (point id, score) per retriever, in plan order) →
    final hits, named by memory id; with the plan's ``context``, re-scored with their
    conversation context (``core.conversation_context``), ``neighbours`` finding them.

    Ranking and fusion work on point ids, so an engine is asked for no payload with
    the few hundred points a hybrid search prefetches (≈ 3–5 µs each in Qdrant Edge:
    ≈ 0.8 ms of a 1.5 ms engine call at 100k, ``loadtest/RESULTS.md``); ``describe`` is
    asked for the kept hits only. A hit it no longer finds (deleted since the query) is
    left out, as one whose record vanished is."""
    ranked = {r.name: by_score(points) for r, points in zip(plan.retrievers, results, strict=True)}
    if not plan.fuse:
        name = plan.retrievers[0].name
        kept = single_hits(name, ranked[name], limit)
    else:
        kept = fuse(ranked, limit, plan.fusion)
    if not kept:
        return kept
    found = dict(describe([h.memory_id for h in kept]))
    if plan.context and neighbours is not None:
        kept = _with_context(plan, kept, found, neighbours, limit)
    return [
        IndexHit(str(payload[F_MEMORY_ID]), h.score, h.components, facts_of(payload))
        for h in kept
        if (payload := found.get(h.memory_id)) is not None
    ]


def facts_of(payload: Mapping[str, Any]) -> HitFacts | None:
    """A hit's type, creation time and position as its point holds them; ``None`` when
    the point holds no valid type and time (the search then reads the record to rank
    it)."""
    kind, created = payload.get(F_TYPE), payload.get(F_CREATED_AT)
    if not isinstance(kind, str) or not isinstance(created, int | float):
        return None
    position = payload.get(F_POSITION)
    if not isinstance(position, int) or isinstance(position, bool):
        position = None
    try:
        return HitFacts(MemoryType(kind), datetime.fromtimestamp(created, UTC), position)
    except (ValueError, OverflowError, OSError):
        return None


def _with_context(
    plan: SearchPlan,
    kept: list[IndexHit],
    found: dict[str, Mapping[str, Any]],
    neighbours: FindNeighbours,
    limit: int,
) -> list[IndexHit]:
    """``with_context`` over engine lookups; the neighbours' payloads join ``found``."""

    def lookup(seeds: Sequence[Turn]) -> dict[str, tuple[list[Turn], list[Turn]]]:
        queries = [
            NeighbourQuery(plan.terms, seed, before) for seed in seeds for before in (True, False)
        ]
        answers = neighbours(queries)
        sides: dict[str, tuple[list[Turn], list[Turn]]] = {seed.key: ([], []) for seed in seeds}
        for query, answer in zip(queries, answers, strict=True):
            side = sides[query.seed.key][0 if query.before else 1]
            for key, payload in answer:
                found.setdefault(key, payload)
                side.append(turn_of(key, payload))
        return sides

    return with_context(kept, seed_turns(kept, found), lookup, limit)


def seed_turns(kept: Sequence[IndexHit], found: Mapping[str, Mapping[str, Any]]) -> dict[str, Turn]:
    """The turns ``with_context`` can take as seeds: the first ``SEEDS`` hits that are
    interactions, in hit order. A search keeps a few dozen hits and context asks only for
    its best few turns, so the others are not described (a hit ``turns`` lacks is no
    seed, which a hit of another type is not either)."""
    turns: dict[str, Turn] = {}
    for hit in kept:
        payload = found.get(hit.memory_id)
        if payload is not None and payload.get(F_TYPE) == INTERACTION:
            turns[hit.memory_id] = turn_of(hit.memory_id, payload)
            if len(turns) == CONTEXT_SEEDS:
                break
    return turns
