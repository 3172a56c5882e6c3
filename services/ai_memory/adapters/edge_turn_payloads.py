"""The turn fields of the points searches name, kept converted between searches.

Conversation context reads a few dozen points' turn fields per search (``index_payload.
TURN_FIELDS``: the kept hits' to pick seeds and name memories, their neighbours' to order
them), and Qdrant Edge's binding converts each point's payload into a new dictionary on
every read: ≈ 17 µs a point in bulk, ≈ 8 µs in a scroll of 50, where the same scroll
without payloads costs a third of it (``loadtest/RESULTS.md``, "Turn fields kept between
searches"). So the adapter keeps them, the most recently used ``capacity`` points
(≈ 600 bytes each): an apply puts the fields of the points it writes (it has them, no
conversion), a search keeps what it had to read, and the adapter warms the cache from the
shard in the background after it opens (``warm``, a page at a time).

Consistency with concurrent applies (which share the adapter's read lock with searches):
``of`` and ``warm`` hold this cache's lock from their engine read to storing what they
read, and an apply stores what it wrote under the same lock after its engine update and
before the projection's checkpoint moves. A read that began before an update either saw
it or stored the older fields before the apply's, which then replace them; a read that
began after the apply stored sees the update. No field older than an apply outlives it,
and a search that waited for a position never reads one.
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

_TURN_PAYLOAD = qe.PayloadSelector.Include(list(ip.TURN_FIELDS))
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
    for name in ip.TURN_FIELDS:
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
        ones it was given (no engine read, no conversion), a state change moves a kept
        point's position."""
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
                    known[key] = {**payload, ip.F_POSITION: sw.position}
            while len(known) > self._capacity:
                known.popitem(last=False)

    def warm(self, shard: qe.EdgeShard, offset: Any, page: int) -> Any:
        """Keep the fields of one page of the shard's points (in id order from
        ``offset``) that nothing newer put here; the next page's offset, ``None`` at the
        end or once full."""
        with self._lock:
            known = self._of
            records, offset = shard.scroll(
                qe.ScrollRequest(limit=page, offset=offset, with_payload=_TURN_PAYLOAD)
            )
            for point in records:
                if point.payload:
                    known.setdefault(point_key(point.id), _kept(point.payload))
            return None if len(known) >= self._capacity else offset

    def clear(self) -> None:
        with self._lock:
            self._of.clear()
