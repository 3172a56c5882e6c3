"""MemoryService: the six primitives as use cases over the ports.

Writes: validate → decide against the log's write model (heads) → append events, each
in a unit of work (``unit_of_work``: the lock, the heads, the headers, the waits).
Reads: served from projections, optionally after waiting for a log position
(read-your-writes).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import EventHeader
from ai_memory.core.governance import GovernanceParams
from ai_memory.core.keywords import query_terms
from ai_memory.core.listing import ListQuery
from ai_memory.core.ports import (
    Clock,
    Embedder,
    IndexHit,
    IndexQuery,
    RecordStore,
    VectorIndex,
)
from ai_memory.core.preconditions import Preconditions
from ai_memory.core.query_dates import named_periods
from ai_memory.core.record import (
    Limits,
    MemoryRecord,
    MemoryState,
    MemoryType,
    StoredRecord,
    check_utf8,
    parse_record,
    validate_scope,
    validate_tags,
    validate_type,
)
from ai_memory.core.timeparse import parse_timestamp, short_repr
from ai_memory.service import access, batch_write
from ai_memory.service.access import Who
from ai_memory.service.batch_write import ItemResult
from ai_memory.service.listing import ListRequest, MemoryPage
from ai_memory.service.recalls import RecallRecorder
from ai_memory.service.search_reads import SearchHit, SearchReads
from ai_memory.service.search_row_cache import SearchRowCache
from ai_memory.service.secret_policy import Screened, SecretGuard
from ai_memory.service.single_writes import SingleWrite, SingleWrites
from ai_memory.service.time_travel import TimePoint, TimeTravel
from ai_memory.service.unit_of_work import PositionWaiter, UnitsOfWork
from ai_memory.service.writing import DeleteResult, WriteResult, delete_in, write_in
from ai_memory.telemetry import annotate, span, traced

SearchMode = Literal["hybrid", "semantic", "keyword"]
MAX_TOP_K = 100


@dataclass(frozen=True)
class SearchRequest:
    query: str
    scopes: Sequence[str] | None = None
    tags: Sequence[str] | None = None
    types: Sequence[MemoryType] | None = None
    top_k: int = 10
    mode: SearchMode = "hybrid"
    states: tuple[MemoryState, ...] = (MemoryState.ACTIVE,)
    rerank: bool = True
    as_of: datetime | None = None  # valid time: "what was true then" (docs/design/TIME.md)
    known_at: datetime | None = None  # recorded time: "what did the system believe then"
    # Interactions scored with the turns around them (``core.conversation_context``).
    context: bool = True
    # Memories created in the periods the query names compete in their own right
    # (``core.query_dates``; hybrid mode).
    dates: bool = True

    @staticmethod
    def parse(body: Mapping[str, Any], limits: Limits) -> SearchRequest:
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query", "non_empty", "query must be a non-empty string")
        check_utf8(query, "query")  # the embedder and the keyword hashing need UTF-8
        scope = body.get("scope")
        scopes = None if scope is None else [validate_scope(scope, limits)]
        raw_types = body.get("types")
        if raw_types is not None and not isinstance(raw_types, list):
            raise InvalidInput("types", "string_list", "types must be a list of memory types")
        types = None if raw_types is None else [validate_type(t) for t in raw_types]
        tags = validate_tags(body.get("tags"), limits) or None
        top_k = body.get("top_k", 10)
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput("top_k", "range", f"top_k must be an integer in 1..{MAX_TOP_K}")
        mode = body.get("mode", "hybrid")
        if mode not in ("hybrid", "semantic", "keyword"):
            raise InvalidInput("mode", "enum", "mode must be hybrid, semantic or keyword")
        raw_states = body.get("states")
        if raw_states is None:
            states: tuple[MemoryState, ...] = (MemoryState.ACTIVE,)
        elif not isinstance(raw_states, list) or not raw_states:
            raise InvalidInput("states", "string_list", "states must be a non-empty list")
        else:
            allowed = {s.value for s in MemoryState}
            # Only strings can be states; a list inside would not even be hashable.
            bad = [x for x in raw_states if not isinstance(x, str) or x not in allowed]
            if bad:
                shown = short_repr(bad)
                raise InvalidInput(
                    "states", "enum", f"unknown state(s) {shown}; allowed: {sorted(allowed)}"
                )
            states = tuple(MemoryState(x) for x in dict.fromkeys(raw_states))
        rerank = body.get("rerank", True)
        if not isinstance(rerank, bool):
            raise InvalidInput("rerank", "boolean", "rerank must be true or false")
        context = body.get("context", True)
        if not isinstance(context, bool):
            raise InvalidInput("context", "boolean", "context must be true or false")
        dates = body.get("dates", True)
        if not isinstance(dates, bool):
            raise InvalidInput("dates", "boolean", "dates must be true or false")
        as_of = None if body.get("as_of") is None else parse_timestamp(body["as_of"], field="as_of")
        known_at = (
            None
            if body.get("known_at") is None
            else parse_timestamp(body["known_at"], field="known_at")
        )
        return SearchRequest(
            query.strip(),
            scopes,
            tags,
            types,
            top_k,
            mode,
            states,
            rerank,
            as_of,
            known_at,
            context,
            dates,
        )


class MemoryService:
    def __init__(
        self,
        *,
        store: RecordStore,
        index: VectorIndex,
        embedder: Embedder,
        clock: Clock,
        waiter: PositionWaiter,
        limits: Limits | None = None,
        wait_timeout: float = 10.0,
        recalls: RecallRecorder | None = None,
        ranking: GovernanceParams | None = None,
        units: UnitsOfWork,
        secrets: SecretGuard | None = None,
        row_cache: SearchRowCache | None = None,
    ) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.clock = clock
        self.limits = limits or Limits()
        self.wait_timeout = wait_timeout
        self.recalls = recalls
        self.ranking = ranking or GovernanceParams()
        # Every service of this process writes through these units (one lock, one clock).
        self.units = units
        # On a serialized log, concurrent single writes share one lock hold and one
        # append (``single_writes``); a partitioned log's writer groups them itself.
        self.singles = SingleWrites(units) if units.serialized else None
        # What a credential in a write becomes (refused by default): ``admit`` applies it.
        self.secrets = secrets or SecretGuard()
        # Rows searches read lately, answering only for the version the index holds.
        self.row_cache = row_cache

    def header(self, tenant: str, actor: str) -> EventHeader:
        return self.units.header(tenant, actor)

    def admit(self, tenant: str, record: MemoryRecord, where: str = "") -> Screened:
        """The one gate of every record write (single, batch item, import line, note):
        the tenant's secret policy refuses the record (``secret_detected``), redacts its
        credentials, or lets it through — before any event is built from it."""
        return self.secrets.screen(tenant, record, self.limits, where)

    # --- write / upsert --------------------------------------------------------------------
    @traced("aimem.memory.write")
    def write(
        self,
        who: Who,
        body: Mapping[str, Any],
        *,
        memory_id: str | None = None,
        wait: bool = False,
        preconditions: Preconditions | None = None,
    ) -> WriteResult:
        """Create or upsert one memory as ``who``, who must be allowed to write in its
        scope — and in the stored memory's scope, asked before anything is said of it
        (``write_in``)."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        annotate({"aimem.tenant": tenant})
        access.require_role(caller, "write")  # before the body is judged: a reader learns nothing
        now = self.clock.now()
        record = parse_record(body, now=now, limits=self.limits, memory_id=memory_id)
        access.require(caller, "write", record.scope)
        screened = self.admit(tenant, record)
        record = screened.record
        explicit = body.get("created_at") is not None
        if self.singles is not None and not self.units.open_here():
            result = self.singles.write(
                tenant,
                SingleWrite(
                    record,
                    explicit,
                    preconditions,
                    authorize=lambda scope: access.require(caller, "write", scope),
                    context=contextvars.copy_context(),
                ),
            )
        else:
            result = self.units.run(
                tenant,
                record.source_agent,
                caller=caller,
                step=lambda uow: write_in(
                    uow,
                    record,
                    explicit_created=explicit,
                    preconditions=preconditions,
                    authorize=lambda scope: access.require(caller, "write", scope),
                ),
            )
        if screened.redacted:
            result = replace(result, redacted=screened.redacted)
        if wait:
            self.wait_for(result.position)
        return result

    @traced("aimem.memory.write_many")
    def write_many(
        self, who: Who, bodies: Sequence[Any], *, wait: bool = False
    ) -> list[ItemResult]:
        """Upsert up to ``MAX_BATCH_ITEMS`` memories in one unit of work and one append;
        each item answers for itself (``batch_write``): a caller that may never write is
        refused whole, an item in a scope it may not write is refused on its own."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        annotate({"aimem.tenant": tenant, "aimem.items": len(bodies)})
        access.require_role(caller, "write")
        results = batch_write.write_many(
            self.units,
            tenant,
            bodies,
            now=self.clock.now(),
            limits=self.limits,
            authorize=lambda record: access.require(caller, "write", record.scope),
            admit=lambda record, where: self.admit(tenant, record, where),
        )
        if wait:
            self.wait_for_all(batch_write.positions_to_wait(results))
        return results

    # --- read ------------------------------------------------------------------------------
    @traced("aimem.memory.get")
    def get(
        self,
        who: Who,
        memory_id: str,
        *,
        min_position: int = 0,
        to: Literal["read", "forget"] = "read",
    ) -> StoredRecord:
        """One memory by id, as ``who`` may learn of it (``access.reveal``); ``to``:
        ``forget`` shows it to a caller about to forget it, judged as for the forget."""
        caller = access.caller_of(who)
        annotate({"aimem.tenant": caller.tenant})
        access.require_role(caller, to)
        check_utf8(memory_id, "id")  # a store cannot even look up what UTF-8 cannot encode
        if min_position:
            self.check_position(min_position)
            self.wait_for(min_position)
        return access.reveal(caller, to, memory_id, self.store.get(caller.tenant, memory_id))

    @traced("aimem.memory.list")
    def list_memories(
        self, who: Who, request: ListRequest | Mapping[str, Any], *, min_position: int = 0
    ) -> MemoryPage:
        """One page of the tenant's memories in id order (``service.listing``), only of
        the scopes ``who`` may read. ``request`` may be the raw parameters of
        ``ListRequest.parse``: they are judged after the caller is, so a caller that may
        not read learns nothing from how its parameters are refused."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        annotate({"aimem.tenant": tenant})
        access.require_role(caller, "read")
        if not isinstance(request, ListRequest):
            request = ListRequest.parse(self.limits, **request)
        request = replace(request, scopes=access.readable(caller, request.scopes))
        if min_position:
            self.check_position(min_position)
            self.wait_for(min_position)
        query = ListQuery(
            tenant,
            scopes=request.scopes,
            types=request.types,
            states=request.states,
            tag=request.tag,
            after=request.after,
            limit=request.limit,
            now=self.clock.now(),  # expired memories are not listed, as in search
        )
        page = self.store.list_records(query)
        return MemoryPage.of(page.items, page.next_after)

    # --- delete ----------------------------------------------------------------------------
    @traced("aimem.memory.delete")
    def delete(
        self,
        who: Who,
        memory_id: str,
        *,
        actor: str,
        reason: str = "user_request",
        wait: bool = False,
        preconditions: Preconditions | None = None,
    ) -> DeleteResult:
        """Forget one memory as ``who`` (``actor`` is recorded when the caller is not a
        key). A key limited to some scopes is judged in the stored scope before anything
        is said of the memory (forgotten already, its version)."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        annotate({"aimem.tenant": tenant})
        access.require_role(caller, "forget")
        actor = access.actor_of(caller, actor)
        # Callers other than HTTP (MCP, A2A, the SDK) can send any JSON string.
        for value, name in ((memory_id, "id"), (actor, "actor"), (reason, "reason")):
            check_utf8(value, name)
        if access.limited(caller):  # whose memory is it? (a missing one: 404, as for all)
            access.judge(caller, "forget", self.store.get(tenant, memory_id))
        # The reason is free text on the log: the tenant's secret policy applies to it too.
        reason, _ = self.secrets.text(tenant, "reason", reason)
        result = self.units.run(
            tenant,
            actor,
            caller=caller,
            step=lambda uow: delete_in(
                uow,
                memory_id,
                reason=reason,
                preconditions=preconditions,
                authorize=lambda scope: access.require(caller, "forget", scope),
            ),
        )
        if wait and not result.already_forgotten:
            self.wait_for(result.position)
        return result

    # --- search ----------------------------------------------------------------------------
    @traced("aimem.memory.search")
    def search(self, who: Who, request: SearchRequest, *, min_position: int = 0) -> list[SearchHit]:
        """Hybrid search as ``who``: only in the scopes it may read."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        annotate({"aimem.tenant": tenant, "aimem.search.mode": request.mode})
        request = replace(request, scopes=access.readable(caller, request.scopes))
        if min_position:
            self.check_position(min_position)
            self.wait_for(min_position)
        now = self.clock.now()
        dense = self.embedder.embed([request.query])[0] if request.mode != "keyword" else None
        sparse = query_terms(request.query) if request.mode != "semantic" else None
        at = TimePoint(request.as_of, request.known_at)
        travel = None if at.is_now else TimeTravel(self.store, tenant, at)
        periods = (
            named_periods(request.query, request.as_of or now)
            if request.dates and request.mode == "hybrid"
            else ()
        )
        # Stage 1 recalls K candidates (more than asked: a hit can vanish between index
        # and store, and the rerank needs room to reorder); stage 2 reranks them.
        recall_k = max(self.ranking.recall_k, request.top_k) if request.rerank else request.top_k
        with span("aimem.index.search", {"aimem.limit": recall_k + 5}):
            hits = self._recall(
                IndexQuery(
                    tenant=tenant,
                    dense=dense,
                    sparse=sparse,
                    now=now,
                    limit=recall_k + 5,
                    scopes=request.scopes,
                    types=request.types,
                    tags=request.tags,
                    # At another time, today's state says nothing: ask for every state and
                    # judge each candidate by its lineage below.
                    states=request.states if at.is_now else tuple(MemoryState),
                    mode=request.mode,
                    context=request.context,
                    periods=tuple((p.start.timestamp(), p.end.timestamp()) for p in periods),
                )
            )
        reads = SearchReads(self.store, self.ranking, self.row_cache)
        if travel is None:
            results = reads.kept(tenant, hits, request, now)
        else:
            results = reads.then(tenant, hits, request, now, travel)
        annotate({"aimem.results": len(results)})
        if self.recalls is not None and results:
            self.recalls.record(
                tenant, [(h.stored.record.scope, h.stored.record.id) for h in results]
            )
        return results

    def _recall(self, query: IndexQuery) -> list[IndexHit]:
        hits = self.index.search(query)
        annotate({"aimem.candidates": len(hits)})
        return hits

    # --- read-your-writes ------------------------------------------------------------------
    def check_position(self, position: int, field_name: str = "min_position") -> None:
        self.units.check_position(position, field_name)

    def wait_for(self, position: int, timeout: float | None = None) -> None:
        self.units.wait_for(position, timeout)

    async def wait_for_async(self, position: int, timeout: float | None = None) -> None:
        """``wait_for`` on the event loop: the wait holds no worker thread."""
        await self.units.wait_for_async(position, timeout)

    def wait_for_all(self, positions: Sequence[int]) -> None:
        """``wait_for`` each position (of different partitions), within one timeout."""
        self.units.wait_for_all(positions)

    async def wait_for_all_async(self, positions: Sequence[int]) -> None:
        """``wait_for_all`` on the event loop."""
        deadline = time.monotonic() + self.wait_timeout
        for position in positions:
            await self.wait_for_async(position, max(0.0, deadline - time.monotonic()))
