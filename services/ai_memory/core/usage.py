"""Per-tenant usage — live memories and the bytes of their content — folded from the log.

**What is counted** is what the records view holds (``core.projection`` applied by any
``RecordStore``): the records ``RecordStore.count(tenant)`` counts, and the UTF-8 bytes
of their ``content``. So, per event:

* ``MemoryWritten`` puts or replaces its memory (size: UTF-8 bytes of
  ``record.content``, which since schema v2 the event also carries in clear as
  ``content_bytes``, so a worker counts it without opening the sealed content: ``touch``
  and ``UsageFold.apply_touches``). A v1 event read back *sealed* (its data key was
  destroyed) changes nothing: every projection skips those, and the memory's forget
  follows it on the log — which is also why counting a v2 event's clear size whatever
  became of its key ends in the same numbers;
* ``MemoryDeleted`` removes its memory, whatever its ``version``, as the records view
  does (a version-0 tombstone names an id that never had a record: it removes nothing);
* nothing else changes usage: a state change keeps the record and its content (an
  archived or superseded memory still occupies the store); recalls, import provenance,
  raw interactions and erasure summaries hold no record (an erasure's memories are
  forgotten by their own ``MemoryDeleted``).

**The table** is a plain ``MutableMapping[str, list[int]]`` meant to be backed by a
changelog-backed stream-processor table (at-least-once: after a crash it holds a
*prefix* of the sequence of writes made to it, and the events after the last committed
offset are delivered again). Two kinds of keys:

* ``t|<tenant>|<partition>`` → ``[memories, bytes, position]``: the tenant's usage in one
  log partition, and the position of the last event folded into it;
* ``m|<tenant>|<memory_id>`` → ``[size, position, prev_size]``: the memory's size
  (``ABSENT``, -1, once removed), the position of the event that last changed it, and
  its size before that event. Memory ids are per tenant, hence the tenant in the key (a
  tenant name holds no ``|``); a memory lives in one partition (its key is tenant/scope
  and it never changes scope), so its key needs none.

* ``p|<partition>`` → ``[position]``: the position of the last event of the partition
  folded (counted or not), written after the batch's tenant keys — where a restarted
  worker resumes the partition (``resume_point``). A crash keeps a prefix of the writes, so
  a surviving ``p|`` key means every tenant write before it survived too; resuming from an
  earlier point is always safe (the fold skips what it already counted).

**The fold** of one partition's batch, in position order (``UsageFold.apply``). The
tenant keys are read once and kept open for the batch; for an event at position ``q``
touching memory ``x`` of tenant key ``t``:

1. ``q <= t.position``: already counted, skipped.
2. ``m = table[m|x]``. If ``m.position == q``, this very event changed ``x`` before a
   crash that lost its tenant write: its change is ``m.prev → m.size``, as written then
   (not recomputed: the event may read back sealed now). Otherwise ``x``'s size before
   ``q`` is ``m.prev`` if ``m.position > q`` (a later event's write survived a crash;
   nothing changed ``x`` in between, or it would have been written too) and ``m.size``
   otherwise; the size after is the event's (unchanged for a sealed write, ``ABSENT``
   for a forget).
3. If the size changes, ``m|x`` is written ``[after, q, before]`` — but if ``m|x`` was
   already written since ``t`` was last written (in this run, or in a crashed one: its
   position is above what the table holds for ``t``), ``t`` is written first, without
   this event. **Between two writes of a tenant key, each memory key is written at most
   once**; that is what lets ``prev`` stand for "the size the tenant key counted".
4. The change is added to the open ``t``, whose position becomes ``q``. At the end of the
   batch every open tenant key that moved is written: one write per tenant and batch,
   plus one per memory changed twice in the batch.

**Why it is exact** after a crash at any point and a redelivery from any earlier
offset. Take, for a tenant key, its last write that survived, ``[c, b, P]``:

* ``c, b`` are the usage after exactly the events up to ``P``: a tenant write is made
  only between events, with everything folded before it and nothing after;
* a memory key last written at or below ``P`` holds the memory's size as of ``P`` (any
  later change would have written it again);
* a memory key written after that tenant write was written once since (step 3, across
  runs too: a key found above ``P`` counts as written), by the event at its own position
  ``q > P``, and holds ``[after, q, before]`` with ``before`` its size as of ``P``.

Redelivered events up to ``P`` are skipped (step 1); each later event finds, in step 2,
exactly the size the tenant key counted before it and the change the first run made, so
folding them again gives what an uninterrupted run gives. Batching does not matter: a
redelivery may cut the batches anywhere.

The reader (``usage_of``) sums a tenant's ``t|`` keys; each key's position says up to
where that partition's events are counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field

from .events import DomainEvent, LoggedEvent, MemoryDeleted, MemoryWritten

#: The size of a memory that is not (or no longer) in the records view.
ABSENT = -1
TENANT_PREFIX = "t|"
MEMORY_PREFIX = "m|"
PARTITION_PREFIX = "p|"


@dataclass(frozen=True)
class TenantUsage:
    """A tenant's live memories and the UTF-8 bytes of their content.

    ``positions``: for each log partition, a position up to which every event of the
    partition is counted (absent: nothing of that partition counted yet)."""

    memories: int = 0
    bytes: int = 0
    positions: Mapping[int, int] = field(default_factory=dict)


def content_bytes(content: str) -> int:
    """What a memory's content weighs: its UTF-8 bytes (the stores keep UTF-8 text)."""
    return len(content.encode("utf-8"))


