"""Every conversation's turns in time order, held beside a Qdrant Edge shard, so that
conversation context finds a seed's neighbours without asking the engine.

A seed's neighbours are the interactions of its conversation (tenant, scope, session)
nearest it in ``created_at`` that the search's filter admits (``index_payload.
NeighbourQuery``). The engine answers that with an ordered scroll or a window read per
conversation (``edge_reads``), ≈ 0.25–0.5 ms of a search plus the Python around it. Here
each conversation's turns are a sorted list of ``(created_at, point key)``: a side is a
bisection and a walk of a few entries, each checked against the filter with the fields
``TurnPayloads`` keeps (``admits``).

How it stays equal to the engine's answer (``tests/contract/test_edge_neighbour_windows.py``
compares every answer with the ordered scrolls):

- an apply puts what it wrote after the engine holds it and before the projection's
  checkpoint moves (``wrote``: a live interaction enters its conversation, anything else
  leaves it), under this object's lock, as ``TurnPayloads`` does;
- the lists are only used once they hold every point of the shard (``complete``): after
  a warm-up that reads the shard page by page (``warm``) in the background after it opens,
  each page under the lock from its engine read to storing it, and storing only points no
  apply put since; until then every lookup goes to the engine;
- a side is answered only where the walk proves it: ``limit`` admitted turns with every
  turn at the time of the last one walked, or the conversation's end reached. Any other
  side (a filter that admits few turns, a field missing from the cache) goes to the
  engine's ordered scroll.

Memory: ≈ 260 bytes a point (the list entry and the key's place), 26 MB at 100,000
interactions; past ``limit`` turns (2,000,000 by default, ≈ 520 MB) they let go of them
all and the engine's lookups serve that shard until a new one. The warm-up read 100,000
points in 3.0 s (2.2 s of CPU, the kept fields included: ``docs/design/RETRIEVAL.md``,
"Timelines beside the shard").
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import qdrant_edge as qe
from sortedcontainers import SortedList

from . import index_payload as ip
from .edge_turn_payloads import KEPT_FIELDS, TurnPayloads, point_key

# (tenant, scope, session): the points a seed's neighbours can be.
Conversation = tuple[str, str, str | None]
_Entry = tuple[float, str]  # (created_at, point key)
#: Turns held at most (≈ 520 MB); a shard with more is served by the engine's lookups.
DEFAULT_LIMIT = 2_000_000
_KEY_AFTER_ALL = "\U0010ffff"  # sorts after every point key (hex)
_WARM_PAYLOAD = qe.PayloadSelector.Include([ip.F_TENANT, *KEPT_FIELDS])


def conversation_of(payload: Mapping[str, Any]) -> tuple[Conversation, float] | None:
    """The conversation and time of a live interaction's payload; None for anything
    else (another type, a tombstone, a payload without a time)."""
    if payload.get(ip.F_TYPE) != ip.INTERACTION:
        return None
    at = payload.get(ip.F_CREATED_AT)
    tenant, scope = payload.get(ip.F_TENANT), payload.get(ip.F_SCOPE)
    if not isinstance(at, int | float) or isinstance(at, bool):
        return None
    if not isinstance(tenant, str) or not isinstance(scope, str):
        return None
    session = payload.get(ip.F_SESSION)
    return (tenant, scope, session if isinstance(session, str) else None), float(at)


def admits(terms: ip.FilterTerms, payload: Mapping[str, Any], at: float) -> bool:
    """Whether the search filter ``terms`` admits a turn of the seed's conversation: the
    engine's conditions (``edge_reads.conditions``) on the fields a turn can differ in
    from its seed, which the filter admitted — every ``any_of`` field (a list field
    matches when one of its values does), the periods asked for (``[start, end)``) and
    the expiry (a point expired at or before the search's time is out). Tenant, scope,
    session and type are the conversation's."""
    for name, values in terms.any_of:
        value = payload.get(name)
        if isinstance(value, list | tuple):
            if not any(v in values for v in value):
                return False
        elif value not in values:
            return False
    if terms.created_in and not any(start <= at < end for start, end in terms.created_in):
        return False
    expires = payload.get(ip.F_EXPIRES_AT)
    return not (
        isinstance(expires, int | float)
        and not isinstance(expires, bool)
        and expires <= terms.expired_at_or_before
    )


class Timelines:
    """Conversation → its turns sorted by (created_at, key); see the module docstring."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._limit = limit
        self._over = False  # held more than ``limit`` turns: given up until a new shard
        # Plain lists while warming (appended, sorted once at the end), then sorted lists
        # (a plain list's insert moves every later entry: 13 µs at 100,000 turns).
        self._of: dict[Conversation, Any] = {}
        self._where: dict[str, tuple[Conversation, float]] = {}
        self._names: dict[Conversation, Conversation] = {}
        self._complete = False
        self._warming = False  # lists unsorted until the warm-up ends (one sort each)
        self._lock = threading.Lock()

    @property
    def complete(self) -> bool:
        return self._complete

    @property
    def warming(self) -> bool:
        """A warm-up is under way (searches look neighbours up in the engine)."""
        return self._warming

    def __len__(self) -> int:
        return len(self._where)

    # --- keeping them ---------------------------------------------------------------
    def wrote(self, writes: Iterable[tuple[str, ip.PointWrite]]) -> None:
        """Whole points an apply wrote, by point key (state changes move no turn)."""
        with self._lock:
            for key, w in writes:
                self._drop(key)
                if w.dense is not None and (found := conversation_of(w.payload)) is not None:
                    self._put(key, *found)

    def _drop(self, key: str) -> None:
        old = self._where.pop(key, None)
        if old is None:
            return
        conversation, at = old
        entries = self._of[conversation]
        entries.remove((at, key))
        if not entries:
            del self._of[conversation]

    def _put(self, key: str, conversation: Conversation, at: float) -> None:
        if self._over:
            return
        if len(self._where) >= self._limit:
            # Bounded memory: a shard with more turns than this is served by the engine's
            # lookups, as before the timelines, until a new shard (``clear``).
            self._over, self._complete, self._warming = True, False, False
            self._of.clear()
            self._where.clear()
            self._names.clear()
            return
        # One tuple per conversation, shared by its points' places.
        conversation = self._names.setdefault(conversation, conversation)
        entries: Any = self._of.get(conversation)
        if entries is None:
            entries = self._of[conversation] = [] if self._warming else SortedList()
        self._where[key] = (conversation, at)
        if self._warming:
            entries.append((at, key))
        else:
            entries.add((at, key))

    def begin_warm(self) -> None:
        with self._lock:
            self._warming = not self._over
            self._complete = False

    def warm(self, shard: qe.EdgeShard, offset: Any, page: int, payloads: TurnPayloads) -> Any:
        """One page of the shard's points (in id order from ``offset``): the live
        interactions that nothing newer put here join their conversations, and
        ``payloads`` keeps their fields. The next page's offset; at the end (``None``)
        the lists are sorted and complete. After a ``clear`` (the shard was reset: a
        replay) there is nothing left to read."""
        with self._lock:
            if not self._warming:  # cleared meanwhile: a new shard, nothing to read
                return None
            records, offset = shard.scroll(
                qe.ScrollRequest(limit=page, offset=offset, with_payload=_WARM_PAYLOAD)
            )
            keyed = [(point_key(point.id), point.payload) for point in records if point.payload]
            payloads.keep(keyed)
            for key, payload in keyed:
                if key not in self._where and (found := conversation_of(payload)) is not None:
                    self._put(key, *found)
            if self._over:  # given up on this page: nothing more to read
                return None
            if offset is None:
                for conversation, entries in self._of.items():
                    self._of[conversation] = SortedList(entries)
                self._warming = False
                self._complete = True
            return offset

    def clear(self) -> None:
        """An empty shard: nothing to warm, complete at once."""
        with self._lock:
            self._of.clear()
            self._where.clear()
            self._warming = False
            self._complete = True
            self._over = False

    # --- reading them ---------------------------------------------------------------
    def walk(
        self, conversation: Conversation, at: float, before: bool, count: int
    ) -> tuple[list[_Entry], bool]:
        """The conversation's turns strictly before (or after) ``at``, nearest first, at
        least ``count`` of them when there are, and every turn at the time of the last
        one; and whether the walk reached the conversation's end — never, when the
        timelines are not complete (let go of since the caller looked: the side is then
        the engine's to answer)."""
        with self._lock:
            if not self._complete:
                return [], False
            entries = self._of.get(conversation)
            if not entries:
                return [], True
            out: list[_Entry] = []
            if before:
                side = entries.irange(maximum=(at, ""), inclusive=(True, False), reverse=True)
            else:
                side = entries.irange(minimum=(at, _KEY_AFTER_ALL), inclusive=(False, True))
            for entry in side:
                if len(out) >= count and entry[0] != out[-1][0]:
                    return out, False
                out.append(entry)
            return out, True
