"""KafkaEventLog: the distributed log of record, one Kafka topic of Avro events.

* **Keys and order.** The record key is ``event.partition_key`` (``tenant/scope``); its
  partition is ``murmur2(key) % partitions`` (the Java client's and aiokafka's default), so
  every event of a scope, hence of a memory, lands in one partition, in append order.
* **Two sides.** Reading (positions, pages, a tenant's records, waiting for events) is
  ``log_reads``; writing (one writer per partition, appends, heads, durability, headers)
  is ``log_writes``, which builds on it. This module opens the log — creates or verifies
  the topics, starts the clients, joins the writers group — and closes it.
* **Threads.** The port is synchronous; aiokafka runs on one background event loop
  (see ``loop``). Avro encoding and decoding happen on the calling thread.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient

from ai_memory.core.errors import Unavailable
from ai_memory.core.ports import EventSerializer

from .config import KafkaLogConfig, parse_kafka_url
from .errors import translate_errors
from .log_writes import EVENT_ID_HEADER, EVENT_TYPE_HEADER, KafkaLogWrites, WriterConfig
from .loop import BackgroundLoop
from .reader import new_consumer
from .topics import ensure_topics

log = logging.getLogger(__name__)


class KafkaEventLog(KafkaLogWrites):
    """The ``EventLog`` port: the read and write sides it inherits, opened and closed here."""

    def __init__(
        self,
        bootstrap: str,
        topic: str,
        serializer: EventSerializer,
        *,
        partitions: int = 6,
        replication_factor: int = 1,
        min_insync_replicas: int | None = None,
        request_timeout: float = 30.0,
        client_id: str = "ai-memory",
        writer: WriterConfig | None = None,
    ) -> None:
        """Connect, create or verify the topics; with ``writer``, join the writers group
        and wait for the first assignment.

        Raises ``Unavailable`` when Kafka cannot be reached and ``TopicMismatch`` when the
        existing topic has another partition count; nothing is left running then."""
        config = KafkaLogConfig(
            bootstrap,
            topic,
            partitions,
            replication_factor,
            min_insync_replicas,
            request_timeout,
        )
        super().__init__(
            config, serializer, client_id, BackgroundLoop(f"kafka-event-log:{topic}"), writer
        )
        self._closed = False
        self._admin: Any = None  # only while the topics are created or verified
        try:
            with translate_errors():
                self._partitions = self._loop.run(self._start(), self._timeout * 2)
        except BaseException:
            self._loop.close(self._shutdown)
            raise

    @classmethod
    def from_url(
        cls, url: str, serializer: EventSerializer, *, writer: WriterConfig | None = None
    ) -> KafkaEventLog:
        """``kafka://host:9092[,host2:9092]/<topic>?partitions=6&replication_factor=1``
        (see ``config.parse_kafka_url`` for every parameter)."""
        c = parse_kafka_url(url)
        return cls(
            c.bootstrap,
            c.topic,
            serializer,
            partitions=c.partitions,
            replication_factor=c.replication_factor,
            min_insync_replicas=c.min_insync_replicas,
            request_timeout=c.request_timeout,
            writer=writer,
        )

    async def _start(self) -> list[int]:
        bootstrap, timeout_ms = self.config.bootstrap, int(self.config.request_timeout * 1000)
        self._admin = AIOKafkaAdminClient(
            bootstrap_servers=bootstrap, client_id=self._client_id, request_timeout_ms=timeout_ms
        )
        await self._admin.start()
        partitions = await ensure_topics(self._admin, self.config)
        await self._admin.close()
        self._admin = None
        self._offsets = new_consumer(bootstrap, self._client_id, self.config.request_timeout)
        await self._offsets.start()
        if self._writer_config is not None:
            await self._join(self._writer_config)
        return partitions

    # --- closing ----------------------------------------------------------------------

    def close(self) -> None:
        """Leave the writers group, stop every writer and client, stop the loop thread."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(concurrent.futures.TimeoutError, Unavailable):
            self._loop.close(self._shutdown)

    async def _shutdown(self) -> None:
        """Stop every client; one failing to stop must not keep the others open. Writers
        stop before the group is left, so no partition has two live writers here."""
        stops: list[Any] = [w.stop for w in self._writers.values()]
        stops += [self._member.stop] if self._member is not None else []
        stops += [self._peer_server.stop] if self._peer_server is not None else []
        stops += [self._peers.close] if self._peers is not None else []
        stops += [self._readers.close, self._waits.close, self._heads_readers.close]
        stops += [self._offsets.stop] if self._offsets is not None else []
        stops += [self._admin.close] if self._admin is not None else []
        for stop in stops:
            try:
                await stop()
            except Exception:
                log.exception("error while closing a Kafka client")
        self._writers.clear()
        self._offsets = self._admin = self._member = self._peer_server = self._peers = None


__all__ = ["EVENT_ID_HEADER", "EVENT_TYPE_HEADER", "KafkaEventLog", "WriterConfig"]
