"""Reading one partition from an offset: cached, group-less consumers.

``EventLog.read`` is called in a loop by each projection (replay from offset 0, then
tailing), always continuing where the previous call stopped. A consumer assigned to one
partition keeps prefetching after each ``getmany``, so keeping it between calls (instead
of creating, seeking and discarding a consumer per read) is what makes a replay fast. Each
reader remembers the offset it will return next; a read at that offset reuses it without
a seek, any other read takes an idle reader of the partition and seeks.

Several projections read the same partition at different offsets, so a partition may have
a few idle readers (``max_idle``). No consumer group is used: positions are the
projections' checkpoints, stored with their views, never Kafka's committed offsets.

**Idle readers are paused.** An assigned consumer keeps fetching in the background, one
request per ``fetch_max_wait_ms`` at the end of a partition, whether or not anyone reads:
twenty requests a second per idle reader, the largest part of an idle gateway's and its
broker's CPU. A reader back in the pool is paused (no fetches; what it had prefetched
stays buffered) and resumed only when a read must fetch: a read at the end of a partition
(whose end offset counts the last commit marker) is answered from the reader's position.

**Waiting is a long poll** (``wait``): a reader at the waited offset asks the broker to
hold its fetch until an event is committed there (``fetch_max_wait_ms`` of the pool, long
for the pool that waits) and keeps what it brings (``pending``), so the read that follows
the wait takes those events without asking the broker again (``take_pending``). This
replaced polling end offsets every 50 ms.

All methods run on the log's background loop, which is single-threaded: a reader taken
from the pool belongs to one read until it is put back.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRecord, TopicPartition
from aiokafka import errors as ke

from ai_memory.core.errors import UndecodableEvent

_GETMANY_TIMEOUT_MS = 200
_FETCH_MAX_WAIT_MS = 50  # how long a broker holds a fetch at the end of the partition
#: The same for readers that wait (``wait``): an event committed meanwhile ends the wait
#: at once, so this bounds only the requests an idle waiter sends (two a second).
WAIT_FETCH_MAX_WAIT_MS = 500


class UndecodableRecord(UndecodableEvent):
    """An ``UndecodableEvent`` that knows where it is on the log and holds its bytes, so a
    projector can dead-letter it and continue after ``position``."""

    def __init__(
        self, cause: UndecodableEvent, *, position: int, partition: int, raw: bytes
    ) -> None:
        super().__init__(
            cause.reason,
            f"undecodable event at position {position} (partition {partition}): {cause.message}",
            fingerprint=cause.fingerprint,
        )
        self.position = position
        self.partition = partition
        self.raw = raw


def new_consumer(
    bootstrap: str,
    client_id: str,
    request_timeout: float,
    fetch_max_wait_ms: int = _FETCH_MAX_WAIT_MS,
) -> AIOKafkaConsumer:
    """A consumer with no group and no auto-commit (must be built on the loop)."""
    return AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        client_id=client_id,
        group_id=None,
        enable_auto_commit=False,
        # Appends are Kafka transactions: an aborted one (a fenced zombie owner, a failed
        # commit) must never be read, and end offsets are then the last stable offset.
        isolation_level="read_committed",
        # Only reached when a position is older than the log start (a deleted segment):
        # continue from the oldest event that still exists.
        auto_offset_reset="earliest",
        fetch_max_wait_ms=fetch_max_wait_ms,
        max_partition_fetch_bytes=8 * 1024 * 1024,
        request_timeout_ms=int(request_timeout * 1000),
    )


@dataclass
class _Reader:
    consumer: AIOKafkaConsumer
    tp: TopicPartition
    next_offset: int = -1  # -1: not positioned yet
    # Records a wait fetched and nobody has read yet: the next ones from ``next_offset``
    # (offsets in between, if any, are commit markers or aborted records).
    pending: deque[ConsumerRecord[Any, Any]] = field(default_factory=deque)

    def position_at(self, start: int) -> None:
        if self.next_offset != start:
            self.consumer.seek(self.tp, start)
            self.next_offset = start
            self.pending.clear()


@dataclass
class ReaderPool:
    bootstrap: str
    topic: str
    client_id: str
    request_timeout: float
    max_idle: int = 4  # idle readers kept per partition
    fetch_max_wait_ms: int = _FETCH_MAX_WAIT_MS
    _idle: dict[int, list[_Reader]] = field(default_factory=dict)
    _all: list[_Reader] = field(default_factory=list)

    async def fetch(self, partition: int, start: int, want: int) -> list[tuple[int, bytes]]:
        """Up to ``want`` (offset, value) pairs from ``start``; the caller knows that at
        least ``want`` records exist (from the end offset), so this waits for them, up
        to the request timeout."""
        return [
            (offset, value) for offset, _, value in await self.fetch_keyed(partition, start, want)
        ]

    async def fetch_keyed(
        self, partition: int, start: int, want: int
    ) -> list[tuple[int, bytes, bytes]]:
        """``fetch`` with each record's key: (offset, key, value)."""
        reader = await self._take(partition, start)
        out: list[tuple[int, bytes, bytes]] = []
        ok = False
        try:
            reader.position_at(start)
            while reader.pending and len(out) < want:
                r = reader.pending.popleft()
                out.append((r.offset, r.key or b"", r.value or b""))
            deadline = asyncio.get_running_loop().time() + self.request_timeout
            while len(out) < want:
                if await reader.consumer.position(reader.tp) >= start + want:
                    # Everything before the position was read: the rest of the range is
                    # commit markers (the end offset counts the last one) or aborted
                    # records. Known without a fetch: an idle projection's read asks the
                    # broker nothing.
                    break
                reader.consumer.resume(reader.tp)
                batch = await reader.consumer.getmany(
                    reader.tp, timeout_ms=_GETMANY_TIMEOUT_MS, max_records=want - len(out)
                )
                out.extend(
                    (r.offset, r.key or b"", r.value or b"") for r in batch.get(reader.tp, ())
                )
                if len(out) < want and asyncio.get_running_loop().time() > deadline:
                    raise ke.KafkaTimeoutError(f"fetching {self.topic}[{partition}]@{start}")
            reader.next_offset = out[-1][0] + 1 if out else start
            ok = True
            return out
        finally:
            await self._put(reader, ok)

    async def wait(self, partition: int, start: int, timeout: float, max_records: int) -> bool:
        """Whether an event at ``start`` or after is committed within ``timeout`` seconds
        (a long poll). What arrives is kept for ``take_pending``."""
        reader = await self._take(partition, start)
        ok = False
        try:
            reader.position_at(start)
            if not reader.pending:
                reader.consumer.resume(reader.tp)
                batch = await reader.consumer.getmany(
                    reader.tp, timeout_ms=max(1, int(timeout * 1000)), max_records=max_records
                )
                reader.pending.extend(batch.get(reader.tp, ()))
            ok = True
            return bool(reader.pending)
        finally:
            await self._put(reader, ok)

    def take_pending(self, partition: int, start: int, limit: int) -> list[tuple[int, bytes]]:
        """Up to ``limit`` (offset, value) pairs from ``start`` that a wait already fetched
        (none if no idle reader holds them): read without asking the broker."""
        for reader in self._idle.get(partition, ()):
            if reader.next_offset == start and reader.pending:
                out: list[tuple[int, bytes]] = []
                while reader.pending and len(out) < limit:
                    r = reader.pending.popleft()
                    out.append((r.offset, r.value or b""))
                reader.next_offset = out[-1][0] + 1
                return out
        return []

    async def _take(self, partition: int, start: int) -> _Reader:
        idle = self._idle.setdefault(partition, [])
        for i, reader in enumerate(idle):
            if reader.next_offset == start:
                chosen = idle.pop(i)
                break
        else:
            chosen = idle.pop() if idle else await self._new_reader(partition)
        return chosen  # paused (unless new): resumed only before it must fetch

    async def _new_reader(self, partition: int) -> _Reader:
        consumer = new_consumer(
            self.bootstrap, self.client_id, self.request_timeout, self.fetch_max_wait_ms
        )
        reader = _Reader(consumer, TopicPartition(self.topic, partition))
        self._all.append(reader)
        await consumer.start()
        consumer.assign([reader.tp])
        return reader

    async def _put(self, reader: _Reader, ok: bool) -> None:
        idle = self._idle.setdefault(reader.tp.partition, [])
        if ok and len(idle) < self.max_idle:
            reader.consumer.pause(reader.tp)  # no background fetches while idle
            idle.append(reader)
            return
        self._all.remove(reader)
        await reader.consumer.stop()

    async def close(self) -> None:
        readers, self._all, self._idle = self._all, [], {}
        for reader in readers:
            await reader.consumer.stop()
