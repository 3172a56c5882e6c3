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
from ai_memory.core.heads import HeadStore, HeadUpdate, PositionUpdate, head_update

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
    # What to restore if producing fails; a memory claimed at version 1 had no head, so
    # only updates of existing memories need a read.
    current = _current_heads(heads, [u for _, u in updates if u.expected_version > 0])
    # Claims of different memories run concurrently; a memory written twice in one batch
    # is claimed in a later wave, after its first claim.
    for wave in _waves(updates):
        outcomes = heads.compare_and_set_many([u for _, u in wave])
        for (index, update), (applied, stored_event_id) in zip(wave, outcomes, strict=True):
            key = (update.tenant, update.head.memory_id)
            if applied:
                result.claims.append(Claim(index, update, current.get(key), True))
                current[key] = update.head
                continue
            if stored_event_id == update.event_id:
                recorded = heads.get_many(update.tenant, [key[1]]).get(key[1])
                if recorded is not None and recorded.position > 0:
                    result.known[index] = recorded.position
                else:
                    result.claims.append(Claim(index, update, None, False))
                continue
            release(heads, result.claims)
            raise Conflict(
                f"memory {update.head.memory_id!r} was changed by another writer (this "
                f"append expected version {update.expected_version}); read it again and retry",
                code="concurrent_write",
            )
    result.claims.sort(key=lambda c: c.index)
    return result


def _waves(updates: Sequence[tuple[int, HeadUpdate]]) -> list[list[tuple[int, HeadUpdate]]]:
    waves: list[list[tuple[int, HeadUpdate]]] = []
    seen: dict[tuple[str, str], int] = {}
    for index, update in updates:
        key = (update.tenant, update.head.memory_id)
        wave = seen.get(key, -1) + 1
        seen[key] = wave
        if wave == len(waves):
            waves.append([])
        waves[wave].append((index, update))
    return waves


def release(heads: HeadStore, claims: Sequence[Claim]) -> None:
    """Undo claims whose events were not produced, newest first (best effort)."""
    for claim in reversed(claims):
        if not claim.applied:
            continue  # a retry never moved the head: nothing to undo
        try:
            heads.revert(claim.update, claim.previous)
        except Exception:  # best effort: the caller is already failing with a better error
            log.exception("could not revert head of %s", claim.update.head.memory_id)


def record_positions(heads: HeadStore, landed: Sequence[tuple[Claim, int]]) -> None:
    """Tell the head store where the claimed events landed. Failing here does not fail
    the append (the events are durable); the heads merely keep position 0, so a retry of
    such an event would be produced again (see the module docstring)."""
    if not landed:
        return
    try:
        heads.set_positions(
            [
                PositionUpdate(c.update.tenant, c.update.head.memory_id, c.update.event_id, pos)
                for c, pos in landed
            ]
        )
    except Exception:
        log.exception("could not record the positions of %d events", len(landed))


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
