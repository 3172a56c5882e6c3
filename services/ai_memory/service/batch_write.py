"""Writing many memories in one request: validated item by item, decided in one unit of
work, appended with one call.

Each item is an upsert as ``PUT /v1/memories/{id}`` does it (same content → unchanged,
a forgotten id → 410, another scope → 409), and each answers for itself: a bad item is
refused with its own problem and the others still land. The whole batch is decided under
one lock against heads read once, so a memory written twice in one batch gets versions
1 and 2, the second decided on the first; and the events go to the log in one
``append``, which the log turns into one transaction (SQLite) or one producer batch
(Kafka). If the log refuses the batch as a whole, each event is appended on its own so
the one it cannot take is reported on its item.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ai_memory.core.decide import decide_write, with_created_at_from
from ai_memory.core.errors import (
    AiMemoryError,
    Conflict,
    Forbidden,
    Gone,
    InvalidInput,
    NotFound,
    PermanentError,
    RetryableError,
)
from ai_memory.core.events import Head, MemoryWritten
from ai_memory.core.heads import head_update
from ai_memory.core.positions import partition_of
from ai_memory.core.record import Limits, MemoryRecord, parse_record, validate_id
from ai_memory.core.secrets import find_secrets
from ai_memory.service.secret_policy import SECRET_DETECTED, Screened
from ai_memory.service.unit_of_work import UnitOfWork, UnitsOfWork

logger = logging.getLogger(__name__)

#: Items in one batch. Bodies are bounded in bytes by the edge (``AIMEM_MAX_BODY_BYTES``);
#: this bounds the work one request does under the write lock whatever their size.
MAX_BATCH_ITEMS = 1000
#: The actor of the unit of work; each event's header names its item's ``source_agent``.
BATCH_ACTOR = "api"

# The status each refusal answers with, as on the single-memory routes.
_STATUS: tuple[tuple[type[AiMemoryError], int], ...] = (
    (InvalidInput, 422),
    (Forbidden, 403),
    (NotFound, 404),
    (Gone, 410),
    (Conflict, 409),
)
_TITLES = {
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    410: "Gone",
    422: "Unprocessable Content",
}


@dataclass(frozen=True)
class ItemResult:
    """What became of one item: written (201 created, 200 updated or unchanged) or
    refused (``error``, with the status the single-memory route would answer)."""

    index: int
    status: int
    id: str | None = None
    version: int | None = None
    changed: bool | None = None
    position: int | None = None
    error: AiMemoryError | None = None
    redacted: tuple[str, ...] = ()  # fields whose credentials were redacted (secret policy)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"index": self.index, "status": self.status}
        if self.id is not None:
            body["id"] = self.id
        if self.error is not None:
            body["problem"] = item_problem(self.error, self.status)
            return body
        body.update({"version": self.version, "changed": self.changed, "position": self.position})
        if self.redacted:
            body["redacted"] = list(self.redacted)
        return body


def batch_report(results: Sequence[ItemResult]) -> dict[str, Any]:
    """The answer to a batch: every item's result in input order, and the totals."""
    return {
        "results": [r.to_json() for r in results],
        "written": sum(1 for r in results if r.ok and r.changed),
        "unchanged": sum(1 for r in results if r.ok and not r.changed),
        "rejected": sum(1 for r in results if not r.ok),
        "position": newest_position(results),
    }


def newest_position(results: Sequence[ItemResult]) -> int:
    """The highest position of the batch's items (0: nothing written or found)."""
    return max((r.position or 0 for r in results if r.ok), default=0)


def positions_to_wait(results: Sequence[ItemResult]) -> list[int]:
    """What read-your-writes waits for so that every item is readable: the newest
    position of each partition the items landed on, highest first. On a partitioned log
    (Kafka) positions of different partitions are not ordered, so the highest alone would
    cover one partition only; on the embedded log, where every position is of partition
    0, the first wait covers them all and the others return at once."""
    newest: dict[int, int] = {}
    for r in results:
        if r.ok and r.position:
            part = partition_of(r.position)
            newest[part] = max(newest.get(part, 0), r.position)
    return sorted(newest.values(), reverse=True)


