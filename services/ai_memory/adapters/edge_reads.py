"""Qdrant Edge reads beyond the search itself: filter conditions, point keys, the payload
indexes searches need, and conversation context's lookups (a kept hit's turn fields, a
seed's nearest turns in time), and what context keeps beside the shard to spare them
(``ContextReads``: turn fields, conversations' timelines, window hints). Split from
``qdrant_edge_index`` so the adapter keeps the shard's life cycle and writes; every
function here runs under the adapter's read lock."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import qdrant_edge as qe

from ..core.conversation_context import Turn
from . import index_payload as ip
from .edge_timelines import Timelines, admits
from .edge_turn_payloads import Fields, TurnPayloads, point_key


def conditions(terms: ip.FilterTerms, *, alone: bool = False) -> tuple[list[Any], list[Any]]:
    """``terms`` as the engine's conditions: (must, must not). ``alone``: every point of
    the shard is the tenant's (``QdrantEdgeIndex._alone``), so its condition, which the
    engine would check on every point it visits (≈ 0.15 ms of a dense search at 100k
    points), is left out."""
    must: list[Any] = (
        [] if alone else [qe.FieldCondition(ip.F_TENANT, match=qe.MatchValue(terms.tenant))]
    )
    must += [
        qe.FieldCondition(name, match=qe.MatchAny(list(values))) for name, values in terms.any_of
    ]
    if terms.created_in:
        ranges: list[Any] = [
            qe.FieldCondition(ip.F_CREATED_AT, range=qe.RangeFloat(gte=start, lt=end))
            for start, end in terms.created_in
        ]
        must.append(ranges[0] if len(ranges) == 1 else qe.Filter(should=ranges))
    must_not: list[Any] = []
    if terms.expired_at_or_before != float("inf"):
        must_not.append(
            qe.FieldCondition(ip.F_EXPIRES_AT, range=qe.RangeFloat(lte=terms.expired_at_or_before))
        )
    return must, must_not


def ensure_field_indexes(shard: qe.EdgeShard) -> None:
    """Every payload index the searches need; a shard made by an older version gets the
    ones it lacks (creating an index reads the points already stored)."""
    have = set(shard.info().payload_schema)
    for name in ip.KEYWORD_INDEXES:
        if name not in have:
            params = qe.KeywordIndexParams(is_tenant=name == ip.F_TENANT)
            shard.update(qe.UpdateOperation.create_field_index(name, params))
    for name in ip.FLOAT_INDEXES:
        if name not in have:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Float))


# Conversation context's lookups. The engine has no batch of ordered reads, so each side of
# each seed was an ordered scroll through the ``created_at`` range index, and such a walk
# checks every point it passes: in a scope whose turns are far apart in time (a small scope
# of a big tenant) it passes hundreds of other points per side. Once one seed of a
# conversation has been looked up that way, the others of the same search read a window of
# time around them instead (one unordered read each, which the engine plans through its
# most selective index), sized from the spacing the first one found. A window's answer is
# used only where it is provably the ordered scroll's: a side with all its turns inside the
# window, the window read whole and no equal ``created_at`` among the turns that decide
# (the engine orders ties by its internal offsets); any other side falls back to the scroll.
WINDOW_LIMIT = 64  # points a window read may return; a window that fills it is not used
WINDOW_MARGIN = 1.5  # a window reaches this many times as far as the first seed's turns

_Found = list[tuple[str, Fields]]
_Conversation = tuple[ip.FilterTerms, str, str | None]
_Named = tuple[str, str, str | None]  # tenant, scope, session


class Reaches:
    """How far each conversation's nearest turns reached in earlier searches (the
    window width its first seed gave them), a bounded few thousand. A search's first seed
    of a conversation known here reads its window with the others' instead of two
    ordered scrolls. Only a hint: a window answers only the sides it proves, so a width
    that turned wrong since (turns added or forgotten, another filter) costs a fallback
    scroll, never a different answer."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._of: OrderedDict[_Named, float] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, conversation: _Named) -> float | None:
        with self._lock:
            width = self._of.get(conversation)
            if width is not None:
                self._of.move_to_end(conversation)
            return width

    def put(self, conversation: _Named, width: float) -> None:
        with self._lock:
            self._of[conversation] = width
            self._of.move_to_end(conversation)
            while len(self._of) > self._size:
                self._of.popitem(last=False)


