"""The crash model of the usage fold (``core.usage``), shared by its unit and property
tests: logs of a few partitions, a naive recount, and runs that crash and redeliver.

A table backed by a changelog keeps, after a crash, a *prefix* of the writes made to
it; the consumer then redelivers each partition from an offset it had committed, which
is at most where that partition's first write that did not survive was made. So a
crash here is: replay a prefix of every write ever made into a fresh table, restart
each partition at a batch boundary no later than its first non-durable batch, and fold
the rest again — in batches cut anew.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ai_memory.core.events import (
    DomainEvent,
    EncryptionEnvelope,
    LoggedEvent,
    MemoriesRecalled,
    MemoryDeleted,
    MemoryStateChanged,
    MemoryWritten,
)
from ai_memory.core.positions import pack
from ai_memory.core.record import MemoryState
from ai_memory.core.usage import ABSENT, TenantUsage, UsageFold, tenants_in, usage_of
from tests.factories import deleted, header, record, written

Streams = Mapping[int, Sequence[LoggedEvent]]  # partition → its events, in position order
Write = tuple[str, list[int]]


class RecordingTable(dict[str, list[int]]):
    """A table that keeps every write made to it, in order (``history``); built from the
    writes that survived a crash, the first ``restored`` of its history are those."""

    def __init__(self, history: Sequence[Write] = ()) -> None:
        super().__init__()
        self.history: list[Write] = []
        for key, value in history:
            self[key] = value
        self.restored = len(history)

    def __setitem__(self, key: str, value: list[int]) -> None:
        self.history.append((key, list(value)))
        super().__setitem__(key, list(value))

    def __delitem__(self, key: str) -> None:
        raise AssertionError("the fold never deletes a key")


# --- logs -------------------------------------------------------------------------------
SEALED = EncryptionEnvelope("memory/x", "AES-256-GCM", b"\0" * 12, b"sealed")


@dataclass(frozen=True)
class Op:
    """One event of a generated log: ``kind`` on memory ``memory`` of ``tenant``."""

    kind: str  # write | sealed_write | delete | delete0 | state | recall
    tenant: str
    memory: str
    content: str = ""


def partition_of_memory(tenant: str, memory: str, partitions: int) -> int:
    """Where a memory's events go: one partition per memory, as tenant/scope keys do."""
    return sum(map(ord, f"{tenant}/{memory}")) % partitions


def event_of(op: Op) -> DomainEvent:
    scope = f"user:{op.memory}"
    if op.kind in ("write", "sealed_write"):
        e = written(record(op.memory, op.content or "x", scope=scope), tenant=op.tenant)
        if op.kind == "sealed_write":
            # Read back sealed: its content no longer exists, and projections skip it.
            return replace(e, record=replace(e.record, content=""), encryption=SEALED)
        return e
    if op.kind in ("delete", "delete0"):
        return deleted(op.memory, scope=scope, tenant=op.tenant, version=int(op.kind == "delete"))
    if op.kind == "state":
        return MemoryStateChanged(
            header(op.tenant), op.memory, scope, MemoryState.ACTIVE, MemoryState.ARCHIVED, "t"
        )
    return MemoriesRecalled(header(op.tenant), scope, (op.memory,))


def streams_of(ops: Sequence[Op], partitions: int = 2) -> dict[int, list[LoggedEvent]]:
    """The ops as a partitioned log: positions packed, increasing per partition."""
    streams: dict[int, list[LoggedEvent]] = {p: [] for p in range(partitions)}
    for op in ops:
        p = partition_of_memory(op.tenant, op.memory, partitions)
        event = event_of(op)
        streams[p].append(LoggedEvent(pack(p, len(streams[p])), event))
    return streams


def recount(streams: Streams) -> dict[str, TenantUsage]:
    """The truth, naively: every memory's size after the whole log, summed per tenant;
    the position of each tenant's last write or forget per partition."""
    sizes: dict[tuple[str, str], int] = {}
    positions: dict[str, dict[int, int]] = {}
    for partition, events in streams.items():
        for logged in events:
            e = logged.event
            if isinstance(e, MemoryWritten | MemoryDeleted):
                tenant = e.header.tenant
                positions.setdefault(tenant, {})[partition] = logged.position
                if isinstance(e, MemoryDeleted):
                    sizes.pop((tenant, e.memory_id), None)
                elif not e.sealed:
                    sizes[(tenant, e.record.id)] = len(e.record.content.encode("utf-8"))
    truth = {}
    for tenant, where in positions.items():
        mine = [s for (t, _), s in sizes.items() if t == tenant]
        truth[tenant] = TenantUsage(len(mine), sum(mine), where)
    return truth


