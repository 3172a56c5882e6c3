"""The turn fields of the points searches name, kept converted between searches.

Conversation context reads a few dozen points' turn fields per search (``index_payload.
TURN_FIELDS``: the kept hits' to pick seeds and name memories, their neighbours' to order
them and to check them against the search's filter), and Qdrant Edge's binding converts
each point's payload into a new dictionary on every read: ≈ 17 µs a point in bulk, ≈ 8 µs
in a scroll of 50, where the same scroll without payloads costs a third of it
(``loadtest/RESULTS.md``, "Turn fields kept between searches"). So the adapter keeps them
for the first ``capacity`` points it meets (≈ 600 bytes each), the least recently used
leaving first: an apply puts the fields of the points it writes (it has them: no engine
read, no conversion), a search keeps what it had to read, and a warm-up after the shard
opens keeps what it reads page by page (``keep``, with ``edge_timelines``).

Consistency with concurrent applies (which share the adapter's read lock with searches):
an apply stores what it wrote after its engine update and before the projection's
checkpoint moves. ``of`` holds this cache's lock from its engine read to storing what it
read, so an apply's store comes wholly before (the read then sees the update) or after
(it replaces what the read stored). The warm-up stores only points nothing was stored for
(``setdefault``) and stops once the cache is full, so an older read of it never replaces
an apply's fields. No field older than an apply outlives it, and a search that waited for
a position never reads one.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import qdrant_edge as qe

from . import index_payload as ip

#: Points kept: ≈ 60 MB at ≈ 600 bytes a point. The search's working set (the hits and
#: their neighbours of recent questions) is far smaller; a miss costs an engine read.
DEFAULT_CAPACITY = 100_000

#: What is kept of a point: its turn fields and what a search filter can tell turns of
#: one conversation apart by (``edge_timelines.admits``).
KEPT_FIELDS = (*ip.TURN_FIELDS, ip.F_STATE, ip.F_TAGS, ip.F_EXPIRES_AT)
_TURN_PAYLOAD = qe.PayloadSelector.Include(list(KEPT_FIELDS))
# Values repeated across points, kept once (a scope is shared by many thousand turns).
_SHARED = (ip.F_SCOPE, ip.F_TYPE, ip.F_SESSION)


def point_key(point_id: int | uuid.UUID | str) -> str:
    """A point's key in fusion: ``hex`` costs half of ``str`` for the engine's UUIDs and
    orders them the same way (ties are ordered by key)."""
    return point_id.hex if isinstance(point_id, uuid.UUID) else str(point_id)


def _kept(payload: dict[str, Any]) -> dict[str, Any]:
    """The turn fields of ``payload`` under this module's key strings (the binding makes
    new ones for every point), repeated values interned."""
    kept: dict[str, Any] = {}
    for name in KEPT_FIELDS:
        if name in payload:
            value = payload[name]
            kept[name] = sys.intern(value) if name in _SHARED and type(value) is str else value
    return kept


class TurnPayloads:
    """Point key → turn fields, for the points of one live shard (see the module
    docstring). ``capacity`` 0 keeps nothing: every call reads the engine."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._of: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._of)

    def of(self, shard: qe.EdgeShard, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The turn fields of each of ``keys`` the shard holds with a payload; a key it
        does not hold is left out."""
        out: dict[str, dict[str, Any]] = {}
        missing: dict[str, None] = {}
        with self._lock:
            known = self._of
            for key in keys:
                payload = known.get(key)
                if payload is None:
                    missing[key] = None
                else:
                    known.move_to_end(key)
                    out[key] = payload
            if missing:
                for point in shard.retrieve(list(missing), _TURN_PAYLOAD, False):
                    if point.payload:
                        key = point_key(point.id)
                        out[key] = payload = _kept(point.payload)
                        if self._capacity:
                            known[key] = payload
                while len(known) > self._capacity:
                    known.popitem(last=False)
        return out

    def wrote(self, writes: Iterable[ip.PointWrite], state_writes: Iterable[ip.StateWrite]) -> None:
        """What an apply wrote, after the engine holds it: a written point's fields are the
        ones it was given (no engine read, no conversion), a state change sets a kept
        point's state and position."""
        with self._lock:
            known = self._of
            for w in writes:
                key = w.point_id.replace("-", "")
                known[key] = _kept(w.payload)
                known.move_to_end(key)
            for sw in state_writes:
                key = sw.point_id.replace("-", "")
                payload = known.get(key)
                if payload is not None:  # a new dictionary: a search may hold the old one
                    known[key] = {
                        **payload,
                        ip.F_STATE: sw.state.value,
                        ip.F_POSITION: sw.position,
                    }
            while len(known) > self._capacity:
                known.popitem(last=False)

    def keep(self, records: Iterable[Any]) -> None:
        """Points an engine read returned with their fields (a warm-up's page), kept
        where nothing newer was put and while there is room. The caller holds the read
        from the engine and this call under one lock that applies also take, as ``of``
        does with its own read."""
        with self._lock:
            known = self._of
            for point in records:
                if len(known) >= self._capacity:
                    return
                if point.payload:
                    known.setdefault(point_key(point.id), _kept(point.payload))

    def clear(self) -> None:
        with self._lock:
            self._of.clear()
