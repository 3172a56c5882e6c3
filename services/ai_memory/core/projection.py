"""The projector: a pure function from a logged event to mutations of the read models.

Two read models consume the same events independently, each with its own checkpoint:

* ``records`` — the RecordStore: current record per id, tombstones, states, read counts
* ``index``   — the VectorIndex: one point per live memory (dense + sparse vectors)

Mutations carry the log position they reflect. Sinks apply a mutation only when its
position is newer than what they hold, so re-applying an event, replaying the whole log,
or a duplicate delivery changes nothing (exactly-once effect on at-least-once delivery).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .events import (
    InteractionRecorded,
    LoggedEvent,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
)
from .record import MemoryRecord, MemoryState, StoredRecord, Tombstone


# --- record-store mutations ------------------------------------------------------------
@dataclass(frozen=True)
class PutRecord:
    stored: StoredRecord


@dataclass(frozen=True)
class RemoveRecord:
    tenant: str
    memory_id: str
    position: int


@dataclass(frozen=True)
class PutTombstone:
    tombstone: Tombstone


@dataclass(frozen=True)
class SetState:
    tenant: str
    memory_id: str
    state: MemoryState
    at: datetime
    position: int


@dataclass(frozen=True)
class AddReads:
    tenant: str
    memory_ids: tuple[str, ...]
    at: datetime
    position: int


RecordMutation = PutRecord | RemoveRecord | PutTombstone | SetState | AddReads


# --- index mutations -------------------------------------------------------------------
@dataclass(frozen=True)
class IndexPut:
    tenant: str
    record: MemoryRecord
    state: MemoryState
    position: int


@dataclass(frozen=True)
class IndexRemove:
    tenant: str
    memory_id: str
    position: int


@dataclass(frozen=True)
class IndexSetState:
    tenant: str
    memory_id: str
    state: MemoryState
    position: int


IndexMutation = IndexPut | IndexRemove | IndexSetState


def project_records(logged: LoggedEvent) -> list[RecordMutation]:
    event, pos = logged.event, logged.position
    match event:
        case MemoryWritten():
            return [
                PutRecord(
                    StoredRecord(
                        tenant=event.header.tenant,
                        record=event.record,
                        version=event.version,
                        state=event.state,
                        content_sha256=event.content_sha256,
                        updated_at=event.header.occurred_at,
                        position=pos,
                    )
                )
            ]
        case MemoryDeleted():
            tenant = event.header.tenant
            return [
                RemoveRecord(tenant, event.memory_id, pos),
                PutTombstone(
                    Tombstone(
                        tenant=tenant,
                        memory_id=event.memory_id,
                        scope=event.scope,
                        deleted_at=event.header.occurred_at,
                        reason=event.reason,
                        actor=event.header.actor,
                        position=pos,
                    )
                ),
            ]
        case MemoryStateChanged():
            return [
                SetState(
                    event.header.tenant,
                    event.memory_id,
                    event.to_state,
                    event.header.occurred_at,
                    pos,
                )
            ]
        case MemoriesRecalled():
            return [AddReads(event.header.tenant, event.memory_ids, event.header.occurred_at, pos)]
        case MemoriesImported() | InteractionRecorded():
            return []


def project_index(logged: LoggedEvent) -> list[IndexMutation]:
    event, pos = logged.event, logged.position
    match event:
        case MemoryWritten():
            return [IndexPut(event.header.tenant, event.record, event.state, pos)]
        case MemoryDeleted():
            return [IndexRemove(event.header.tenant, event.memory_id, pos)]
        case MemoryStateChanged():
            return [IndexSetState(event.header.tenant, event.memory_id, event.to_state, pos)]
        case MemoriesRecalled() | MemoriesImported() | InteractionRecorded():
            return []