def item_problem(error: AiMemoryError, status: int) -> dict[str, Any]:
    """An item's refusal in the shape of the API's problem+json (without a request id:
    the request as a whole succeeded). Quoted input is escaped so the answer encodes."""
    problem: dict[str, Any] = {
        "type": f"urn:ai-memory:problem:{error.code}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "code": error.code,
        "detail": _printable(error.message),
    }
    if isinstance(error, InvalidInput):
        problem["field"] = _printable(error.field)
        problem["rule"] = _printable(error.rule)
    return problem


def check_batch(items: object) -> Sequence[Any]:
    """Refuse a request that is not a batch at all (the items are judged one by one)."""
    if not isinstance(items, list | tuple):
        raise InvalidInput("items", "array", "items must be a JSON array of memories")
    if len(items) > MAX_BATCH_ITEMS:
        raise InvalidInput(
            "items",
            "max_items",
            f"a batch holds at most {MAX_BATCH_ITEMS} items; this one has {len(items)}. "
            "Split it into several batches.",
            code="batch_too_large",
        )
    return items


@dataclass
class _Pending:
    """A decided write waiting for its position from the log."""

    index: int
    event: MemoryWritten
    created: bool
    position: int | None = None
    error: AiMemoryError | None = None


@dataclass(frozen=True)
class _SameAs:
    """An unchanged item whose head was decided earlier in this batch: it lands (or not)
    with that pending write."""

    index: int
    pending: _Pending
    version: int


def write_many(
    units: UnitsOfWork,
    tenant: str,
    bodies: object,
    *,
    now: datetime,
    limits: Limits,
    authorize: Callable[[MemoryRecord], None] | None = None,
    admit: Callable[[MemoryRecord, str], Screened] | None = None,
) -> list[ItemResult]:
    """Upsert every item of ``bodies``; one result per item, in input order.

    ``authorize`` raises ``Forbidden`` for an item the caller may not write (its scope):
    that item is refused with 403 and the others go on. ``admit`` applies the secret
    policy to an item (``MemoryService.admit``): one with a credential it refuses fails
    with ``secret_detected`` naming ``items[<i>].<field>``, and the others go on."""
    items = check_batch(bodies)
    results: dict[int, ItemResult] = {}
    parsed: list[tuple[int, MemoryRecord, bool]] = []
    redacted: dict[int, tuple[str, ...]] = {}
    # Validation needs no lock: only deciding and appending hold it.
    for index, body in enumerate(items):
        try:
            if not isinstance(body, Mapping):
                raise InvalidInput("item", "json_object", "each item must be a JSON object")
            record = parse_record(body, now=now, limits=limits)
        except InvalidInput as e:
            results[index] = _refused(index, e, _valid_id(body, limits))
            continue
        if authorize is not None:
            try:
                authorize(record)
            except Forbidden as e:
                results[index] = _refused(index, e, record.id)
                continue
        if admit is not None:
            try:
                screened = admit(record, f"items[{index}].")
            except InvalidInput as e:
                # A credential in the id is not echoed back as the item's id.
                named = e.code != SECRET_DETECTED or not e.field.endswith(".id")
                results[index] = _refused(index, e, record.id if named else None)
                continue
            record = screened.record
            if screened.redacted:
                redacted[index] = screened.redacted
        parsed.append((index, record, body.get("created_at") is not None))
    if parsed:
        with units.begin(tenant, BATCH_ACTOR) as uow:
            results |= _decide_and_append(uow, parsed, authorize)
    for index, fields in redacted.items():
        if results[index].ok:
            results[index] = replace(results[index], redacted=fields)
    return [results[i] for i in range(len(items))]


