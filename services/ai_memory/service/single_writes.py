"""Group commit of concurrent single writes on a serialized log (the embedded one).

Sixteen clients each sending ``PUT /v1/memories/{id}`` used to take the write lock
sixteen times, each for one decision, one vault transaction for the new memory's key and
one log transaction for its event — and the projections then woke for each event on its
own. A batch request pays those once for all its items (≈ 0.75 ms of server CPU per
memory against ≈ 3.5 ms per single PUT, ``loadtest/RESULTS.md``), so concurrent single
writes now share them: the first writer of a tenant runs at once; writers arriving
while it holds the lock queue, and the next of them decides every queued write in one
unit of work and appends their events with one call (``core.coalesce``: no timer, a lone
writer waits for nobody).

Nothing a single write promises changes:

* each write is decided exactly as ``writing.write_in`` decides it — its caller asked
  about the stored memory's scope, its preconditions judged against the head this very
  decision sees, in arrival order; two writes of one memory in a group are decided one
  after the other (the second in a later round, on the first's appended head);
* each write is decided in its own caller's context (``contextvars``): its event
  records its own authenticated key as actor, never the key of the writer that ran the
  group; with tracing on, its projections join its own request's trace (the unit of
  work and append spans are in the trace of the request that ran the group);
* a write is answered only once the append holding its event returned, that is once it
  is durable (one SQLite transaction);
* each write answers for itself: a refused decision (412, 409, 410, 403) fails only its
  caller; when the log refuses the group's append for a reason of one event
  (unprojectable, the stored-memories quota), the events are appended one by one so the
  refusal lands on its own write; an unavailable store fails every write of the round,
  and a retry decides afresh (an identical write answers ``changed: false``).

A write that is issued while its thread already holds the write lock (a use case
composing another) is decided on the spot, as before: it must not wait for a group
whose runner needs that lock.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ai_memory.core.coalesce import Coalescer
from ai_memory.core.decide import decide_write, with_created_at_from
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import DomainEvent, Head
from ai_memory.core.preconditions import Preconditions
from ai_memory.core.record import MemoryRecord, MemoryState
from ai_memory.telemetry import EVENT_CONTEXTS, annotate, span

from .unit_of_work import UnitOfWork, UnitsOfWork
from .writing import WriteResult


@dataclass(eq=False)  # hashed by identity: two identical bodies are two writes
class SingleWrite:
    """One caller's write, and what became of it."""

    record: MemoryRecord
    explicit_created: bool
    preconditions: Preconditions | None
    authorize: Callable[[str], None]  # the caller, asked about the stored memory's scope
    context: contextvars.Context  # the caller's: its authenticated actor, its trace
    result: WriteResult | None = None
    error: Exception | None = None
    event: DomainEvent | None = field(default=None, repr=False)
    created: bool = False
    version: int = 0
    thread: int = field(default_factory=threading.get_ident)  # whose request it is


class SingleWrites:
    """``write`` decides and appends one memory, sharing the lock, the vault's and the
    log's transactions with the writes of the same tenant that arrive meanwhile."""

    def __init__(self, units: UnitsOfWork) -> None:
        self._units = units
        self._groups: Coalescer[str, SingleWrite, SingleWrite] = Coalescer(self._run)

    @property
    def groups(self) -> int:
        """How many groups ran (for tests: fewer than writes means they were shared)."""
        return self._groups.calls

    def waiting(self, tenant: str) -> int:
        """Writes of ``tenant`` queued for the next group (for tests)."""
        return self._groups.waiting(tenant)

    def write(self, tenant: str, write: SingleWrite) -> WriteResult:
        self._groups.call(tenant, [write])
        if write.error is not None:
            raise write.error
        assert write.result is not None  # every write of a group that ran is answered
        return write.result

    def _run(self, tenant: str, writes: list[SingleWrite]) -> Mapping[SingleWrite, SingleWrite]:
        with span("aimem.unit_of_work", {"aimem.tenant": tenant, "aimem.writes": len(writes)}):
            # The unit's own actor is never used: each header is made in its caller's
            # context from its record's source agent (``_decide``).
            with self._units.begin(tenant, writes[0].record.source_agent) as uow:
                waiting = writes
                while waiting:
                    round_, waiting = _one_per_memory(waiting)
                    _decide_and_append(uow, round_)
            annotate({"aimem.decisions": 1})
        return {w: w for w in writes}


def _one_per_memory(writes: Sequence[SingleWrite]) -> tuple[list[SingleWrite], list[SingleWrite]]:
    """The first write of each memory, in order, and the rest (decided in a later round,
    on the head the earlier one appended)."""
    seen: set[str] = set()
    now: list[SingleWrite] = []
    later: list[SingleWrite] = []
    for w in writes:
        (later if w.record.id in seen else now).append(w)
        seen.add(w.record.id)
    return now, later


def _decide_and_append(uow: UnitOfWork, writes: Sequence[SingleWrite]) -> None:
    heads = uow.heads([w.record.id for w in writes])
    for w in writes:
        try:
            w.context.run(_decide, uow, w, heads.get(w.record.id))
        except Exception as e:  # this write's refusal, raised to its caller alone
            w.error = e
    pending = [(w, w.event) for w in writes if w.error is None and w.event is not None]
    if not pending:
        return
    here = threading.get_ident()
    for w, event in pending:
        if w.thread != here:  # another request's write: its projections join its own trace
            w.context.run(EVENT_CONTEXTS.remember, [event.header.event_id])
    try:
        positions = uow.append([event for _, event in pending])
    except RetryableError as e:
        for w, _ in pending:  # the store, not an event: every write of the round is retried
            w.error = e
        return
    except Exception:
        # An event the log refuses (unprojectable, over the quota): each on its own, so
        # the refusal lands on its write and the others are appended.
        for w, event in pending:
            try:
                (position,) = uow.append([event])
            except Exception as e:
                w.error = e
            else:
                _answer(w, position)
        return
    for (w, _), position in zip(pending, positions, strict=True):
        _answer(w, position)


def _decide(uow: UnitOfWork, w: SingleWrite, head: Head | None) -> None:
    """``writing.write_in`` without its append: run in the caller's context."""
    if head is not None and head.scope != w.record.scope:
        w.authorize(head.scope)  # before anything is said about the stored memory
    if w.preconditions is not None:
        w.preconditions.check(head, w.record.id)
    record = with_created_at_from(w.record, head, explicit=w.explicit_created)
    outcome = decide_write(record, head, uow.header(record.source_agent))
    w.record, w.created, w.version = record, head is None, outcome.version
    if outcome.event is None:
        w.result = _result(w, outcome.position or 0, changed=False)
    else:
        w.event = outcome.event


def _answer(w: SingleWrite, position: int) -> None:
    w.result = _result(w, position, changed=True)


def _result(w: SingleWrite, position: int, *, changed: bool) -> WriteResult:
    return WriteResult(
        record=w.record,
        version=w.version,
        state=MemoryState.ACTIVE,
        position=position,
        created=w.created,
        changed=changed,
    )