def neighbours(
    shard: qe.EdgeShard,
    queries: Sequence[ip.NeighbourQuery],
    reaches: Reaches | None = None,
    *,
    alone: bool = False,
    payloads: TurnPayloads | None = None,
    timelines: Timelines | None = None,
) -> list[_Found]:
    """Each query's nearest turns on its side of its seed, nearest first: exactly what one
    ordered scroll per query (``ordered_neighbours``) answers, in fewer or cheaper reads
    (``alone`` as in ``conditions``). With complete ``timelines`` the engine is asked
    only for what they cannot prove. The reads ask the engine for point ids only; their
    turn fields come from ``payloads`` (none: read for this call)."""
    if timelines is not None and timelines.complete:
        return _from_timelines(
            _Filters(shard, payloads or TurnPayloads(0), alone), queries, timelines
        )
    out: list[_Found | None] = [None] * len(queries)
    by_seed: dict[tuple[ip.FilterTerms, Turn], list[int]] = {}
    for number, query in enumerate(queries):
        by_seed.setdefault((query.terms, query.seed), []).append(number)
    filters = _Filters(shard, payloads or TurnPayloads(0), alone)
    reach: dict[_Conversation, float] = {}
    # The windows of a conversation's seeds, all read at once (``_windows``): its later
    # seeds, or all of them when an earlier search says how wide to read (``Reaches``).
    windows: dict[_Conversation, dict[Turn, _Window | None]] = {}
    # Each conversation's seeds not looked up yet, in order.
    pending: dict[_Conversation, list[Turn]] = {}
    for terms, seed in by_seed:
        pending.setdefault((terms, seed.scope, seed.session), []).append(seed)
    for (terms, seed), numbers in by_seed.items():
        conversation = (terms, seed.scope, seed.session)
        later = pending[conversation]  # this seed and the conversation's next ones
        width = reach.get(conversation)
        # A hint only where a window read happens anyway (a later seed of the
        # conversation): a lone seed's two scrolls cost less than one window read.
        if width is None and reaches is not None and conversation not in windows and len(later) > 1:
            width = reaches.get((terms.tenant, seed.scope, seed.session))
        if width is not None:
            read = windows.get(conversation)
            if read is None:
                read = windows[conversation] = _windows(shard, filters, terms, later, width)
            window = read.get(seed)
            if window is not None:
                for number in numbers:
                    query = queries[number]
                    out[number] = _side(window, seed, query.before, query.limit)
        for number in numbers:
            if out[number] is None:
                out[number] = _ordered(shard, filters, queries[number])
        if conversation not in reach:
            farthest = _farthest(seed, [out[n] or [] for n in numbers])
            if farthest > 0.0:
                reach[conversation] = farthest * WINDOW_MARGIN
                if reaches is not None:
                    reaches.put((terms.tenant, seed.scope, seed.session), reach[conversation])
        del later[0]
    return [found or [] for found in out]


#: Turns a timeline walk reads on a side beyond the query's limit (turns a filter leaves
#: out, of another state, tag or period, then still leave the side proven), and how much
#: farther each of the next walks of a side not proven yet reads (``_from_timelines``).
TIMELINE_SLACK = 2
TIMELINE_WIDENING = (1, 8, 64)


def _from_timelines(
    filters: _Filters, queries: Sequence[ip.NeighbourQuery], timelines: Timelines
) -> list[_Found]:
    """``neighbours`` from the conversations' timelines (``edge_timelines``). A walk is
    contiguous from the seed and ends after every turn at its last time, so any turn it
    did not reach is farther than every turn it did: ``limit`` admitted turns among the
    walked ones are the side's answer, and so are fewer when the walk reached the
    conversation's end. A side not proven is walked farther, and scrolled in the end."""
    out: list[_Found | None] = [None] * len(queries)
    pending = list(range(len(queries)))

    def walk(query: ip.NeighbourQuery, widening: int) -> tuple[list[tuple[float, str]], bool]:
        conversation = (query.terms.tenant, query.seed.scope, query.seed.session)
        count = (query.limit + TIMELINE_SLACK) * widening
        return timelines.walk(conversation, query.seed.created_at, query.before, count)

    for widening in TIMELINE_WIDENING:
        walks = {number: walk(queries[number], widening) for number in pending}
        fields = filters.fields(key for entries, _ in walks.values() for _, key in entries)
        unproven: list[int] = []
        for number, (entries, whole) in walks.items():
            query = queries[number]
            admitted = [
                (at, key, payload)
                for at, key in entries
                if (payload := fields.get(key)) is not None and admits(query.terms, payload, at)
            ]
            if whole or len(admitted) >= query.limit:
                out[number] = ip.nearest_first(admitted, query.seed, query.before, query.limit)
            else:
                unproven.append(number)
        if not unproven:
            break
        pending = unproven
    return [
        found if found is not None else _ordered(filters.shard, filters, queries[number])
        for number, found in enumerate(out)
    ]


