"""Deciding: commands + the current write model (heads) → events, or a refusal.

Pure functions. The caller supplies the clock reading and fresh ids in the header, so a
decision is a deterministic function of its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import Conflict, Gone, NotFound
from .events import EventHeader, Head, MemoryDeleted, MemoryWritten
from .record import MemoryRecord, MemoryState, check_expiry


@dataclass(frozen=True)
class WriteOutcome:
    """``event`` is None when the write changes nothing (idempotent repeat)."""

    event: MemoryWritten | None
    version: int
    position: int | None  # of the unchanged head; the new event's position comes from the log


def decide_write(
    record: MemoryRecord,
    head: Head | None,
    header: EventHeader,
    *,
    cause: str = "api",
    import_batch_id: str | None = None,
    state: MemoryState = MemoryState.ACTIVE,
) -> WriteOutcome:
    if head is not None and head.deleted:
        raise Gone(
            f"memory {record.id!r} was forgotten; forgotten ids are never reused. "
            "Write it under a new id if it is true again.",
            code="memory_forgotten",
        )
    if head is not None and head.scope != record.scope:
        raise Conflict(
            f"memory {record.id!r} belongs to scope {head.scope!r}; a memory never moves "
            "between scopes (delete it and write a new one)",
            code="scope_immutable",
        )
    # Checked here as well as at parsing: an upsert that keeps the stored ``created_at``
    # (``with_created_at_from``) gets a new expiry only now.
    check_expiry(record)
    sha = record.fingerprint()
    if head is not None and head.content_sha256 == sha:
        return WriteOutcome(event=None, version=head.version, position=head.position)
    version = 1 if head is None else head.version + 1
    event = MemoryWritten(
        header=header,
        record=record,
        version=version,
        content_sha256=sha,
        state=state,
        cause=cause,
        import_batch_id=import_batch_id,
    )
    return WriteOutcome(event=event, version=version, position=None)


def decide_delete(
    memory_id: str, scope: str | None, head: Head | None, header: EventHeader, *, reason: str
) -> MemoryDeleted | None:
    """Forget ``memory_id``. Returns None when it is already forgotten.

    ``scope`` is only needed for ids this log has never seen (a tombstone arriving in an
    import must still be recorded so the record can never be imported later)."""
    if head is not None and head.deleted:
        return None
    if head is None and scope is None:
        raise NotFound(f"memory {memory_id!r} does not exist", code="memory_not_found")
    return MemoryDeleted(
        header=header,
        memory_id=memory_id,
        scope=head.scope if head is not None else str(scope),
        reason=reason,
        version=head.version if head is not None else 0,
    )


def with_created_at_from(record: MemoryRecord, head: Head | None, explicit: bool) -> MemoryRecord:
    """An upsert without ``created_at`` keeps the original creation time."""
    if explicit or head is None or head.created_at is None or head.deleted:
        return record
    return replace(record, created_at=head.created_at)
