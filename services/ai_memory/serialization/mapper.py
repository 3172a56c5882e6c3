"""Stage 1 of the pipeline: domain event ↔ plain dict shaped like its Avro schema.

The dicts hold only what Avro writes: ``str``, ``int``, ``bytes``, ``None``, lists,
nested dicts, and aware UTC ``datetime`` for ``timestamp-micros`` fields. ``meta`` travels
as compact JSON text with sorted keys, so the same record always encodes to the same bytes.

Reading is tolerant of fields it does not know (a newer writer may add some) and strict
about symbols it must understand (``MemoryType``, ``MemoryState``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ai_memory.core.events import (
    DomainEvent,
    EncryptionEnvelope,
    EventHeader,
    InteractionRecorded,
    MemoriesImported,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
    SubjectErased,
)
from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType
from ai_memory.core.usage import content_bytes

from .errors import UndecodableEvent, UnencodableEvent

EventDict = dict[str, Any]


def _header_to_dict(header: EventHeader) -> EventDict:
    return {
        "event_id": header.event_id,
        "tenant": header.tenant,
        "occurred_at": _aware(header.occurred_at, "occurred_at"),
        "actor": header.actor,
    }


def _header_from_dict(data: Mapping[str, Any]) -> EventHeader:
    return EventHeader(
        event_id=data["event_id"],
        tenant=data["tenant"],
        occurred_at=_utc(data["occurred_at"]),
        actor=data["actor"],
    )


def _aware(value: datetime, field: str) -> datetime:
    if value.tzinfo is None:
        raise UnencodableEvent(f"{field} must be timezone-aware, got a naive datetime")
    return value


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def _meta_json(meta: Mapping[str, Any]) -> str:
    try:
        return json.dumps(
            meta, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    except (TypeError, ValueError) as e:
        raise UnencodableEvent(f"meta must contain only JSON values: {e}") from e


def _record_to_dict(record: MemoryRecord) -> EventDict:
    return {
        "id": record.id,
        "type": str(record.type.value),
        "content": record.content,
        "scope": record.scope,
        "source_agent": record.source_agent,
        "created_at": _aware(record.created_at, "created_at"),
        "ttl": record.ttl,
        "tags": list(record.tags),
        "meta": _meta_json(record.meta),
        "schema_version": record.schema_version,
    }


def _record_from_dict(data: Mapping[str, Any]) -> MemoryRecord:
    meta = json.loads(data["meta"])
    if not isinstance(meta, dict):
        raise ValueError("meta is not a JSON object")
    return MemoryRecord(
        id=data["id"],
        type=MemoryType(data["type"]),
        content=data["content"],
        scope=data["scope"],
        source_agent=data["source_agent"],
        created_at=_utc(data["created_at"]),
        ttl=data["ttl"],
        tags=tuple(data["tags"]),
        meta=meta,
        schema_version=data["schema_version"],
    )


def _envelope_to_dict(envelope: EncryptionEnvelope | None) -> EventDict | None:
    if envelope is None:
        return None
    return {
        "key_id": envelope.key_id,
        "algorithm": envelope.algorithm,
        "nonce": envelope.nonce,
        "ciphertext": envelope.ciphertext,
    }


def _envelope_from_dict(envelope: Mapping[str, Any] | None) -> EncryptionEnvelope | None:
    if envelope is None:
        return None
    return EncryptionEnvelope(
        key_id=envelope["key_id"],
        algorithm=envelope["algorithm"],
        nonce=bytes(envelope["nonce"]),
        ciphertext=bytes(envelope["ciphertext"]),
    )


def _written_to_dict(e: MemoryWritten) -> EventDict:
    return {
        **_header_to_dict(e.header),
        "record": _record_to_dict(e.record),
        "version": e.version,
        "content_sha256": e.content_sha256,
        "state": str(e.state.value),
        "cause": e.cause,
        "import_batch_id": e.import_batch_id,
        "content_bytes": (
            e.content_bytes if e.encryption is not None else content_bytes(e.record.content)
        ),
        "encryption": _envelope_to_dict(e.encryption),
    }


def _written_from_dict(d: Mapping[str, Any]) -> MemoryWritten:
    return MemoryWritten(
        header=_header_from_dict(d),
        record=_record_from_dict(d["record"]),
        version=d["version"],
        content_sha256=d["content_sha256"],
        state=MemoryState(d["state"]),
        cause=d["cause"],
        import_batch_id=d["import_batch_id"],
        encryption=_envelope_from_dict(d["encryption"]),
        content_bytes=d["content_bytes"] if d["encryption"] is not None else None,
    )


def _deleted_to_dict(e: MemoryDeleted) -> EventDict:
    return {
        **_header_to_dict(e.header),
        "memory_id": e.memory_id,
        "scope": e.scope,
        "reason": e.reason,
        "version": e.version,
    }


def _deleted_from_dict(d: Mapping[str, Any]) -> MemoryDeleted:
    return MemoryDeleted(
        header=_header_from_dict(d),
        memory_id=d["memory_id"],
        scope=d["scope"],
        reason=d["reason"],
        version=d["version"],
    )


def _state_changed_to_dict(e: MemoryStateChanged) -> EventDict:
    return {
        **_header_to_dict(e.header),
        "memory_id": e.memory_id,
        "scope": e.scope,
        "from_state": str(e.from_state.value),
        "to_state": str(e.to_state.value),
        "cause": e.cause,
        "decision_json": e.decision_json,
    }


def _state_changed_from_dict(d: Mapping[str, Any]) -> MemoryStateChanged:
    return MemoryStateChanged(
        header=_header_from_dict(d),
        memory_id=d["memory_id"],
        scope=d["scope"],
        from_state=MemoryState(d["from_state"]),
        to_state=MemoryState(d["to_state"]),
        cause=d["cause"],
        decision_json=d["decision_json"],
    )


def _recalled_to_dict(e: MemoriesRecalled) -> EventDict:
    return {**_header_to_dict(e.header), "scope": e.scope, "memory_ids": list(e.memory_ids)}


def _recalled_from_dict(d: Mapping[str, Any]) -> MemoriesRecalled:
    return MemoriesRecalled(
        header=_header_from_dict(d), scope=d["scope"], memory_ids=tuple(d["memory_ids"])
    )


_IMPORT_COUNTS = ("received", "written", "unchanged", "skipped_tombstoned", "rejected")


def _imported_to_dict(e: MemoriesImported) -> EventDict:
    body: EventDict = {**_header_to_dict(e.header), "batch_id": e.batch_id, "source": e.source}
    body.update({name: getattr(e, name) for name in _IMPORT_COUNTS})
    return body


def _imported_from_dict(d: Mapping[str, Any]) -> MemoriesImported:
    return MemoriesImported(
        header=_header_from_dict(d),
        batch_id=d["batch_id"],
        source=d["source"],
        received=d["received"],
        written=d["written"],
        unchanged=d["unchanged"],
        skipped_tombstoned=d["skipped_tombstoned"],
        rejected=d["rejected"],
    )


def _interaction_to_dict(e: InteractionRecorded) -> EventDict:
    return {
        **_header_to_dict(e.header),
        "interaction_id": e.interaction_id,
        "scope": e.scope,
        "source_agent": e.source_agent,
        "session_id": e.session_id,
        "text": e.text,
        "at": _aware(e.at, "at"),
        "extraction_json": e.extraction_json,
        "encryption": _envelope_to_dict(e.encryption),
    }


def _interaction_from_dict(d: Mapping[str, Any]) -> InteractionRecorded:
    return InteractionRecorded(
        header=_header_from_dict(d),
        interaction_id=d["interaction_id"],
        scope=d["scope"],
        source_agent=d["source_agent"],
        session_id=d["session_id"],
        text=d["text"],
        at=_utc(d["at"]),
        extraction_json=d["extraction_json"],
        encryption=_envelope_from_dict(d.get("encryption")),
    )


def _erased_to_dict(e: SubjectErased) -> EventDict:
    return {
        **_header_to_dict(e.header),
        "erasure_id": e.erasure_id,
        "criteria_json": e.criteria_json,
        "reason": e.reason,
        "memory_ids": list(e.memory_ids),
        "interaction_ids": list(e.interaction_ids),
        "key_ids": list(e.key_ids),
        "keys_destroyed_at": None
        if e.keys_destroyed_at is None
        else _aware(e.keys_destroyed_at, "keys_destroyed_at"),
        "kek_versions_destroyed": list(e.kek_versions_destroyed),
    }


def _erased_from_dict(d: Mapping[str, Any]) -> SubjectErased:
    return SubjectErased(
        header=_header_from_dict(d),
        erasure_id=d["erasure_id"],
        criteria_json=d["criteria_json"],
        reason=d["reason"],
        memory_ids=tuple(d["memory_ids"]),
        interaction_ids=tuple(d["interaction_ids"]),
        key_ids=tuple(d["key_ids"]),
        keys_destroyed_at=None if d["keys_destroyed_at"] is None else _utc(d["keys_destroyed_at"]),
        kek_versions_destroyed=tuple(d.get("kek_versions_destroyed", ())),
    )


_ToDict = Callable[[Any], EventDict]
_FromDict = Callable[[Mapping[str, Any]], DomainEvent]

# event class → (event type name, to_dict, from_dict). The name is the Avro record name.
_TABLE: dict[type[Any], tuple[str, _ToDict, _FromDict]] = {
    MemoryWritten: ("MemoryWritten", _written_to_dict, _written_from_dict),
    MemoryDeleted: ("MemoryDeleted", _deleted_to_dict, _deleted_from_dict),
    MemoryStateChanged: ("MemoryStateChanged", _state_changed_to_dict, _state_changed_from_dict),
    MemoriesRecalled: ("MemoriesRecalled", _recalled_to_dict, _recalled_from_dict),
    MemoriesImported: ("MemoriesImported", _imported_to_dict, _imported_from_dict),
    InteractionRecorded: ("InteractionRecorded", _interaction_to_dict, _interaction_from_dict),
    SubjectErased: ("SubjectErased", _erased_to_dict, _erased_from_dict),
}
_BY_NAME: dict[str, _FromDict] = {name: from_dict for name, _, from_dict in _TABLE.values()}

#: Every event type name, which is also the Avro record name of its schema.
EVENT_TYPES: tuple[str, ...] = tuple(name for name, _, _ in _TABLE.values())


class EventMapper:
    """Domain event ↔ plain dict, one pair of functions per event type."""

    def event_type(self, event: DomainEvent) -> str:
        try:
            return _TABLE[type(event)][0]
        except KeyError:
            raise UnencodableEvent(f"not a domain event: {type(event).__name__}") from None

    def to_dict(self, event: DomainEvent) -> EventDict:
        try:
            to_dict = _TABLE[type(event)][1]
        except KeyError:
            raise UnencodableEvent(f"not a domain event: {type(event).__name__}") from None
        return to_dict(event)

    def from_dict(self, name: str, data: Mapping[str, Any]) -> DomainEvent:
        from_dict = _BY_NAME.get(name)
        if from_dict is None:
            raise UndecodableEvent("unmappable", f"no domain event type named {name!r}")
        try:
            return from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise UndecodableEvent("unmappable", f"{name} is not a valid domain event: {e}") from e