def wrong_tenant_writes(streams: Streams, history: Sequence[Write]) -> list[Write]:
    """Every tenant-key write whose usage is not exactly the recount of its partition's
    events up to the position it names (what a reader reading then would be told)."""
    wrong = []
    for key, (memories, size, position) in (w for w in history if w[0].startswith("t|")):
        _, tenant, partition = key.split("|")
        events = [e for e in streams[int(partition)] if e.position <= position]
        truth = recount({int(partition): events}).get(tenant, TenantUsage())
        if (memories, size) != (truth.memories, truth.bytes):
            wrong.append((key, [memories, size, position]))
    return wrong


def usage_in(table: Mapping[str, list[int]]) -> dict[str, TenantUsage]:
    rows = list(table.items())
    return {t: usage_of(rows, t) for t in tenants_in(table)}


# --- runs -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Batch:
    partition: int
    start: int  # index into the partition's events
    end: int


def batches_of(streams: Streams, starts: Mapping[int, int], size: Callable[[], int]) -> list[Batch]:
    """The events of each partition from ``starts[p]``, cut in batches of ``size()``
    events, the partitions taking turns."""
    cursors = {p: starts.get(p, 0) for p in streams}
    out: list[Batch] = []
    while any(cursors[p] < len(streams[p]) for p in streams):
        for p in sorted(streams):
            if cursors[p] < len(streams[p]):
                end = min(len(streams[p]), cursors[p] + max(1, size()))
                out.append(Batch(p, cursors[p], end))
                cursors[p] = end
    return out


def run(
    table: RecordingTable, streams: Streams, batches: Sequence[Batch], fold: type[UsageFold]
) -> list[int]:
    """Fold ``batches`` into ``table``; the length of its history after each batch."""
    folder = fold(table)
    ends = []
    for b in batches:
        folder.apply(b.partition, streams[b.partition][b.start : b.end])
        ends.append(len(table.history))
    return ends


def restart_points(batches: Sequence[Batch], ends: Sequence[int], durable: int) -> dict[int, int]:
    """Per partition, the furthest offset its consumer may have committed when only the
    first ``durable`` writes survived: the end of its batches whose writes all did."""
    furthest: dict[int, int] = {}
    blocked: set[int] = set()
    for b, end in zip(batches, ends, strict=True):
        furthest.setdefault(b.partition, b.start)
        if b.partition in blocked or end > durable:
            blocked.add(b.partition)
        else:
            furthest[b.partition] = b.end
    return furthest


def boundaries(batches: Sequence[Batch], partition: int, limit: int) -> list[int]:
    """The batch boundaries of ``partition`` at or before ``limit`` (where a restart may
    be), and the very beginning of the log."""
    starts = [0] + [b.start for b in batches if b.partition == partition] + [limit]
    return sorted({s for s in starts if s <= limit})


@dataclass(frozen=True)
class Crash:
    """A crash that kept ``durable`` of the run's writes (clipped to what it made), and
    the choice, per partition, of a restart boundary (an index into ``boundaries``,
    clipped; ``-1``: the furthest allowed). ``batch``: the batch sizes of the run that
    crashes (none: the sizes every run is given)."""

    durable: int
    restart: Mapping[int, int]
    batch: Sequence[int] = ()


def crashing_run(
    streams: Streams,
    crashes: Sequence[Crash],
    sizes: Callable[[], int],
    fold: type[UsageFold] = UsageFold,
) -> RecordingTable:
    """Fold the log, crashing as told, and redelivering after each crash; the table at
    the end of the run that completes."""
    table = RecordingTable()
    starts: dict[int, int] = {p: 0 for p in streams}
    for crash in crashes:
        batches = batches_of(streams, starts, sizes_from(crash.batch) if crash.batch else sizes)
        before = len(table.history)
        ends = run(table, streams, batches, fold)
        durable = before + min(crash.durable, len(table.history) - before)
        furthest = restart_points(batches, ends, durable)
        table = RecordingTable(table.history[:durable])
        for p in streams:
            allowed = boundaries(batches, p, furthest.get(p, starts[p]))
            starts[p] = allowed[min(crash.restart.get(p, -1), len(allowed) - 1)]
    run(table, streams, batches_of(streams, starts, sizes), fold)
    return table


def sizes_from(cycle: Sequence[int]) -> Callable[[], int]:
    it = itertools.cycle(cycle or [1])
    return lambda: next(it)


__all__ = [
    "ABSENT",
    "Op",
    "RecordingTable",
    "crashing_run",
    "recount",
    "streams_of",
    "usage_in",
    "wrong_tenant_writes",
]
