"""Decide and append one write or one forget inside a unit of work.

Every use case that writes or forgets memories composes these two steps inside its own
unit of work (which holds the lock and the heads): a single write or delete, a batch, a
note save or "off", an erasure. They need nothing but the unit: the caller's judgement
comes in as ``authorize(scope)``, asked under the lock about the stored memory's scope
before anything is said of it.

``Writing`` is what such a use case is given (notes, import, erasure): the units, the
records view it reads, the tenant's secret policy, the limits and the clock — never the
memory service itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ai_memory.core.decide import decide_delete, decide_write, with_created_at_from
from ai_memory.core.ports import Clock, RecordStore
from ai_memory.core.preconditions import Preconditions
from ai_memory.core.record import Limits, MemoryRecord, MemoryState

from .secret_policy import SecretGuard
from .unit_of_work import UnitOfWork, UnitsOfWork


@dataclass(frozen=True)
class Writing:
    """What a use case that decides writes needs, and nothing more."""

    units: UnitsOfWork  # the lock, the heads, the append pipeline, the waits
    store: RecordStore  # the records view (quotas, what an import or erasure reads)
    secrets: SecretGuard  # the tenant's secret policy, screened before any event
    limits: Limits
    clock: Clock


@dataclass(frozen=True)
class WriteResult:
    record: MemoryRecord  # as decided (identical to what the projections will hold)
    version: int
    state: MemoryState
    position: int
    created: bool
    changed: bool
    redacted: tuple[str, ...] = ()  # fields whose credentials were redacted (secret policy)

    def to_json(self) -> dict[str, Any]:
        body = self.record.to_json()
        body.update({"version": self.version, "state": self.state.value})
        out = {
            "record": body,
            "position": self.position,
            "created": self.created,
            "changed": self.changed,
        }
        if self.redacted:  # only then: an answer without redactions is as it always was
            out["redacted"] = list(self.redacted)
        return out


@dataclass(frozen=True)
class DeleteResult:
    memory_id: str
    position: int
    already_forgotten: bool


def write_in(
    uow: UnitOfWork,
    record: MemoryRecord,
    *,
    explicit_created: bool,
    preconditions: Preconditions | None = None,
    authorize: Callable[[str], None] | None = None,
) -> WriteResult:
    """Decide and append one write inside ``uow`` (which holds the lock); the
    conditions are judged against the head this very decision sees."""
    head = uow.heads([record.id]).get(record.id)
    if authorize is not None and head is not None and head.scope != record.scope:
        # Before anything is said about the stored memory (its version, its scope,
        # that it was forgotten): a caller who may not write where it lives learns
        # nothing of it.
        authorize(head.scope)
    if preconditions is not None:
        preconditions.check(head, record.id)
    record = with_created_at_from(record, head, explicit=explicit_created)
    outcome = decide_write(record, head, uow.header(record.source_agent))
    if outcome.event is None:
        position = outcome.position or 0
    else:
        (position,) = uow.append([outcome.event])
    return WriteResult(
        record=record,
        version=outcome.version,
        state=MemoryState.ACTIVE,
        position=position,
        created=head is None,
        changed=outcome.event is not None,
    )


def delete_in(
    uow: UnitOfWork,
    memory_id: str,
    *,
    reason: str,
    preconditions: Preconditions | None = None,
    authorize: Callable[[str], None] | None = None,
) -> DeleteResult:
    """Decide and append one forget inside ``uow`` (which holds the lock);
    ``authorize(scope)`` judges the caller in the memory's scope, under the lock."""
    head = uow.heads([memory_id]).get(memory_id)
    if authorize is not None and head is not None:
        authorize(head.scope)
    if preconditions is not None:
        preconditions.check(head, memory_id)
    event = decide_delete(memory_id, None, head, uow.header(), reason=reason)
    if event is None:
        assert head is not None
        return DeleteResult(memory_id, head.position, already_forgotten=True)
    (position,) = uow.append([event])
    return DeleteResult(memory_id, position, already_forgotten=False)