def _decide_and_append(
    uow: UnitOfWork,
    parsed: Sequence[tuple[int, MemoryRecord, bool]],
    authorize: Callable[[MemoryRecord], None] | None = None,
) -> dict[int, ItemResult]:
    results: dict[int, ItemResult] = {}
    heads: dict[str, Head] = uow.heads([record.id for _, record, _ in parsed])
    decided_by: dict[str, _Pending] = {}  # memory id → its latest write in this batch
    pending: list[_Pending] = []
    same_as: list[_SameAs] = []
    for index, record, explicit_created in parsed:
        head = heads.get(record.id)
        record = with_created_at_from(record, head, explicit=explicit_created)
        try:
            if authorize is not None and head is not None and head.scope != record.scope:
                # As a single write (MemoryService.write_in): an item aimed at a memory
                # of a scope the caller may not write learns nothing of it.
                authorize(replace(record, scope=head.scope))
            outcome = decide_write(record, head, uow.header(record.source_agent))
        except PermanentError as e:
            results[index] = _refused(index, e, record.id)
            continue
        if outcome.event is None:
            earlier = decided_by.get(record.id)
            if earlier is not None:
                same_as.append(_SameAs(index, earlier, outcome.version))
            else:
                results[index] = ItemResult(
                    index, 200, record.id, outcome.version, False, outcome.position or 0
                )
            continue
        write = _Pending(index, outcome.event, created=head is None)
        pending.append(write)
        decided_by[record.id] = write
        # The next item of this memory in the batch is decided on this one.
        update = head_update(outcome.event)
        assert update is not None  # a MemoryWritten always moves its head
        heads[record.id] = update.head
    _append(uow, pending)
    for write in pending:
        record = write.event.record
        if write.error is not None:
            results[write.index] = _refused(write.index, write.error, record.id)
        else:
            status = 201 if write.created else 200
            results[write.index] = ItemResult(
                write.index, status, record.id, write.event.version, True, write.position
            )
    for item in same_as:
        memory_id = item.pending.event.record.id
        if item.pending.error is not None:
            results[item.index] = _refused(item.index, _lost_predecessor(item.pending), memory_id)
        else:
            results[item.index] = ItemResult(
                item.index, 200, memory_id, item.version, False, item.pending.position
            )
    return results


def _append(uow: UnitOfWork, pending: Sequence[_Pending]) -> None:
    """One append for the whole batch. If the log refuses it for a reason that belongs to
    an event (unprojectable, a concurrent writer), append event by event so the refusal
    lands on its item; a log that is unavailable fails the request (retrying it is safe:
    what did land is unchanged the second time)."""
    if not pending:
        return
    try:
        positions = uow.append([p.event for p in pending])
    except RetryableError:
        raise
    except Exception:
        logger.warning("batch append refused; appending item by item", exc_info=True)
    else:
        for write, position in zip(pending, positions, strict=True):
            write.position = position
        return
    failed: dict[str, _Pending] = {}  # memory id → its write that did not land
    for write in pending:
        memory_id = write.event.record.id
        if memory_id in failed:
            # Decided on a version that never reached the log: refused, not re-decided.
            write.error = _lost_predecessor(failed[memory_id])
            continue
        try:
            (write.position,) = uow.append([write.event])
        except RetryableError:
            raise
        except AiMemoryError as e:
            write.error = e
        except Exception as e:
            logger.warning("batch item %d failed unexpectedly", write.index, exc_info=e)
            write.error = InvalidInput(
                "item",
                "unprocessable",
                f"the item could not be written ({type(e).__name__})",
                code="unprocessable_item",
            )
        if write.error is not None:
            failed[memory_id] = write


def _valid_id(body: object, limits: Limits) -> str | None:
    """The id a refused item named, when it is one (so the caller can match it up) and
    holds no credential (which would be echoed back)."""
    if not isinstance(body, Mapping) or body.get("id") is None:
        return None
    try:
        memory_id = validate_id(body["id"], limits)
    except InvalidInput:
        return None
    return None if find_secrets(memory_id) else memory_id


def _lost_predecessor(earlier: _Pending) -> Conflict:
    return Conflict(
        f"this item was decided on item {earlier.index} of the batch (the same memory), "
        "which was refused; send it again",
        code="batch_predecessor_refused",
    )


def _refused(index: int, error: AiMemoryError, memory_id: str | None = None) -> ItemResult:
    status = next((s for cls, s in _STATUS if isinstance(error, cls)), 422)
    return ItemResult(index, status, memory_id, error=error)


def _printable(text: str) -> str:
    """Text that always encodes: a lone surrogate quoted from the item is escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
