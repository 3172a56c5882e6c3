"""The usage table: per-tenant live memories and bytes, folded from the log by a Faust agent.

``ai-memory project --projection usage`` runs one Faust app (``aimem-usage.<topic>``)
whose agent folds every event into a changelog-backed Faust table (``usage``) with the
pure ``core.usage.UsageFold``. The table is partitioned like the log: the fold of
partition *p* writes its keys to changelog partition *p* (``PartitionedTable``), so when a
partition moves to another worker Faust recovers exactly its keys there.

Faust's at-least-once contract is what the fold is built for: the changelog is flushed
before offsets are committed, so after a crash the table holds a prefix of its writes
and the events after the committed offset are delivered again; ``UsageFold`` is exact
under both (``core/usage.py``). Unlike the records and index views, this view lives *in*
Kafka, so Faust's committed offsets are the right place to resume from.

Gateways read the table without running Faust: ``adapters/kafka/usage_replica.py`` tails
its changelog topic (``CHANGELOG``) and sums a tenant's keys — one number for every
gateway, which the quota enforces.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import faust

from ai_memory.adapters.kafka.config import KafkaLogConfig
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import EventSerializer
from ai_memory.core.positions import pack
from ai_memory.core.usage import UsageFold

from .faust_worker import BATCH_SIZE, BATCH_WITHIN_S, ProjectorApp
from .policy import Backoff, Stopping
from .worker import MAX_BACKOFF_S

log = logging.getLogger(__name__)

TABLE = "usage"


def app_id(topic: str) -> str:
    return f"aimem-usage.{topic}"


def changelog_topic(topic: str) -> str:
    """Faust's name for the table's changelog topic (``<app id>-<table>-changelog``)."""
    return f"{app_id(topic)}-{TABLE}-changelog"


class PartitionedTable(faust.Table[str, list[int]]):
    """A table whose keys are written to the partition being folded: Faust would take
    the partition of the stream's "current event", which in a batch of several
    partitions is only the last one's."""

    writing: int | None = None

    def partition_for_key(self, key: Any) -> int | None:
        assert self.writing is not None, "usage keys are written only while folding"
        return self.writing


class UsageWorker:
    """Decodes the agent's batches on one thread; an event that cannot be decoded (a
    poison event, dead-lettered by the records projection) changes no usage."""

    def __init__(self, serializer: EventSerializer) -> None:
        self.serializer = serializer
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="usage")
        self.undecodable = 0
        self._stopping = threading.Event()

    def decode(self, raw: list[tuple[int, int, bytes]]) -> dict[int, list[LoggedEvent]]:
        by_partition: dict[int, list[LoggedEvent]] = defaultdict(list)
        for partition, offset, value in raw:
            position = pack(partition, offset)
            delay = Backoff(0.1, MAX_BACKOFF_S).delays()
            while True:
                try:
                    event = self.serializer.decode(value)
                    break
                except RetryableError as e:  # the vault is down: wait, never miscount
                    log.warning("usage: cannot open event %d yet (%s); retrying", position, e)
                    if self._stopping.wait(delay()):
                        raise Stopping("the usage worker is stopping") from e
                except Exception as e:  # whatever else the decoder raises
                    self.undecodable += 1
                    log.error("usage: event %d cannot be decoded, not counted: %s", position, e)
                    event = None
                    break
            if event is not None:
                by_partition[partition].append(LoggedEvent(position, event))
        return by_partition

    def stopping(self) -> None:
        self._stopping.set()

    def close(self) -> None:
        self._stopping.set()
        self.executor.shutdown(wait=True)


def usage_app(kafka: KafkaLogConfig, worker: UsageWorker) -> faust.App:
    app = ProjectorApp(  # read_committed consumer; no view to seek to (``projector`` unset)
        app_id(kafka.topic),
        broker=[f"kafka://{host}" for host in kafka.bootstrap.split(",")],
        broker_client_id="aimem-usage",
        web_enabled=False,
        store="memory://",  # rebuilt from the changelog at start
        topic_disable_leader=True,
        topic_partitions=kafka.partitions,
        consumer_auto_offset_reset="earliest",
        broker_max_poll_records=BATCH_SIZE,
        broker_session_timeout=10.0,
        broker_heartbeat_interval=2.0,
        broker_request_timeout=max(kafka.request_timeout, 30.0),
        broker_max_poll_interval=3600.0,
        stream_processing_timeout=3600.0,
    )
    topic = app.topic(
        kafka.topic, key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw"
    )
    table = PartitionedTable(
        app,
        name=TABLE,
        beacon=app.tables.beacon,
        partitions=kafka.partitions,
        schema=faust.Schema(key_serializer="json", value_serializer="json"),
        help="per-tenant usage (core/usage.py)",
    )
    app.tables.add(table)
    fold = UsageFold(table)

    async def count(stream: faust.types.StreamT[Any]) -> None:
        loop = asyncio.get_running_loop()
        batches = cast(faust.Stream[bytes], stream).take_events(BATCH_SIZE, within=BATCH_WITHIN_S)
        async for events in batches:
            raw = [
                (e.message.partition, e.message.offset, bytes(e.message.value or b""))
                for e in events
            ]
            # Decoding opens sealed events (a vault read): off the loop, which keeps
            # heartbeating. Table writes stay on the loop (Faust's producer lives there).
            decoded = await loop.run_in_executor(worker.executor, worker.decode, raw)
            for partition, logged in decoded.items():
                table.writing = partition
                try:
                    fold.apply(partition, logged)
                finally:
                    table.writing = None

    app.agent(topic, name="usage", concurrency=1)(count)
    return app
