"""``HeadStore`` in a dict: compare-and-set under one lock, semantics of
``SqliteHeadStore`` (and so of the Cassandra lightweight transactions)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ai_memory.core.events import Head
from ai_memory.core.heads import HeadUpdate, PositionUpdate

# (tenant, memory_id) -> (head, event id that set it; None when unknown after a revert)
_Key = tuple[str, str]


@dataclass
class HeadBacking:
    heads: dict[_Key, tuple[Head, str | None]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryHeadStore:
    def __init__(self, backing: HeadBacking | None = None) -> None:
        self.backing = backing or HeadBacking()

    def get_many(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        with self.backing.lock:
            found = ((mid, self.backing.heads.get((tenant, mid))) for mid in memory_ids)
            return {mid: row[0] for mid, row in found if row is not None}

    def compare_and_set(self, update: HeadUpdate) -> tuple[bool, str | None]:
        key = (update.tenant, update.head.memory_id)
        with self.backing.lock:
            row = self.backing.heads.get(key)
            if update.expected_version == 0:
                matches = row is None
            else:
                matches = (
                    row is not None
                    and row[0].version == update.expected_version
                    and row[0].deleted == (not update.expect_live)
                )
            if not matches:
                return False, None if row is None else row[1]
            self.backing.heads[key] = (update.head, update.event_id)
        return True, update.event_id

    def compare_and_set_many(self, updates: Sequence[HeadUpdate]) -> list[tuple[bool, str | None]]:
        return [self.compare_and_set(u) for u in updates]

    def set_position(self, tenant: str, memory_id: str, event_id: str, position: int) -> None:
        with self.backing.lock:
            row = self.backing.heads.get((tenant, memory_id))
            if row is not None and row[1] == event_id:
                self.backing.heads[(tenant, memory_id)] = (
                    replace(row[0], position=position),
                    row[1],
                )

    def set_positions(self, items: Sequence[PositionUpdate]) -> None:
        for i in items:
            self.set_position(i.tenant, i.memory_id, i.event_id, i.position)

    def revert(self, update: HeadUpdate, previous: Head | None) -> None:
        key = (update.tenant, update.head.memory_id)
        with self.backing.lock:
            row = self.backing.heads.get(key)
            if row is None or row[1] != update.event_id:
                return  # someone else's head now: never undo it
            if previous is None:
                del self.backing.heads[key]
            else:
                self.backing.heads[key] = (previous, None)

    def close(self) -> None:
        pass