def ordered_neighbours(
    shard: qe.EdgeShard,
    queries: Sequence[ip.NeighbourQuery],
    payloads: TurnPayloads | None = None,
) -> list[_Found]:
    """One ordered scroll per query: the definition ``neighbours`` must answer as."""
    filters = _Filters(shard, payloads or TurnPayloads(0))
    return [_ordered(shard, filters, query) for query in queries]


class _Filters:
    """A search's queries share its filter (its conditions are built once) and where
    their turns' fields come from (``timed``)."""

    def __init__(self, shard: qe.EdgeShard, payloads: TurnPayloads, alone: bool = False) -> None:
        self._built: dict[ip.FilterTerms, tuple[list[Any], list[Any]]] = {}
        self._alone = alone
        self.shard = shard
        self._payloads = payloads

    def fields(self, keys: Iterable[str]) -> dict[str, Fields]:
        return self._payloads.of(self.shard, keys)

    def timed(self, records: Sequence[Any]) -> list[tuple[float, str, Fields]]:
        """The turns of an engine read of point ids, in its order, with their fields. A
        point forgotten since the read (its fields have no time any more) is left out, as
        a read a moment later would leave it."""
        keys = [point_key(r.id) for r in records]
        found = self._payloads.of(self.shard, keys)
        out: list[tuple[float, str, Fields]] = []
        for key in keys:
            payload = found.get(key)
            if payload is not None:
                at = payload.get(ip.F_CREATED_AT)
                if isinstance(at, int | float) and not isinstance(at, bool):
                    out.append((float(at), key, payload))
        return out

    def __call__(
        self, terms: ip.FilterTerms, seed: Turn, at: qe.RangeFloat | qe.Filter
    ) -> qe.Filter:
        must, must_not = self._built.get(terms) or self._built.setdefault(
            terms, conditions(terms, alone=self._alone)
        )
        session = (
            qe.IsEmptyCondition(ip.F_SESSION)
            if seed.session is None
            else qe.FieldCondition(ip.F_SESSION, match=qe.MatchValue(seed.session))
        )
        return qe.Filter(
            must=[
                *must,
                qe.FieldCondition(ip.F_SCOPE, match=qe.MatchValue(seed.scope)),
                _INTERACTION,
                at if isinstance(at, qe.Filter) else qe.FieldCondition(ip.F_CREATED_AT, range=at),
                session,
            ],
            must_not=must_not or None,
        )


_INTERACTION = qe.FieldCondition(ip.F_TYPE, match=qe.MatchValue(ip.INTERACTION))


def _ordered(shard: qe.EdgeShard, filters: _Filters, query: ip.NeighbourQuery) -> _Found:
    """The side's ``limit`` nearest turns, nearest first, turns at the same time in point
    key order (``nearest_first``). One ordered scroll asks for one turn more than the
    limit: when that one shares its time with the last one kept, the engine chose among
    equals by its internal offsets, so every turn at that time is read (``_at``) and the
    choice is made by key, as a window makes it."""
    seed = query.seed
    side = qe.RangeFloat(lt=seed.created_at) if query.before else qe.RangeFloat(gt=seed.created_at)
    direction = qe.Direction.Desc if query.before else qe.Direction.Asc
    # start_from: the engine walks the range index from the seed's time instead of from
    # one end (2 ms → 0.06 ms a scroll at 100k points in one scope); it is inclusive, so
    # the strict range above still leaves the seed out.
    order = qe.OrderBy(ip.F_CREATED_AT, direction=direction, start_from=seed.created_at)
    records, _ = shard.scroll(
        qe.ScrollRequest(
            limit=query.limit + 1,
            filter=filters(query.terms, seed, side),
            with_payload=False,
            order_by=order,
        )
    )
    found = ip.with_ties_read(
        filters.timed(records), query.limit, lambda time: _at(shard, filters, query, time)
    )
    return ip.nearest_first(found, seed, query.before, query.limit)


def _at(
    shard: qe.EdgeShard, filters: _Filters, query: ip.NeighbourQuery, time: float
) -> list[tuple[float, str, Fields]]:
    """Every turn of the query's conversation at exactly ``time``."""
    out: list[tuple[float, str, Fields]] = []
    offset: Any = None
    while True:
        records, offset = shard.scroll(
            qe.ScrollRequest(
                limit=ip.TIES_PAGE,
                offset=offset,
                filter=filters(query.terms, query.seed, qe.RangeFloat(gte=time, lte=time)),
                with_payload=False,
            )
        )
        out += filters.timed(records)
        if offset is None or not records:
            return out


# A window's turns: (created_at, point key, payload), the seed's own time left out.
_Window = list[tuple[float, str, Fields]]


