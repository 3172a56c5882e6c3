"""The projector: a pure function from a logged event to mutations of the read models.

Two read models consume the same events independently, each with its own checkpoint:

* ``records`` — the RecordStore: current record per id, tombstones, states, read counts
* ``index``   — the VectorIndex: one point per live memory (dense + sparse vectors)

Mutations carry the log position they reflect. Sinks apply a mutation only when its
position is newer than what they hold, so re-applying an event, replaying the whole log,
or a duplicate delivery changes nothing (exactly-once effect on at-least-once delivery).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .errors import InvalidInput
from .events import (
    InteractionRecorded,
    LoggedEvent,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    SubjectErased,
)
from .record import MemoryRecord, MemoryState, StoredRecord, Tombstone, safe_name


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


@dataclass(frozen=True)
class LineageEntry:
    """One fact in a memory's history: how it was written, changed state, superseded
    another memory, or was forgotten — with the rule or decision behind it. Never holds
    content."""

    tenant: str
    memory_id: str
    position: int
    at: datetime
    kind: str  # written | state_changed | supersedes | deleted
    detail: dict[str, Any]


@dataclass(frozen=True)
class PutLineage:
    entry: LineageEntry


RecordMutation = PutRecord | RemoveRecord | PutTombstone | SetState | AddReads | PutLineage


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
    return [*_records(logged), *(PutLineage(e) for e in lineage_of(logged))]


def lineage_of(logged: LoggedEvent) -> list[LineageEntry]:
    """The lineage entries an event adds (pure; part of the records projection)."""
    event, pos = logged.event, logged.position
    at, tenant = event.header.occurred_at, event.header.tenant
    match event:
        case MemoryWritten():
            detail: dict[str, Any] = {
                "version": event.version,
                "state": event.state.value,
                "cause": event.cause,
                "actor": event.header.actor,
            }
            if event.import_batch_id:
                detail["import_batch_id"] = event.import_batch_id
            return [LineageEntry(tenant, event.record.id, pos, at, "written", detail)]
        case MemoryStateChanged():
            decision = _decision(event.decision_json)
            change = {
                "from": event.from_state.value,
                "to": event.to_state.value,
                "cause": event.cause,
                "actor": event.header.actor,
            }
            entries = [
                LineageEntry(
                    tenant,
                    event.memory_id,
                    pos,
                    at,
                    "state_changed",
                    {**change, "decision": decision},
                )
            ]
            by = decision.get("superseded_by") if isinstance(decision, dict) else None
            if isinstance(by, str) and by != event.memory_id:
                entries.append(
                    LineageEntry(
                        tenant, by, pos, at, "supersedes", {"memory_id": event.memory_id, **change}
                    )
                )
            return entries
        case MemoryDeleted():
            detail = {"reason": event.reason, "actor": event.header.actor, "version": event.version}
            return [LineageEntry(tenant, event.memory_id, pos, at, "deleted", detail)]
        case _:
            return []


def _decision(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return {"unparsed": text}


def _records(logged: LoggedEvent) -> list[RecordMutation]:
    event, pos = logged.event, logged.position
    match event:
        case MemoryWritten() if event.sealed:
            return []  # forgotten by destroying its key; the tombstone follows
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
        case MemoriesImported() | InteractionRecorded() | SubjectErased():
            return []


def project_index(logged: LoggedEvent) -> list[IndexMutation]:
    event, pos = logged.event, logged.position
    match event:
        case MemoryWritten() if event.sealed:
            return []  # forgotten by destroying its key; the tombstone follows
        case MemoryWritten():
            return [IndexPut(event.header.tenant, event.record, event.state, pos)]
        case MemoryDeleted():
            return [IndexRemove(event.header.tenant, event.memory_id, pos)]
        case MemoryStateChanged():
            return [IndexSetState(event.header.tenant, event.memory_id, event.to_state, pos)]
        case MemoriesRecalled() | MemoriesImported() | InteractionRecorded() | SubjectErased():
            return []


def unprojectable(event_type: str, error: BaseException) -> InvalidInput:
    """The refusal of an event some projection could not apply (the append pipeline's
    projectability proof): the whole append is refused, nothing lands."""
    detail = safe_name(f"{type(error).__name__}: {error}", 300)
    return InvalidInput(
        "event",
        "projectable",
        f"a {event_type} event was refused: a projection could not apply it ({detail})",
        code="unprojectable_event",
    )
