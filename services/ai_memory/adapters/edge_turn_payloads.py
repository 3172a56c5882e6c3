"""The turn fields of the points searches name, kept converted between searches.

Conversation context reads a few dozen points' turn fields per search (``index_payload.
TURN_FIELDS``: the kept hits' to pick seeds and name memories, their neighbours' to order
them and to check them against the search's filter), and Qdrant Edge's binding converts
each point's payload into a new dictionary on every read: ≈ 17 µs a point in bulk, ≈ 8 µs
in a scroll of 50, where the same scroll without payloads costs a third of it
(``loadtest/RESULTS.md``, "Conversation context from memory"). So the adapter keeps them
for up to ``capacity`` points (≈ 450 bytes each), the ones kept longest leaving first: an
apply puts the fields of the points it writes (it has them: no engine
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

import itertools
import sys
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import qdrant_edge as qe

from . import index_payload as ip

#: Points kept: ≈ 90 MB at ≈ 450 bytes a point, every point of a 100,000-memory index
#: with room for its growth (at 106,000 points, a 100,000 bound missed once a search in
#: the big scope). A miss costs an engine read.
DEFAULT_CAPACITY = 200_000

#: What is kept of a point: its turn fields and what a search filter can tell turns of
#: one conversation apart by (``edge_timelines.admits``).
KEPT_FIELDS = (*ip.TURN_FIELDS, ip.F_STATE, ip.F_TAGS, ip.F_EXPIRES_AT)
_TURN_PAYLOAD = qe.PayloadSelector.Include(list(KEPT_FIELDS))
# Values repeated across points, kept once (a scope is shared by many thousand turns).
_SHARED = (ip.F_SCOPE, ip.F_TYPE, ip.F_SESSION, ip.F_STATE)


def point_key(point_id: int | uuid.UUID | str) -> str:
    """A point's key in fusion: ``hex`` costs half of ``str`` for the engine's UUIDs and
    orders them the same way (ties are ordered by key)."""
    return point_id.hex if isinstance(point_id, uuid.UUID) else str(point_id)


# A point's kept fields as stored: a tuple in ``KEPT_FIELDS`` order (None where the point
# has none) of strings, numbers and a tuple of tags. The garbage collector stops tracking
# such a tuple at its first pass over it, so a hundred thousand of them add nothing to the
# interpreter's full collections (objects would: 43 → 171 ms a full collection at 100,000
# kept points, holding the interpreter, measured).
_Values = tuple[Any, ...]
_AT = {name: i for i, name in enumerate(KEPT_FIELDS)}
_STATE, _POSITION = _AT[ip.F_STATE], _AT[ip.F_POSITION]


def _values(payload: Mapping[str, Any]) -> _Values:
    out: list[Any] = []
    for name in KEPT_FIELDS:
        value = payload.get(name)
        if type(value) is str and name in _SHARED:
            value = sys.intern(value)
        elif type(value) is list:
            value = tuple(value)
        out.append(value)
    return tuple(out)


class Fields(Mapping[str, Any]):
    """A point's ``KEPT_FIELDS``, read like its payload (a field the point lacks is
    missing; a list field reads as a tuple): a view of the kept tuple, made per read."""

    __slots__ = ("_values",)

    def __init__(self, values: _Values) -> None:
        self._values = values

    def get(self, name: str, default: Any = None) -> Any:
        at = _AT.get(name)
        value = None if at is None else self._values[at]
        return default if value is None else value

    def __getitem__(self, name: str) -> Any:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return (
            name for name, value in zip(KEPT_FIELDS, self._values, strict=True) if value is not None
        )

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"Fields({dict(self)!r})"


def _with_state(values: _Values, state: str, position: int) -> _Values:
    changed = list(values)
    changed[_STATE], changed[_POSITION] = sys.intern(state), position
    return tuple(changed)


class TurnPayloads:
    """Point key → turn fields, for the points of one live shard (see the module
    docstring). ``capacity`` 0 keeps nothing: every call reads the engine. Past the
    capacity the tenth of the points kept longest leaves (first in, first out: a plain
    dictionary costs half of an ordered one's memory per point)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._of: dict[str, _Values] = {}
        self._lock = threading.Lock()
        self._trimmed = False  # once anything left, a warm-up keeps nothing more (``keep``)

    def __len__(self) -> int:
        return len(self._of)

    def _trim(self) -> None:
        known = self._of
        if len(known) > self._capacity:
            excess = len(known) - self._capacity + self._capacity // 10
            for key in list(itertools.islice(known, excess)):
                del known[key]
            self._trimmed = True

    def of(self, shard: qe.EdgeShard, keys: Iterable[str]) -> dict[str, Fields]:
        """The turn fields of each of ``keys`` the shard holds with a payload; a key it
        does not hold is left out."""
        out: dict[str, Fields] = {}
        missing: dict[str, None] = {}
        with self._lock:
            known = self._of
            for key in keys:
                values = known.get(key)
                if values is None:
                    missing[key] = None
                else:
                    out[key] = Fields(values)
            if missing:
                for point in shard.retrieve(list(missing), _TURN_PAYLOAD, False):
                    if point.payload:
                        key = point_key(point.id)
                        values = _values(point.payload)
                        out[key] = Fields(values)
                        if self._capacity:
                            known[key] = values
                self._trim()
        return out

    def wrote(
        self, writes: Iterable[tuple[str, ip.PointWrite]], state_writes: Iterable[ip.StateWrite]
    ) -> None:
        """What an apply wrote (``writes`` by point key), after the engine holds it: a
        written point's fields are the ones it was given (no engine read, no conversion),
        a state change sets a kept point's state and position."""
        with self._lock:
            known = self._of
            for key, w in writes:
                known.pop(key, None)  # to the end: kept longest from now
                known[key] = _values(w.payload)
            for sw in state_writes:
                key = sw.point_id.replace("-", "")
                values = known.get(key)
                if values is not None:
                    known[key] = _with_state(values, sw.state.value, sw.position)
            self._trim()

    def keep(self, found: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        """Points with their fields as an engine read returned them (a warm-up's page),
        kept where nothing was put for them yet, until the cache first fills: a field an
        apply put after that read is never replaced by the older one (an apply that lands
        before the read is in it), nor put back once it left."""
        with self._lock:
            known = self._of
            for key, payload in found:
                if self._trimmed or len(known) >= self._capacity:
                    return
                if key not in known:
                    known[key] = _values(payload)

    def clear(self) -> None:
        with self._lock:
            self._of.clear()
            self._trimmed = False