def _window(
    shard: qe.EdgeShard, filters: _Filters, terms: ip.FilterTerms, seed: Turn, width: float
) -> _Window | None:
    """The turns within ``width`` of the seed, or None when the read could not hold them
    all."""
    at = qe.RangeFloat(gte=seed.created_at - width, lte=seed.created_at + width)
    records, _ = shard.scroll(
        qe.ScrollRequest(limit=WINDOW_LIMIT, filter=filters(terms, seed, at), with_payload=False)
    )
    if len(records) >= WINDOW_LIMIT:
        return None
    return [w for w in filters.timed(records) if w[0] != seed.created_at]


def _windows(
    shard: qe.EdgeShard,
    filters: _Filters,
    terms: ip.FilterTerms,
    seeds: Sequence[Turn],
    width: float,
) -> dict[Turn, _Window | None]:
    """``_window`` of each seed of one conversation, from one read of the union of their
    windows (a search's later seeds mostly share a conversation: one engine call instead
    of one each). A union read that returned less than its limit holds every turn of
    every window, so each seed's window is complete: the turns of the union within the
    very bounds ``_window`` would ask for. A union too full to prove that is read again
    seed by seed."""
    if len(seeds) < 2:
        return {seed: _window(shard, filters, terms, seed, width) for seed in seeds}
    bounds = [(seed.created_at - width, seed.created_at + width) for seed in seeds]
    union = qe.Filter(
        should=[
            qe.FieldCondition(ip.F_CREATED_AT, range=qe.RangeFloat(gte=low, lte=high))
            for low, high in bounds
        ]
    )
    limit = WINDOW_LIMIT * len(seeds)
    records, _ = shard.scroll(
        qe.ScrollRequest(limit=limit, filter=filters(terms, seeds[0], union), with_payload=False)
    )
    if len(records) >= limit:
        return {seed: _window(shard, filters, terms, seed, width) for seed in seeds}
    read = filters.timed(records)
    return {
        seed: [w for w in read if low <= w[0] <= high and w[0] != seed.created_at]
        for seed, (low, high) in zip(seeds, bounds, strict=True)
    }


def _side(window: _Window, seed: Turn, before: bool, limit: int) -> _Found | None:
    """The nearest ``limit`` turns on one side, when the window proves them: ``limit`` of
    them inside it. A turn outside is farther than any inside, and every turn at the time
    of the last one kept is inside too (the window was read whole), so the choice among
    equal times is the one ``index_payload.nearest_first`` makes wherever the turns come from."""
    at = seed.created_at
    if sum(1 for w in window if (w[0] < at if before else w[0] > at)) < limit:
        return None
    return ip.nearest_first(window, seed, before, limit)


def _farthest(seed: Turn, sides: Sequence[_Found]) -> float:
    """How far from the seed its farthest neighbour found is (0: none found)."""
    times = [float(payload[ip.F_CREATED_AT]) for side in sides for _, payload in side]
    return max((abs(t - seed.created_at) for t in times), default=0.0)


class ContextReads:
    """What conversation context keeps beside one shard: the window hints (``Reaches``),
    the points' turn fields (``TurnPayloads``) and the conversations' timelines
    (``Timelines``). The adapter tells it what each apply wrote (``wrote``, after the
    engine holds it and before the checkpoint moves), a new shard (``clear``) and a loaded
    one (``begin_warm``, then ``warm`` page by page)."""

    def __init__(self, turn_cache: int, timeline_limit: int) -> None:
        self.reaches = Reaches()
        self.payloads = TurnPayloads(turn_cache)
        self.timelines = Timelines(timeline_limit)

    def turns(self, shard: qe.EdgeShard, point_ids: Collection[str]) -> dict[str, Fields]:
        return self.payloads.of(shard, point_ids)

    def neighbours(
        self, shard: qe.EdgeShard, queries: Sequence[ip.NeighbourQuery], *, alone: bool
    ) -> list[_Found]:
        return neighbours(
            shard,
            queries,
            self.reaches,
            alone=alone,
            payloads=self.payloads,
            timelines=self.timelines,
        )

    def wrote(self, writes: Sequence[ip.PointWrite], state_writes: Sequence[ip.StateWrite]) -> None:
        keyed = [(w.point_id.replace("-", ""), w) for w in writes]  # one key string each
        self.payloads.wrote(keyed, state_writes)
        self.timelines.wrote(keyed)

    def clear(self) -> None:
        self.payloads.clear()
        self.timelines.clear()

    def warm(self, shard: qe.EdgeShard, offset: Any, page: int) -> Any:
        return self.timelines.warm(shard, offset, page, self.payloads)
