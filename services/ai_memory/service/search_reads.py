"""What a search reads of the record store, and how it ranks what it read
(``MemoryService.search``, steps 5–6 of "One search" in ``docs/ARCHITECTURE.md``).

The index recalls candidates; the record store is the source of truth for every hit a
search returns. ``SearchReads.kept`` reads only the candidates that can make the answer
(ranked first on what the index holds of them), ``SearchReads.then`` every candidate,
judged as it was at another time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ai_memory.core.governance import Candidate, GovernanceParams, contenders, rerank
from ai_memory.core.ports import IndexHit, RecordStore
from ai_memory.core.record import StoredRecord
from ai_memory.service.search_row_cache import SearchRowCache
from ai_memory.service.time_travel import TimeTravel
from ai_memory.telemetry import span

if TYPE_CHECKING:
    from ai_memory.service.memory_service import SearchRequest


@dataclass(frozen=True)
class SearchHit:
    stored: StoredRecord
    score: float
    components: dict[str, float] = field(default_factory=dict)
    explanation: dict[str, Any] | None = None


@dataclass
class _Reads:
    """One search's reads: whose, as asked when, the positions the index holds of its
    hits, and which of the rows it holds came from the cache."""

    tenant: str
    request: SearchRequest
    now: datetime
    positions: dict[str, int]
    from_cache: set[str] = field(default_factory=set)


def _indexed_positions(hits: list[IndexHit]) -> dict[str, int]:
    return {
        h.memory_id: h.facts.position
        for h in hits
        if h.facts is not None and h.facts.position is not None
    }


@dataclass(frozen=True)
class _Kept:
    """A candidate search keeps, before its record is read whole."""

    memory_id: str
    score: float
    components: Mapping[str, float]
    explanation: dict[str, Any] | None = None


class SearchReads:
    """One search's reads of ``store``, ranked with ``ranking``."""

    def __init__(
        self, store: RecordStore, ranking: GovernanceParams, cache: SearchRowCache | None = None
    ) -> None:
        self.store = store
        self.ranking = ranking
        self.cache = cache

    def kept(
        self, tenant: str, hits: list[IndexHit], request: SearchRequest, now: datetime
    ) -> list[SearchHit]:
        """The hits to return, read whole, reading as few records as the answer needs.

        The candidates are ranked first on what the index holds of them (``IndexHit.facts``:
        type and creation time, what the rerank reads; the index query already kept only
        the states asked for and nothing expired), and only those that can make the
        ``top_k`` (``contenders``) are read from the record store, as stored (``sealed``:
        nothing opened). The store is the source of truth for every hit returned: a record
        gone, in another state or expired drops its candidate, a read one is ranked on the
        record's own fields, and the rest is ranked again — until every contender has been
        read. Only the ``top_k`` kept are then opened; one that does not open (its key
        destroyed meanwhile) drops too. Ten records read for a top 10 instead of the
        35 recalled (each a partition read on Cassandra). A hit the index says nothing of
        is read with the first read."""
        rows: dict[str, StoredRecord] = {}
        dropped: set[str] = set()
        opened: dict[str, StoredRecord | None] = {}
        reads = _Reads(tenant, request, now, _indexed_positions(hits))
        unknown = [h.memory_id for h in hits if h.facts is None]
        if unknown:
            self._read_rows(reads, unknown, rows, dropped)
        while True:
            pool = [h for h in hits if h.memory_id not in dropped]
            unread = [m for m in self._contenders(pool, rows, now, request) if m not in rows]
            if unread:
                if dropped:
                    # The index was wrong about one already (behind its records, a key
                    # destroyed): read the rest at once rather than a round trip per drop.
                    unread = [h.memory_id for h in pool if h.memory_id not in rows]
                self._read_rows(reads, unread, rows, dropped)
                continue
            best = max((h.score for h in pool), default=1.0) or 1.0
            read = [(h, rows[h.memory_id]) for h in pool if h.memory_id in rows]
            ranked = self._order(read, now, request.top_k, request.rerank, best=best)
            wanted = [k.memory_id for k in ranked if k.memory_id not in opened]
            if wanted:
                with span("aimem.records.unseal", {"aimem.ids": len(wanted)}):
                    found = self.store.unseal(tenant, [rows[m] for m in wanted])
                by_id = {s.record.id: s for s in found}
                opened.update((m, by_id.get(m)) for m in wanted)
            gone = {k.memory_id for k in ranked if opened[k.memory_id] is None}
            if not gone:
                return [
                    SearchHit(stored, k.score, dict(k.components), k.explanation)
                    for k in ranked
                    if (stored := opened[k.memory_id]) is not None
                ]
            cached = gone & reads.from_cache
            if cached and self.cache is not None:
                # A cached row that does not open is read again from the store before
                # its hit is given up: the store's row may have been sealed again since
                # (a records replay rewrites rows without a new position).
                self.cache.drop(tenant, cached)
                reads.from_cache -= cached
                for m in cached:
                    del rows[m], opened[m]
                gone -= cached
            dropped |= gone

    def _read_rows(
        self,
        reads: _Reads,
        ids: list[str],
        rows: dict[str, StoredRecord],
        dropped: set[str],
    ) -> None:
        """Read ``ids`` as stored into ``rows`` (from the cache where it holds the
        version the index holds, else from the store); those the store no longer holds
        as asked (gone, in another state, expired) into ``dropped``."""
        tenant, request, now = reads.tenant, reads.request, reads.now
        got: dict[str, StoredRecord] = {}
        unread = ids
        if self.cache is not None:
            wanted = {m: p for m in ids if (p := reads.positions.get(m)) is not None}
            got = self.cache.get_many(tenant, wanted) if wanted else {}
            reads.from_cache.update(got)
            unread = [m for m in ids if m not in got]
        if unread:
            with span("aimem.records.get_many", {"aimem.ids": len(unread)}):
                read = self.store.get_many(tenant, unread, sealed=True)
            if self.cache is not None:
                self.cache.put_many(tenant, read.values())
            got.update(read)
        for m in ids:
            row = got.get(m)
            if row is None or row.state not in request.states or row.record.is_expired(now):
                dropped.add(m)
            else:
                rows[m] = row

    def _contenders(
        self,
        pool: list[IndexHit],
        rows: dict[str, StoredRecord],
        now: datetime,
        request: SearchRequest,
    ) -> list[str]:
        """The candidates that can make the answer: ranked on their records where read,
        else on what the index holds of them; in the index's order without the rerank.
        The best-scored candidate is always one: relevance is normalised to it, so it
        must be one the store still holds."""
        if not request.rerank:
            return [h.memory_id for h in pool[: request.top_k]]
        if not pool:
            return []
        top = max(pool, key=lambda h: h.score)
        best = top.score or 1.0
        candidates: list[Candidate] = []
        for h in pool:
            row = rows.get(h.memory_id)
            if row is not None:
                kind, created, count = row.record.type, row.record.created_at, row.read_count
            elif h.facts is not None:
                kind, created, count = h.facts.memory_type, h.facts.created_at, 0
            else:  # read with the first read, and dropped there
                continue
            candidates.append(Candidate(h.memory_id, h.score / best, kind, created, count))
        ranked = contenders(candidates, now, self.ranking, limit=request.top_k)
        return ranked if top.memory_id in ranked else [*ranked, top.memory_id]

    def _order(
        self,
        pool: list[tuple[IndexHit, StoredRecord]],
        now: datetime,
        top_k: int,
        rerank_on: bool,
        *,
        best: float | None = None,
    ) -> list[_Kept]:
        """The best ``top_k`` of the pool: reranked — two-stage retrieval (docs/API.md,
        "Search"): relevance (the fused score, normalised to the best candidate: ``best``,
        else the pool's), recency and type priority, each explained — or in the index's
        order."""
        if not rerank_on:
            return [_Kept(h.memory_id, h.score, h.components) for h, _ in pool[:top_k]]
        if not pool:
            return []
        if best is None:
            best = max(h.score for h, _ in pool) or 1.0
        components = {h.memory_id: h.components for h, _ in pool}
        ranked = rerank(
            [
                Candidate(
                    row.record.id,
                    h.score / best,
                    row.record.type,
                    row.record.created_at,
                    row.read_count,
                )
                for h, row in pool
            ],
            now,
            self.ranking,
            limit=top_k,
        )
        return [
            _Kept(r.memory_id, r.score, components[r.memory_id], r.explanation.to_json())
            for r in ranked
        ]

    def then(
        self,
        tenant: str,
        hits: list[IndexHit],
        request: SearchRequest,
        now: datetime,
        travel: TimeTravel,
    ) -> list[SearchHit]:
        """The hits as they were at another time: each candidate is judged by its
        lineage, so every one is read whole."""
        with span("aimem.records.get_many", {"aimem.ids": len(hits)}):
            records = self.store.get_many(tenant, [h.memory_id for h in hits])
        pool: list[tuple[IndexHit, StoredRecord]] = []
        for hit in hits:
            stored = records.get(hit.memory_id)
            # The record store is the source of truth: drop what it no longer holds.
            if stored is None:
                continue
            then = travel.state(stored)
            if then is None or then not in request.states:
                continue
            pool.append((hit, replace(stored, state=then)))
        then_of = {hit.memory_id: stored for hit, stored in pool}
        return [
            SearchHit(then_of[k.memory_id], k.score, dict(k.components), k.explanation)
            for k in self._order(pool, now, request.top_k, request.rerank)
        ]