def tenant_key(tenant: str, partition: int) -> str:
    return f"{TENANT_PREFIX}{tenant}|{partition}"


def memory_key(tenant: str, memory_id: str) -> str:
    return f"{MEMORY_PREFIX}{tenant}|{memory_id}"


def partition_key(partition: int) -> str:
    return f"{PARTITION_PREFIX}{partition}"


def resume_point(table: Mapping[str, list[int]], partition: int) -> int | None:
    """The position of the last event of ``partition`` folded into ``table`` (None:
    none yet): a worker resumes the partition after it."""
    row = table.get(partition_key(partition))
    return None if row is None else row[0]


@dataclass(frozen=True)
class Touch:
    """What an event does to one memory: its size after (``None``: unchanged)."""

    tenant: str
    memory_id: str
    size: int | None


def touch(event: DomainEvent) -> Touch | None:
    """What ``event`` does to usage (None: nothing)."""
    match event:
        case MemoryWritten() if event.sealed and event.content_bytes is not None:
            # Its size was logged in clear (schema v2): counted as when it was written,
            # whatever became of its key since (the forget that destroyed the key
            # follows it on the log and removes it).
            return Touch(event.header.tenant, event.record.id, event.content_bytes)
        case MemoryWritten() if event.sealed:
            # A v1 event read back sealed: skipped by every projection; counted only if
            # folded before it was sealed (step 2 of the module docstring reads that
            # from the memory key).
            return Touch(event.header.tenant, event.record.id, None)
        case MemoryWritten():
            size = content_bytes(event.record.content)
            return Touch(event.header.tenant, event.record.id, size)
        case MemoryDeleted():
            return Touch(event.header.tenant, event.memory_id, ABSENT)
        case _:
            return None


class _OpenTenant:
    """A tenant key while a batch folds into it."""

    __slots__ = ("bytes", "key", "memories", "position", "stored", "written")

    def __init__(self, key: str, row: list[int] | None) -> None:
        self.key = key
        self.memories, self.bytes, self.position = row if row is not None else (0, 0, 0)
        self.stored = self.position  # what the table holds: what a crash keeps
        # Memory keys written since the table's tenant key was (by any run).
        self.written: set[str] = set()


