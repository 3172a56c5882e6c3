"""Claiming heads before producing: the write model of a log that cannot be queried by key.

Kafka cannot answer "is event X already on the log?" or "what is the latest version of
memory M?", so before an append produces a ``MemoryWritten``/``MemoryDeleted`` it advances
the memory's head in the ``HeadStore`` with a compare-and-set (``core.heads``). Per event:

* the CAS applies → this append owns the new version; produce it, then record its
  position with ``set_position``; if producing fails, ``revert`` (best effort);
* the CAS does not apply and the stored head carries this very event id → a retried
  append: return the recorded position and produce nothing. If the head has no position
  yet, the first attempt died between claim and delivery (or is still in flight) and the
  event is produced again: a possible duplicate on the log, which idempotent projections
  absorb, is better than an event that may never reach it;
* otherwise another writer got there first → ``Conflict(code="concurrent_write")``, after
  undoing the claims this batch already made, and nothing of the batch is produced.

Limits, documented rather than hidden: a retry is recognised by the head's *current*
event id, so an event already superseded by a later one of the same memory (e.g. v1 of a
retried batch holding v1 and v2) is refused as ``concurrent_write``. Events without a head
(recalls, import provenance, state changes) are deduplicated only by Kafka's idempotent
producer, i.e. within one producer session; a retry by the caller may duplicate them, and
the projections fold them idempotently.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ai_memory.core.errors import Conflict
from ai_memory.core.events import DomainEvent, Head
from ai_memory.core.heads import HeadStore, HeadUpdate, head_update

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Claim:
    index: int  # of the event in the batch
    update: HeadUpdate
    previous: Head | None  # what to restore if producing fails
    applied: bool  # False: a retried event whose head is ours but has no position yet


@dataclass
class ClaimResult:
    claims: list[Claim]  # events to produce that move a head
    known: dict[int, int]  # index → position of retried events already on the log


def claim_heads(heads: HeadStore, events: Sequence[DomainEvent]) -> ClaimResult:
    updates = [(i, u) for i, e in enumerate(events) if (u := head_update(e)) is not None]
    result = ClaimResult([], {})
    if not updates:
        return result
    current = _current_heads(heads, [u for _, u in updates])
    for index, update in updates:
        key = (update.tenant, update.head.memory_id)
        applied, stored_event_id = heads.compare_and_set(update)
        if applied:
            result.claims.append(Claim(index, update, current.get(key), True))
            current[key] = update.head
            continue
        if stored_event_id == update.event_id:
            recorded = heads.get_many(update.tenant, [update.head.memory_id]).get(key[1])
            if recorded is not None and recorded.position > 0:
                result.known[index] = recorded.position
            else:
                result.claims.append(Claim(index, update, None, False))
            continue
        release(heads, result.claims)
        raise Conflict(
            f"memory {update.head.memory_id!r} was changed by another writer (this append "
            f"expected version {update.expected_version}); read it again and retry",
            code="concurrent_write",
        )
    return result


def release(heads: HeadStore, claims: Sequence[Claim]) -> None:
    """Undo claims whose events were not produced, newest first (best effort)."""
    for claim in reversed(claims):
        if not claim.applied:
            continue  # a retry never moved the head: nothing to undo
        try:
            heads.revert(claim.update, claim.previous)
        except Exception:  # best effort: the caller is already failing with a better error
            log.exception("could not revert head of %s", claim.update.head.memory_id)


def record_position(heads: HeadStore, claim: Claim, position: int) -> None:
    """Tell the head store where the claimed event landed. Failing here does not fail the
    append (the event is durable); the head merely keeps position 0, so a retry of this
    event would be produced again (see the module docstring)."""
    update = claim.update
    try:
        heads.set_position(update.tenant, update.head.memory_id, update.event_id, position)
    except Exception:
        log.exception("could not record the position of event %s", update.event_id)


def _current_heads(
    heads: HeadStore, updates: Sequence[HeadUpdate]
) -> dict[tuple[str, str], Head | None]:
    by_tenant: dict[str, list[str]] = {}
    for u in updates:
        by_tenant.setdefault(u.tenant, []).append(u.head.memory_id)
    current: dict[tuple[str, str], Head | None] = {}
    for tenant, ids in by_tenant.items():
        found = heads.get_many(tenant, list(dict.fromkeys(ids)))
        for memory_id in ids:
            current[(tenant, memory_id)] = found.get(memory_id)
    return current
