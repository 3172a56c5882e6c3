"""The usage table: per-tenant live memories and bytes, folded from the log by a Faust agent.

``ai-memory project --projection usage`` runs one Faust app (``aimem-usage.<topic>``)
whose agent folds every event into a changelog-backed Faust table (``usage``) with the
pure ``core.usage.UsageFold``. The table is partitioned like the log: the fold of
partition *p* writes its keys to changelog partition *p* (``PartitionedTable``), so when a
partition moves to another worker Faust recovers exactly its keys there.

After a crash the table holds a prefix of its writes (its changelog partition is written
in order); each partition resumes after the last event its fold recorded as folded (the
``p|`` key, written after the batch's usage keys: ``UsageRunner``), and ``UsageFold`` is
exact under a prefix and a redelivery from any earlier point (``core/usage.py``). Faust's
committed offsets are not used: a restart was seen to skip events with them (commits
that had not advanced, and Faust fetching from the old position before its seek).

Gateways read the table without running Faust: ``adapters/kafka/usage_replica.py`` tails
its changelog topic (``CHANGELOG``) and sums a tenant's keys — one number for every
gateway, which the quota enforces.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, cast

import faust
from faust.types import TP

from ai_memory.adapters.kafka.config import KafkaLogConfig
from ai_memory.adapters.kafka.usage_replica import TABLE, app_id, changelog_topic
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import DomainEvent
from ai_memory.core.ports import EventSerializer
from ai_memory.core.positions import offset_of, pack
from ai_memory.core.usage import ABSENT, Touch, UsageFold, content_bytes, resume_point, touch

from .faust_worker import (
    BATCH_SIZE,
    BATCH_WITHIN_S,
    ProjectorApp,
    app_settings,
    current_messages,
)
from .policy import Backoff, Stopping
from .worker import MAX_BACKOFF_S

log = logging.getLogger(__name__)

#: An event's position and what it does to usage.
Touched = tuple[int, Touch | None]

__all__ = ["TABLE", "PartitionedTable", "UsageWorker", "app_id", "changelog_topic", "usage_app"]


class PartitionedTable(faust.Table[str, list[int]]):
    """A table whose keys are written to the partition being folded: Faust would take
    the partition of the stream's "current event", which in a batch of several
    partitions is only the last one's."""

    writing: int | None = None

    def partition_for_key(self, key: Any) -> int | None:
        assert self.writing is not None, "usage keys are written only while folding"
        return self.writing


class ClearReading(EventSerializer, Protocol):
    """A serializer that also reads an event's fields as the log holds them, sealed
    fields left sealed (no key read): ``AvroEventSerializer.clear_fields``."""

    def clear_fields(self, data: bytes) -> tuple[str, dict[str, Any]]: ...


class UsageWorker:
    """Reads what each event of the agent's batches does to usage, on one thread.

    Without opening sealed events: a ``MemoryWritten`` carries its content's size in
    clear (schema v2), so the Avro body is read and the sealer — a vault read per new
    memory, then AES-GCM — is left out. Only a v1 event written sealed goes through the
    whole decoder. An event that cannot be decoded (a poison event, dead-lettered by the
    records projection) changes no usage."""

    def __init__(self, serializer: ClearReading) -> None:
        self.serializer = serializer
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="usage")
        self.undecodable = 0
        self.opened = 0  # events that needed the whole decoder (v1 sealed writes)
        self._stopping = threading.Event()

    def decode(self, raw: list[tuple[int, int, bytes]]) -> dict[int, list[Touched]]:
        by_partition: dict[int, list[Touched]] = defaultdict(list)
        for partition, offset, value in raw:
            position = pack(partition, offset)
            try:
                touched = self._touch(value, position)
            except Stopping:
                raise
            except Exception as e:  # whatever else the decoder raises
                self.undecodable += 1
                log.error("usage: event %d cannot be decoded, not counted: %s", position, e)
                continue
            by_partition[partition].append((position, touched))
        return by_partition

    def _touch(self, value: bytes, position: int) -> Touch | None:
        name, body = self.serializer.clear_fields(value)
        if name == "MemoryDeleted":
            return Touch(body["tenant"], body["memory_id"], ABSENT)
        if name != "MemoryWritten":
            return None
        record = body["record"]
        if body["encryption"] is None:
            return Touch(body["tenant"], record["id"], content_bytes(record["content"]))
        if body["content_bytes"] is not None:
            return Touch(body["tenant"], record["id"], body["content_bytes"])
        self.opened += 1
        return touch(self._open(value, position))

    def _open(self, value: bytes, position: int) -> DomainEvent:
        delay = Backoff(0.1, MAX_BACKOFF_S).delays()
        while True:
            try:
                return self.serializer.decode(value)
            except RetryableError as e:  # the vault is down: wait, never miscount
                log.warning("usage: cannot open event %d yet (%s); retrying", position, e)
                if self._stopping.wait(delay()):
                    raise Stopping("the usage worker is stopping") from e

    def stopping(self) -> None:
        self._stopping.set()

    def close(self) -> None:
        self._stopping.set()
        self.executor.shutdown(wait=True)


