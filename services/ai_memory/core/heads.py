"""The write model: what each append expects of a memory's head, and the single
writer's check of it.

An embedded log keeps heads in the same transaction as its appends. On Kafka, the one
writer of a partition holds its heads in memory (``adapters.kafka.partition_writer``) and
admits an append only if every head it moves is still where the decision saw it
(``admit``): if another writer moved it first, the append is refused with
``Conflict(code="concurrent_write")`` — so two gateways never both create version N+1 —
while a retried append of the same event is recognised by its event id.

Expected versions follow from the event itself: a ``MemoryWritten`` of version v expects
v-1 (0 = the memory must not exist); a ``MemoryDeleted`` of version v expects a live v.
"""

from __future__ import annotations

from dataclasses import dataclass

from .events import DomainEvent, Head, MemoryDeleted, MemoryWritten


@dataclass(frozen=True)
class HeadUpdate:
    tenant: str
    head: Head  # the new head; position is filled in after the append
    expected_version: int
    expect_live: bool
    event_id: str


def head_update(event: DomainEvent) -> HeadUpdate | None:
    """The compare-and-set an event needs, or None for events that move no head."""
    if isinstance(event, MemoryWritten):
        r = event.record
        head = Head(r.id, r.scope, event.version, event.content_sha256, False, 0, r.created_at)
        return HeadUpdate(event.header.tenant, head, event.version - 1, True, event.header.event_id)
    if isinstance(event, MemoryDeleted):
        head = Head(event.memory_id, event.scope, event.version, "", True, 0, None)
        return HeadUpdate(
            event.header.tenant, head, event.version, event.version > 0, event.header.event_id
        )
    return None


@dataclass(frozen=True)
class Admitted:
    """The update applies: the event is new and moves the head."""


@dataclass(frozen=True)
class AlreadyOnLog:
    """A retried event: the head was set by this very event, which sits at ``position``."""

    position: int


@dataclass(frozen=True)
class Refused:
    """Another writer moved the head first; nothing of the append may be produced."""

    current_version: int | None


Verdict = Admitted | AlreadyOnLog | Refused


def admit(update: HeadUpdate, current: Head | None, current_event_id: str | None) -> Verdict:
    """The single writer's compare-and-set, as a pure function of the head it holds.

    ``expected_version`` 0 means "the memory must not exist yet"; otherwise the head must
    be at that version and live (or forgotten, for ``expect_live=False``). A head set by the
    same event id is a retry, recognised instead of refused. An event superseded by a
    later one of the same memory is refused: its retry cannot be told from a stale write.
    """
    if current is not None and current_event_id == update.event_id:
        return AlreadyOnLog(current.position)
    if update.expected_version == 0:
        matches = current is None
    else:
        matches = (
            current is not None
            and current.version == update.expected_version
            and current.deleted == (not update.expect_live)
        )
    if matches:
        return Admitted()
    return Refused(None if current is None else current.version)
