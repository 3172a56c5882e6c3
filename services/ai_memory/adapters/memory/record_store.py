"""``RecordStore`` in dicts, with the order-safety rules of ``SqliteRecordStore``: every
mutation is guarded by the log position its row reflects. Also a ``UsageSource``, as the
SQLite store is."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from ai_memory.core.listing import ListQuery, RecordPage
from ai_memory.core.projection import (
    AddReads,
    LineageEntry,
    PutLineage,
    PutRecord,
    PutTombstone,
    RecordMutation,
    RemoveRecord,
    SetState,
)
from ai_memory.core.record import StoredRecord, Tombstone
from ai_memory.core.usage import TenantUsage, content_bytes

_Key = tuple[str, str]  # (tenant, memory_id)


@dataclass
class RecordBacking:
    records: dict[_Key, StoredRecord] = field(default_factory=dict)
    # a record's position of its last counted recall (re-delivered recalls count once)
    last_read: dict[_Key, int] = field(default_factory=dict)
    tombstones: dict[_Key, Tombstone] = field(default_factory=dict)
    lineage: dict[_Key, dict[tuple[int, str], LineageEntry]] = field(default_factory=dict)
    checkpoints: dict[int, int] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)


class MemoryRecordStore:
    def __init__(self, backing: RecordBacking | None = None) -> None:
        self.backing = backing or RecordBacking()

    # --- projection side ---------------------------------------------------------------
    def apply(
        self, mutations: Sequence[RecordMutation], *, checkpoint: int, partition: int = 0
    ) -> None:
        b = self.backing
        with b.lock:
            for mutation in mutations:
                self._apply_one(mutation)
            if checkpoint > b.checkpoints.get(partition, 0):
                b.checkpoints[partition] = checkpoint

    def _apply_one(self, mutation: RecordMutation) -> None:
        b = self.backing
        match mutation:
            case PutRecord(stored=s):
                key = (s.tenant, s.record.id)
                grave = b.tombstones.get(key)
                if grave is not None and grave.position > s.position:
                    return  # a write older than the delete must not resurrect it
                old = b.records.get(key)
                if old is None:
                    b.records[key] = replace(s, read_count=0, last_read_at=None)
                elif s.position > old.position:
                    b.records[key] = replace(
                        s, read_count=old.read_count, last_read_at=old.last_read_at
                    )
            case RemoveRecord(tenant=tenant, memory_id=mid, position=pos):
                old = b.records.get((tenant, mid))
                if old is not None and old.position < pos:
                    del b.records[(tenant, mid)]
                    b.last_read.pop((tenant, mid), None)
            case PutTombstone(tombstone=t):
                key = (t.tenant, t.memory_id)
                grave = b.tombstones.get(key)
                if grave is None or t.position > grave.position:
                    b.tombstones[key] = t
            case SetState(tenant=tenant, memory_id=mid, state=state, at=at, position=pos):
                old = b.records.get((tenant, mid))
                if old is not None and old.position < pos:
                    b.records[(tenant, mid)] = replace(
                        old, state=state, updated_at=at, position=pos
                    )
            case PutLineage(entry=e):
                entries = b.lineage.setdefault((e.tenant, e.memory_id), {})
                # detail goes through JSON as it does in every store: no shared mutables
                detail = json.loads(json.dumps(e.detail, ensure_ascii=False, sort_keys=True))
                entries.setdefault((e.position, e.kind), replace(e, detail=detail))
            case AddReads(tenant=tenant, memory_ids=ids, at=at, position=pos):
                for mid in dict.fromkeys(ids):
                    key = (tenant, mid)
                    old = b.records.get(key)
                    if old is not None and b.last_read.get(key, 0) < pos:
                        b.records[key] = replace(
                            old, read_count=old.read_count + 1, last_read_at=at
                        )
                        b.last_read[key] = pos

    def checkpoint(self, partition: int = 0) -> int:
        with self.backing.lock:
            return self.backing.checkpoints.get(partition, 0)

    def reset(self) -> None:
        b = self.backing
        with b.lock:
            for table in (b.records, b.last_read, b.tombstones, b.lineage, b.checkpoints):
                table.clear()

    # --- query side --------------------------------------------------------------------
    def get(self, tenant: str, memory_id: str) -> StoredRecord | Tombstone | None:
        with self.backing.lock:
            key = (tenant, memory_id)
            return self.backing.records.get(key) or self.backing.tombstones.get(key)

    def get_many(
        self, tenant: str, memory_ids: Sequence[str], *, sealed: bool = False
    ) -> dict[str, StoredRecord]:
        with self.backing.lock:
            found = ((mid, self.backing.records.get((tenant, mid))) for mid in memory_ids)
            return {mid: s for mid, s in found if s is not None}

    def unseal(self, tenant: str, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        return list(records)  # nothing sealed here (``SealedRecordStore`` seals)

    def tombstoned(self, tenant: str, memory_ids: Sequence[str]) -> set[str]:
        with self.backing.lock:
            return {mid for mid in memory_ids if (tenant, mid) in self.backing.tombstones}

    def scan_records(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[StoredRecord]:
        with self.backing.lock:
            rows = [
                s
                for (t, _), s in self.backing.records.items()
                if t == tenant and (not scopes or s.record.scope in scopes)
            ]
        return iter(sorted(rows, key=lambda s: s.record.id))

    def scan_tombstones(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[Tombstone]:
        with self.backing.lock:
            rows = [
                g
                for (t, _), g in self.backing.tombstones.items()
                if t == tenant and (not scopes or g.scope in scopes)
            ]
        return iter(sorted(rows, key=lambda g: g.memory_id))

    def count(self, tenant: str) -> int:
        with self.backing.lock:
            return sum(1 for t, _ in self.backing.records if t == tenant)

    def usage(self, tenant: str) -> TenantUsage:
        with self.backing.lock:
            sizes = [
                content_bytes(s.record.content)
                for (t, _), s in self.backing.records.items()
                if t == tenant
            ]
            return TenantUsage(len(sizes), sum(sizes), dict(self.backing.checkpoints))

    def tenants(self) -> list[str]:
        with self.backing.lock:
            return sorted({t for t, _ in [*self.backing.records, *self.backing.tombstones]})

    def list_records(self, query: ListQuery) -> RecordPage:
        with self.backing.lock:
            found = sorted(
                (s for s in self.backing.records.values() if query.matches(s)),
                key=lambda s: s.record.id,
            )
        items = found[: query.limit]
        return RecordPage(items, items[-1].record.id if len(found) > query.limit else None)

    def lineage(self, tenant: str, memory_id: str) -> list[LineageEntry]:
        with self.backing.lock:
            entries = self.backing.lineage.get((tenant, memory_id), {})
            return [entries[k] for k in sorted(entries)]

    def close(self) -> None:
        pass
