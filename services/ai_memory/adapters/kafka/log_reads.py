"""The read side of the Kafka event log: pages by position, a tenant's records, waiting.

``KafkaLogReads`` holds what reading needs: the background loop, the pool of readers of
the events topic (``reader``) and the consumer that asks for end offsets. The write side
(``log_writes``) builds on it; ``KafkaEventLog`` opens and closes the clients.

* **Positions.** ``core.positions.pack(partition, offset)``: positive, increasing within a
  partition, one integer everywhere (APIs, checkpoints, ``USING TIMESTAMP``). Commit
  markers take offsets too, so positions have gaps; ``last_position`` is the newest
  *event*.
* **Committed only.** Readers use ``read_committed``, so an aborted transaction is never
  seen, and an end offset is the last stable offset.
* **Undecodable records.** ``read`` stops at one (``UndecodableRecord``, which a
  projection dead-letters); a tenant's page leaves it out (``tenant_reads``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aiokafka import TopicPartition

from ai_memory.core.errors import InvalidInput, UndecodableEvent
from ai_memory.core.events import DomainEvent, LoggedEvent, TenantPage
from ai_memory.core.ports import CHANGE_EVENT_TYPES, EventSerializer, decode_all
from ai_memory.core.positions import offset_of, pack, partition_of

from ..tenant_reads import decoded_skipping_poison
from .config import KafkaLogConfig
from .errors import translate_errors
from .keyed_scan import KeyedScan, scan_keyed
from .loop import BackgroundLoop
from .reader import WAIT_FETCH_MAX_WAIT_MS, ReaderPool, UndecodableRecord

_WAIT_BATCH = 500  # events a wait may bring for the read after it


class KafkaLogReads:
    """Reading one Kafka topic of events, partition by partition."""

    # Known once the topics are created or verified (``KafkaEventLog.__init__``).
    _partitions: list[int]

    def __init__(
        self,
        config: KafkaLogConfig,
        serializer: EventSerializer,
        client_id: str,
        loop: BackgroundLoop,
    ) -> None:
        self.config = config
        self._serializer = serializer
        self._client_id = client_id
        self._loop = loop
        self._offsets: Any = None  # the end-offset consumer: aiokafka builds it on the loop
        self._last_event: dict[int, tuple[int, int]] = {}  # partition → (end, last event)
        # The newest offset each partition committed for this process: a broker's answer
        # about a just-created partition can lag behind an append it acknowledged.
        self._appended: dict[int, int] = {}
        self._readers = ReaderPool(
            config.bootstrap, config.topic, client_id, config.request_timeout
        )
        # Readers that wait at the end of a partition (long polls; see ``wait_for_events``).
        self._waits = ReaderPool(
            config.bootstrap,
            config.topic,
            client_id,
            config.request_timeout,
            max_idle=2,
            fetch_max_wait_ms=WAIT_FETCH_MAX_WAIT_MS,
        )

    @property
    def _timeout(self) -> float:
        return self.config.request_timeout + 5.0

    def partitions(self) -> list[int]:
        """Fixed at start-up: the count was verified then, and changing it in place is
        refused (see ``topics``)."""
        return list(self._partitions)

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        """Events after ``after``, decoded on this thread. An undecodable record raises
        ``UndecodableRecord`` (an ``UndecodableEvent`` carrying position and bytes) when it
        is the first of the page; otherwise the page ends just before it."""
        start = self._start_offset(after, partition)
        if limit <= 0:
            return []
        with translate_errors():
            raw = self._loop.run(self._fetch(partition, start, limit), self._timeout * 2)
        events: list[LoggedEvent] = []
        # The page at once: its sealed events' keys in one vault read (a replay's cost).
        decoded = decode_all(self._serializer, [value for _, value in raw])
        for (offset, value), event in zip(raw, decoded, strict=True):
            position = pack(partition, offset)
            if isinstance(event, UndecodableEvent):
                if events:
                    break  # return the good prefix; the next read starts at the bad record
                raise UndecodableRecord(
                    event, position=position, partition=partition, raw=value
                ) from event
            if isinstance(event, Exception):
                raise event
            events.append(LoggedEvent(position, event))
        return events

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        """The tenant's records of the partition, found by key (``keyed_scan``): a record
        is kept when its key (``tenant/scope``) starts with the tenant's."""
        prefix = f"{tenant}/".encode()
        return self._keyed_page(
            tenant,
            lambda key: key.startswith(prefix),
            lambda event: True,
            after=after,
            limit=limit,
            scan=scan,
            partition=partition,
        )

    def read_changes(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int = 0,
    ) -> TenantPage:
        """``read_tenant`` keeping only records whose key is ``tenant/<scope>`` of one of
        ``scopes`` (the scope filter is the key test: other scopes stay undecoded), then
        only the change types."""
        prefix = f"{tenant}/".encode()
        keys = None if scopes is None else {f"{tenant}/{s}".encode() for s in scopes}
        return self._keyed_page(
            tenant,
            (lambda key: key.startswith(prefix)) if keys is None else keys.__contains__,
            lambda event: type(event).__name__ in CHANGE_EVENT_TYPES,
            after=after,
            limit=limit,
            scan=scan,
            partition=partition,
        )

    def _keyed_page(
        self,
        tenant: str,
        keep_key: Callable[[bytes], bool],
        keep_event: Callable[[DomainEvent], bool],
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int,
    ) -> TenantPage:
        start = self._start_offset(after, partition)
        if limit <= 0 or scan <= 0:
            return TenantPage([], max(after, 0), False)

        async def scanned() -> KeyedScan:
            end = max(await self._end_offset(partition), self._appended.get(partition, -1) + 1)
            return await scan_keyed(
                self._readers, partition, start, end, keep_key, limit=limit, scan=scan
            )

        with translate_errors():
            found = self._loop.run(scanned(), self._timeout * 2)
        rows = [(pack(partition, offset), value) for offset, value in found.kept]
        # The key prefix is exact for tenants of keys (no '/' in them); a tenant named
        # through the in-process API is not validated, so the header decides.
        events = [
            e
            for e in decoded_skipping_poison(rows, self._serializer)
            if e.event.header.tenant == tenant and keep_event(e.event)
        ]
        scanned_to = pack(partition, found.last) if found.last >= start else max(after, 0)
        return TenantPage(events, scanned_to, found.complete)

    async def _fetch(self, partition: int, start: int, limit: int) -> list[tuple[int, bytes]]:
        waited = self._waits.take_pending(partition, start, limit)
        if waited:
            return waited  # a wait just fetched them: committed, in order, from ``start``
        end = max(await self._end_offset(partition), self._appended.get(partition, -1) + 1)
        if start >= end:
            return []
        return await self._readers.fetch(partition, start, min(limit, end - start))

    def last_position(self, partition: int = 0) -> int:
        """The position of the newest committed *event* (commit markers are skipped)."""
        self._check_partition(partition)
        with translate_errors():
            last = self._loop.run(self._last_event_offset(partition), self._timeout)
        return 0 if last < 0 else pack(partition, last)

    async def _last_event_offset(self, partition: int) -> int:
        """Offset of the newest committed event, -1 if none. The end offset counts commit
        markers, so the events just before it are read back (once per new end offset)."""
        end = await self._end_offset(partition)
        cached = self._last_event.get(partition)
        if cached is not None and cached[0] == end:
            return max(cached[1], self._appended.get(partition, -1))
        last, window = -1, 4
        while end > 0:
            start = max(0, end - window)
            page = await self._readers.fetch(partition, start, end - start)
            if page:
                last = page[-1][0]
                break
            if start == 0:
                break
            window *= 4
        self._last_event[partition] = (end, last)
        return max(last, self._appended.get(partition, -1))

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        """A long poll (``ReaderPool.wait``): the broker holds a fetch at ``after`` until an
        event is committed there, so a waiting projection wakes with the commit and its next
        ``read`` takes the fetched events (``_fetch``). Polling end offsets instead cost a
        request every 50 ms per waiter."""
        start = self._start_offset(after, partition)

        async def wait() -> bool:
            return await self._waits.wait(partition, start, max(timeout, 0.0), _WAIT_BATCH)

        with translate_errors():
            return self._loop.run(wait(), max(timeout, 0.0) + self._timeout)

    async def _end_offset(self, partition: int, topic: str | None = None) -> int:
        """The last stable offset (``read_committed``): nothing at or after it is readable."""
        tp = TopicPartition(topic or self.config.topic, partition)
        ends = await self._offsets.end_offsets([tp])
        return int(ends[tp])

    def _start_offset(self, after: int, partition: int) -> int:
        """The first offset to read for ``position > after``."""
        self._check_partition(partition)
        if after <= 0:
            return 0
        if partition_of(after) != partition:
            raise InvalidInput(
                "after", "partition", f"position {after} is not a position of partition {partition}"
            )
        return offset_of(after) + 1

    def _check_partition(self, partition: int) -> None:
        if partition not in self._partitions:
            raise InvalidInput(
                "partition", "range", f"the log has partitions {self._partitions}, not {partition}"
            )


__all__ = ["KafkaLogReads"]