class UsageFold:
    """Folds one partition's events at a time into ``table`` (see the module docstring)."""

    def __init__(self, table: MutableMapping[str, list[int]]) -> None:
        self.table = table

    def apply(self, partition: int, events: Iterable[LoggedEvent], *, through: int = 0) -> set[str]:
        """Fold a batch of ``partition``'s events, in position order; the tenants whose
        usage keys moved. ``through``: the position of the batch's last event when it is
        not among ``events`` (an event that could not be decoded counts for nothing, but
        the partition is folded past it)."""
        touches = ((logged.position, touch(logged.event)) for logged in events)
        return self.apply_touches(partition, touches, through=through)

    def apply_touches(
        self, partition: int, touches: Iterable[tuple[int, Touch | None]], *, through: int = 0
    ) -> set[str]:
        """``apply`` for what the events do (``touch``), each with its position: a worker
        that reads sizes without opening events (``projector/usage_worker.py``)."""
        open_: dict[str, _OpenTenant] = {}
        for position, touched in touches:
            through = max(through, position)
            if touched is None:
                continue
            key = tenant_key(touched.tenant, partition)
            tenant = open_.get(key)
            if tenant is None:
                tenant = open_[key] = _OpenTenant(key, self.table.get(key))
            if position > tenant.position:
                self._fold(tenant, touched, position)
        moved = set()
        for key, tenant in open_.items():
            if tenant.position > tenant.stored:
                self._write_tenant(tenant)
                moved.add(key[len(TENANT_PREFIX) :].rsplit("|", 1)[0])
        # Last: a crash that keeps this write kept every tenant write before it.
        done = resume_point(self.table, partition)
        if through and (done is None or through > done):
            self.table[partition_key(partition)] = [through]
        return moved

    def _fold(self, tenant: _OpenTenant, touch: Touch, position: int) -> None:
        key = memory_key(touch.tenant, touch.memory_id)
        row = self.table.get(key)
        if row is not None and row[1] > tenant.stored:
            tenant.written.add(key)  # written after the tenant key: once is all it may be
        if row is not None and row[1] == position:
            before, after, write = row[2], row[0], False  # this event, before a crash
        else:
            if row is None:
                before = ABSENT
            else:
                size, changed_at, prev = row
                before = prev if changed_at > position else size
            after = before if touch.size is None else touch.size
            write = after != before
        if write and self._must_flush(tenant, key):
            self._write_tenant(tenant)
        tenant.memories += (after != ABSENT) - (before != ABSENT)
        tenant.bytes += max(after, 0) - max(before, 0)
        tenant.position = position
        if write:
            self.table[key] = [after, position, before]
            tenant.written.add(key)

    def _must_flush(self, tenant: _OpenTenant, memory: str) -> bool:
        """Whether the tenant key must be written before ``memory`` is written again
        (the rule that keeps ``prev`` exact; ``tests/unit/test_usage_fold.py`` shows a
        crash it would otherwise miscount)."""
        return memory in tenant.written

    def _write_tenant(self, tenant: _OpenTenant) -> None:
        self.table[tenant.key] = [tenant.memories, tenant.bytes, tenant.position]
        tenant.stored = tenant.position
        tenant.written.clear()


def _tenant_of(key: str) -> tuple[str, int] | None:
    """``(tenant, partition)`` of a tenant key, None for any other key."""
    if not key.startswith(TENANT_PREFIX):
        return None
    tenant, _, partition = key[len(TENANT_PREFIX) :].rpartition("|")
    return tenant, int(partition)


def usage_of(rows: Iterable[tuple[str, list[int]]], tenant: str) -> TenantUsage:
    """A tenant's usage: the sum of its tenant keys among ``rows`` (a table's items)."""
    memories = size = 0
    positions: dict[int, int] = {}
    for key, row in rows:
        found = _tenant_of(key)
        if found is not None and found[0] == tenant:
            memories, size = memories + row[0], size + row[1]
            positions[found[1]] = row[2]
    return TenantUsage(memories, size, positions)


def tenants_in(keys: Iterable[str]) -> list[str]:
    """The tenants that have a tenant key among ``keys``, sorted."""
    return sorted({found[0] for key in keys if (found := _tenant_of(key)) is not None})
