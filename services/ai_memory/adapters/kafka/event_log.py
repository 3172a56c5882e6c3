"""KafkaEventLog: the distributed log of record, one Kafka topic of Avro events.

* **Keys and order.** The record key is ``event.partition_key`` (``tenant/scope``), so the
  producer's murmur2 partitioner — the same as the Java client's and Faust's — puts every
  event of a scope, hence of a memory, in one partition, in append order.
* **Durability.** ``acks="all"`` with ``min.insync.replicas`` from the topic, and
  ``enable_idempotence=True`` so the producer's own retries never duplicate or reorder a
  record. ``append`` returns once every event of the batch is acknowledged.
* **Positions.** ``core.positions.pack(partition, offset)``: positive, increasing within a
  partition, one integer everywhere (APIs, checkpoints, ``USING TIMESTAMP``).
* **Write model.** Kafka cannot be queried by key, so heads live in a ``HeadStore``
  claimed with compare-and-set before producing (see ``claims``); ``heads`` reads it. The
  log owns the head store it is given and closes it.
* **Threads.** The port is synchronous; aiokafka runs on one background event loop
  (see ``loop``). Avro encoding and decoding happen on the calling thread.
* **Values and headers.** The value is the Avro single-object frame from the serializer;
  headers ``aimem.event_type`` and ``aimem.event_id`` let tools route and deduplicate
  without decoding.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Sequence
from typing import Any

from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from ai_memory.core.errors import InvalidInput, Unavailable
from ai_memory.core.events import DomainEvent, Head, LoggedEvent
from ai_memory.core.heads import HeadStore
from ai_memory.core.ports import EventSerializer
from ai_memory.core.positions import offset_of, pack, partition_of
from ai_memory.serialization import UndecodableEvent

from .claims import Claim, claim_heads, record_positions, release
from .config import KafkaLogConfig, parse_kafka_url
from .errors import translate, translate_errors
from .loop import BackgroundLoop
from .reader import ReaderPool, UndecodableRecord, new_consumer
from .topics import ensure_topics

log = logging.getLogger(__name__)

EVENT_TYPE_HEADER = "aimem.event_type"
EVENT_ID_HEADER = "aimem.event_id"
_WAIT_POLL_SECONDS = 0.05  # end offsets are polled: a broker cannot push "new data"
_MAX_BATCH_BYTES = 512 * 1024


class KafkaEventLog:
    def __init__(
        self,
        bootstrap: str,
        topic: str,
        heads: HeadStore,
        serializer: EventSerializer,
        *,
        partitions: int = 6,
        replication_factor: int = 1,
        min_insync_replicas: int | None = None,
        request_timeout: float = 30.0,
        client_id: str = "ai-memory",
    ) -> None:
        """Connect, create or verify the topics, start the producer.

        Raises ``Unavailable`` when Kafka cannot be reached and ``TopicMismatch`` when the
        existing topic has another partition count; nothing is left running then, and the
        head store (owned by the log only once it is built) is not closed."""
        self.config = KafkaLogConfig(
            bootstrap,
            topic,
            partitions,
            replication_factor,
            min_insync_replicas,
            request_timeout,
        )
        self._heads = heads
        self._serializer = serializer
        self._client_id = client_id
        self._closed = False
        self._admin: Any = None
        self._producer: Any = None
        self._offsets: Any = None
        self._readers = ReaderPool(bootstrap, topic, client_id, request_timeout)
        self._loop = BackgroundLoop(f"kafka-event-log:{topic}")
        try:
            with translate_errors():
                self._partitions = self._loop.run(self._start(), self._timeout * 2)
        except BaseException:
            self._loop.close(self._shutdown)
            raise

    @classmethod
    def from_url(cls, url: str, heads: HeadStore, serializer: EventSerializer) -> KafkaEventLog:
        """``kafka://host:9092[,host2:9092]/<topic>?partitions=6&replication_factor=1``
        (see ``config.parse_kafka_url`` for every parameter)."""
        c = parse_kafka_url(url)
        return cls(
            c.bootstrap,
            c.topic,
            heads,
            serializer,
            partitions=c.partitions,
            replication_factor=c.replication_factor,
            min_insync_replicas=c.min_insync_replicas,
            request_timeout=c.request_timeout,
        )

    @property
    def _timeout(self) -> float:
        return self.config.request_timeout + 5.0

    async def _start(self) -> list[int]:
        bootstrap, timeout_ms = self.config.bootstrap, int(self.config.request_timeout * 1000)
        self._admin = AIOKafkaAdminClient(
            bootstrap_servers=bootstrap, client_id=self._client_id, request_timeout_ms=timeout_ms
        )
        await self._admin.start()
        partitions = await ensure_topics(self._admin, self.config)
        await self._admin.close()
        self._admin = None
        self._producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap,
            client_id=self._client_id,
            acks="all",
            enable_idempotence=True,
            linger_ms=0,  # single appends wait for nobody; batches fill while one is in flight
            max_batch_size=_MAX_BATCH_BYTES,
            request_timeout_ms=timeout_ms,
        )
        await self._producer.start()
        self._offsets = new_consumer(bootstrap, self._client_id, self.config.request_timeout)
        await self._offsets.start()
        return partitions

    # --- writing ----------------------------------------------------------------------

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        """Append in order (per key); every event is acknowledged by ``acks=all`` when this
        returns. Not atomic across events: on failure some events of the batch may be on
        the log; retrying the same batch is safe (see ``claims``)."""
        if not events:
            return []
        # Encode first: an unencodable event fails before any head moves.
        frames = [self._serializer.encode(e) for e in events]
        claimed = claim_heads(self._heads, events)
        positions: list[int | None] = [claimed.known.get(i) for i in range(len(events))]
        pending = [i for i, p in enumerate(positions) if p is None]
        records = [self._record(events[i], frames[i]) for i in pending]
        try:
            with translate_errors():
                outcomes = self._loop.run(self._send_all(records), self._timeout * 2)
        except Exception as e:  # ambiguous: treat every pending event as not delivered
            outcomes = [e] * len(pending)
        claim_of = {c.index: c for c in claimed.claims}
        failure: BaseException | None = None
        undelivered = []
        landed: list[tuple[Claim, int]] = []
        for index, outcome in zip(pending, outcomes, strict=True):
            claim = claim_of.get(index)
            if isinstance(outcome, BaseException):
                failure = failure or outcome
                if claim is not None:
                    undelivered.append(claim)
                continue
            positions[index] = pack(outcome.partition, outcome.offset)
            if claim is not None:
                landed.append((claim, pack(outcome.partition, outcome.offset)))
        record_positions(self._heads, landed)
        if failure is not None:
            release(self._heads, undelivered)
            mapped = translate(failure)
            if mapped is None:
                raise failure
            if mapped is failure:
                raise mapped
            raise mapped from failure
        return [p for p in positions if p is not None]

    def _record(self, event: DomainEvent, frame: bytes) -> tuple[bytes, bytes, list[Any]]:
        headers = [
            (EVENT_TYPE_HEADER, self._serializer.event_type(event).encode()),
            (EVENT_ID_HEADER, event.header.event_id.encode()),
        ]
        return event.partition_key.encode(), frame, headers

    async def _send_all(self, records: list[tuple[bytes, bytes, list[Any]]]) -> list[Any]:
        """Queue every record in order, then await every delivery. One outcome per record:
        its ``RecordMetadata`` or the exception that stopped it."""
        futures: list[Any] = []
        stopped: BaseException | None = None
        for key, value, headers in records:
            try:
                sent = await self._producer.send(
                    self.config.topic, value=value, key=key, headers=headers
                )
            except Exception as e:  # later records must not overtake this one: stop here
                stopped = e
                break
            futures.append(sent)
        outcomes: list[Any] = list(await asyncio.gather(*futures, return_exceptions=True))
        return outcomes + [stopped] * (len(records) - len(futures))

    # --- reading ----------------------------------------------------------------------

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
        for offset, value in raw:
            position = pack(partition, offset)
            try:
                event = self._serializer.decode(value)
            except UndecodableEvent as e:
                if events:
                    break  # return the good prefix; the next read starts at the bad record
                raise UndecodableRecord(e, position=position, partition=partition, raw=value) from e
            events.append(LoggedEvent(position, event))
        return events

    async def _fetch(self, partition: int, start: int, limit: int) -> list[tuple[int, bytes]]:
        end = await self._end_offset(partition)
        if start >= end:
            return []
        return await self._readers.fetch(partition, start, min(limit, end - start))

    def last_position(self, partition: int = 0) -> int:
        self._check_partition(partition)
        with translate_errors():
            end = self._loop.run(self._end_offset(partition), self._timeout)
        return 0 if end <= 0 else pack(partition, end - 1)

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        start = self._start_offset(after, partition)

        async def wait() -> bool:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                if await self._end_offset(partition) > start:
                    return True
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return False
                await asyncio.sleep(min(_WAIT_POLL_SECONDS, remaining))

        with translate_errors():
            return self._loop.run(wait(), max(timeout, 0.0) + self._timeout)

    async def _end_offset(self, partition: int) -> int:
        tp = TopicPartition(self.config.topic, partition)
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

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        return self._heads.get_many(tenant, memory_ids)

    # --- closing ----------------------------------------------------------------------

    def close(self) -> None:
        """Flush and stop every client, stop the loop thread, close the head store."""
        if self._closed:
            return
        self._closed = True
        try:
            self._loop.close(self._shutdown)
        except (concurrent.futures.TimeoutError, Unavailable):
            pass
        finally:
            self._heads.close()

    async def _shutdown(self) -> None:
        """Stop every client; one failing to stop must not keep the others open."""
        stops: list[Any] = [self._readers.close]
        stops += [c.stop for c in (self._offsets, self._producer) if c is not None]
        stops += [self._admin.close] if self._admin is not None else []
        for stop in stops:
            try:
                await stop()
            except Exception:
                log.exception("error while closing a Kafka client")
        self._offsets = self._producer = self._admin = None


__all__ = ["KafkaEventLog"]
