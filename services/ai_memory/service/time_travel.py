"""Reading memories at a point of the two times (``core.bitemporal``, ``docs/design/TIME.md``):
the adapter that fetches what the pure rule needs — each memory's lineage, the stated
memories of its exclusive slot, the valid-from of whoever superseded it.

One ``TimeTravel`` serves one request: it caches lineages and slot timelines, so judging
many hits of one scope reads each slot once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ai_memory.core.bitemporal import (
    MemoryHistory,
    known_entries,
    state_at,
    state_known_at,
    superseders,
    valid_to,
    validity_bounds,
    was_stated,
)
from ai_memory.core.governance import GovernanceParams, from_stored
from ai_memory.core.governance.model import META_KEY
from ai_memory.core.governance.slots import is_exclusive
from ai_memory.core.ports import RecordStore
from ai_memory.core.record import MemoryState, StoredRecord
from ai_memory.core.timeparse import parse_timestamp


@dataclass(frozen=True)
class TimePoint:
    """``as_of``: valid time ("what was true then"); ``known_at``: recorded time ("what
    the system believed then"). Both None: now, as stored."""

    as_of: datetime | None = None
    known_at: datetime | None = None

    @property
    def is_now(self) -> bool:
        return self.as_of is None and self.known_at is None

    @staticmethod
    def parse(as_of: object = None, known_at: object = None) -> TimePoint:
        """From request values (UTC ISO-8601 or Unix time); a bad one is a 422 naming
        its field."""
        return TimePoint(
            None if as_of is None else parse_timestamp(as_of, field="as_of"),
            None if known_at is None else parse_timestamp(known_at, field="known_at"),
        )


@dataclass
class TimeTravel:
    store: RecordStore
    tenant: str
    at: TimePoint
    params: GovernanceParams = field(default_factory=GovernanceParams)
    _histories: dict[str, MemoryHistory] = field(default_factory=dict)
    _timelines: dict[tuple[str, str], list[MemoryHistory]] = field(default_factory=dict)

    def state(self, stored: StoredRecord) -> MemoryState | None:
        """The memory's state at ``self.at``; None when it is not visible there."""
        history = self.history(stored)
        timeline = (
            self._timeline(stored.record.scope, history.slot)
            if history.slot is not None and self.at.as_of is not None
            else []
        )
        return state_at(
            history,
            as_of=self.at.as_of,
            known_at=self.at.known_at,
            timeline=timeline,
            superseder_valid_from=self._superseder_starts(history),
        )

    def validity(self, stored: StoredRecord) -> tuple[datetime, datetime | None]:
        """(valid-from, valid-to) of the memory as known at ``known_at``; valid-to None
        while nothing has ended it."""
        history = self.history(stored)
        timeline = [] if history.slot is None else self._timeline(stored.record.scope, history.slot)
        starts = self._superseder_starts(history, always=True)
        return history.valid_from, valid_to(history, timeline, starts, self.at.known_at)

    def history(self, stored: StoredRecord) -> MemoryHistory:
        record = stored.record
        cached = self._histories.get(record.id)
        if cached is not None:
            return cached
        slot, value = self._slot_of(stored)
        block = record.meta.get(META_KEY)
        valid_from, declared_to = validity_bounds(record.created_at, record.meta)
        history = MemoryHistory(
            memory_id=record.id,
            valid_from=valid_from,
            declared_valid_to=declared_to,
            expires_at=record.expires_at(),
            entries=self.store.lineage(self.tenant, record.id),
            slot=slot,
            value=value,
            past_state=isinstance(block, dict) and block.get("past_state") is True,
        )
        self._histories[record.id] = history
        return history

    def _timeline(self, scope: str, slot: str) -> list[MemoryHistory]:
        """The stated memories of ``slot`` known at ``known_at``: the slot's states of the
        world, each true until the next one with another value."""
        key = (scope, slot)
        if key not in self._timelines:
            members: list[MemoryHistory] = []
            for peer in self.store.scan_records(self.tenant, scopes=[scope]):
                if self._slot_of(peer)[0] != slot:
                    continue  # before reading its lineage: most of a scope is elsewhere
                history = self.history(peer)
                entries = known_entries(history.entries, self.at.known_at)
                if state_known_at(entries) is not None and was_stated(history, entries):
                    members.append(history)
            self._timelines[key] = members
        return self._timelines[key]

    def _slot_of(self, stored: StoredRecord) -> tuple[str | None, str | None]:
        """(exclusive slot key, normalised value): only an exclusive slot has a timeline
        of states where each one ends the one before."""
        gov = from_stored(stored, self.params)
        if gov.slot is None or not is_exclusive(gov.slot):
            return None, gov.value
        return gov.slot.key(), gov.value

    def _superseder_starts(
        self, history: MemoryHistory, *, always: bool = False
    ) -> dict[str, datetime]:
        if self.at.as_of is None and not always:
            return {}
        starts: dict[str, datetime] = {}
        for by in superseders(known_entries(history.entries, self.at.known_at)):
            other = self.store.get(self.tenant, by)
            if isinstance(other, StoredRecord):
                starts[by] = validity_bounds(other.record.created_at, other.record.meta)[0]
        return starts