class UsageRunner:
    """The usage app's resume points and batches. Like the projectors, the table owns
    where each partition resumes: the ``p|`` key its fold writes last (``core/usage.py``),
    recovered from the changelog before Faust seeks, so neither the group's committed
    offsets nor events Faust fetched before its seek can make a partition skip events."""

    def __init__(
        self, app: ProjectorApp, topic: str, table: PartitionedTable, worker: UsageWorker
    ) -> None:
        self.app = app
        self.topic = topic
        self.table = table
        self.worker = worker
        self.fold = UsageFold(table)
        self._resumed: set[int] = set()

    async def resume_offsets(self, assigned: Iterable[TP]) -> dict[TP, int]:
        offsets: dict[TP, int] = {}
        for tp in sorted(assigned):
            if tp.topic != self.topic:
                continue
            done = resume_point(self.table, tp.partition)
            offsets[tp] = 0 if done is None else offset_of(done) + 1
            self._resumed.add(tp.partition)
            log.info("usage: partition %d resumes at offset %d", tp.partition, offsets[tp])
        return offsets

    def revoked(self, partitions: Iterable[TP]) -> None:
        self._resumed.difference_update(tp.partition for tp in partitions)

    async def apply(self, events: Sequence[Any]) -> None:
        messages, _ = current_messages(self.app, events, self._resumed.__contains__)
        if not messages:
            return
        last: dict[int, int] = {}
        for partition, offset, _ in messages:
            last[partition] = pack(partition, offset)
        # Decoding opens sealed events (a vault read): off the loop, which keeps
        # heartbeating. Table writes stay on the loop (Faust's producer lives there).
        loop = asyncio.get_running_loop()
        decoded = await loop.run_in_executor(self.worker.executor, self.worker.decode, messages)
        for partition, through in last.items():
            if partition not in self._resumed:
                continue  # revoked while decoding: its new owner folds it
            self.table.writing = partition
            try:
                self.fold.apply_touches(partition, decoded.get(partition, []), through=through)
            finally:
                self.table.writing = None


def usage_app(kafka: KafkaLogConfig, worker: UsageWorker) -> ProjectorApp:
    app = ProjectorApp(  # read_committed; resumes from the table (``UsageRunner``)
        app_id(kafka.topic),
        store="memory://",  # rebuilt from the changelog at start
        **app_settings(kafka, "aimem-usage"),
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
    runner = UsageRunner(app, kafka.topic, table, worker)
    app.projector = runner

    async def count(stream: faust.types.StreamT[Any]) -> None:
        batches = cast(faust.Stream[bytes], stream).take_events(BATCH_SIZE, within=BATCH_WITHIN_S)
        async for events in batches:
            await runner.apply(events)

    app.agent(topic, name="usage", concurrency=1)(count)

    def revoked(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
        runner.revoked(args[0] if args else kwargs["revoked"])

    app.on_partitions_revoked.connect(revoked)
    return app
