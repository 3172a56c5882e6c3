"""Faust projector workers: thin stream-processor agents around the projection sinks.

``ai-memory project --projection records|index`` runs one worker. Each projection is its
own Faust app, hence its own Kafka consumer group: records and index lag, fail and are
rebuilt independently, and replicas of one projection share the partitions.

Delivery is at-least-once. A batch is acknowledged only after its sink applied it; a
worker killed mid-batch gets the uncommitted events again, and the sinks — order-safe and
idempotent by log position — turn the redelivery into a no-op. Faust's ``exactly_once``
mode is deliberately not used.

Per batch: events are grouped by partition (positions are per-partition), decoded with
the same Avro serializer as every other reader, and applied by the same sink code as the
embedded tailer, in a worker thread so the Faust event loop keeps heartbeating.
Undecodable events and events a sink permanently rejects go to the dead-letter topic
with the reason; retryable failures (a store is down) are retried with backoff and the
batch is not acknowledged meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import faust
from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from ai_memory.adapters.kafka.config import KafkaLogConfig
from ai_memory.core.errors import PermanentError, RetryableError
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import EventSerializer
from ai_memory.core.positions import pack

from .sinks import ProjectionSink

log = logging.getLogger(__name__)

BATCH_SIZE = 500
BATCH_WITHIN_S = 0.2
MAX_BACKOFF_S = 10.0


@dataclass
class WorkerMetrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        labels = ["projection", "partition"]
        self.position = Gauge(
            "aimem_projection_position", "Last applied log position", labels, registry=self.registry
        )
        self.lag = Gauge(
            "aimem_projection_lag_events", "Events not yet applied", labels, registry=self.registry
        )
        self.applied = Counter(
            "aimem_projection_events", "Events applied", ["projection"], registry=self.registry
        )
        self.failures = Gauge(
            "aimem_projection_failures",
            "Failed batches (retried)",
            ["projection"],
            registry=self.registry,
        )
        self.dead_lettered = Counter(
            "aimem_dead_lettered_events",
            "Events sent to the DLQ",
            ["projection", "reason"],
            registry=self.registry,
        )


class ProjectorWorker:
    """The agent's body, separate from Faust wiring so it can be tested directly."""

    def __init__(
        self,
        sink: ProjectionSink,
        serializer: EventSerializer,
        dead_letter: DeadLetter,
        metrics: WorkerMetrics | None = None,
    ) -> None:
        self.sink = sink
        self.serializer = serializer
        self.dead_letter = dead_letter
        self.metrics = metrics or WorkerMetrics()
        self.failures = 0
        # One thread: batches of a projection are applied strictly one after another.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"sink-{sink.name}")

    async def handle(self, messages: Sequence[tuple[int, int, bytes]]) -> None:
        """Apply ``(partition, offset, value)`` messages; return once all are applied."""
        by_partition: dict[int, list[LoggedEvent]] = {}
        raw: dict[int, bytes] = {}
        for partition, offset, value in messages:
            position = pack(partition, offset)
            raw[position] = value
            try:
                event = self.serializer.decode(value)
            except PermanentError as e:
                await self._dead_letter(value, getattr(e, "reason", e.code), position)
                continue
            by_partition.setdefault(partition, []).append(LoggedEvent(position, event))
        for partition, events in by_partition.items():
            await self._apply(partition, events, raw)
            self.metrics.position.labels(self.sink.name, str(partition)).set(events[-1].position)
            self.metrics.applied.labels(self.sink.name).inc(len(events))

    async def _apply(
        self, partition: int, events: list[LoggedEvent], raw: dict[int, bytes]
    ) -> None:
        loop = asyncio.get_running_loop()
        backoff = 0.1
        while True:
            try:
                await loop.run_in_executor(self.executor, self.sink.apply, events, partition)
                return
            except RetryableError as e:
                self.failures += 1
                self.metrics.failures.labels(self.sink.name).set(self.failures)
                log.warning("projection %s: %s; retrying in %.1fs", self.sink.name, e, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
            except PermanentError:
                # Find the poison event(s): apply one by one, dead-letter what fails.
                for event in events:
                    try:
                        await loop.run_in_executor(
                            self.executor, self.sink.apply, [event], partition
                        )
                    except PermanentError as e:
                        await self._dead_letter(
                            raw[event.position], f"projection:{e.code}", event.position
                        )
                return

    async def _dead_letter(self, raw: bytes, reason: str, position: int) -> None:
        log.error(
            "projection %s: dead-lettering position %s (%s)", self.sink.name, position, reason
        )
        self.metrics.dead_lettered.labels(self.sink.name, reason).inc()
        await self.dead_letter(raw, reason, position)

    def close(self) -> None:
        self.executor.shutdown(wait=True)


class DeadLetter:
    """Sends an event's original bytes to the dead-letter topic with the reason."""

    def __init__(self, topic: Any) -> None:
        self.topic = topic

    async def __call__(self, raw: bytes, reason: str, position: int) -> None:
        await self.topic.send(
            value=raw,
            headers=[("reason", reason.encode()), ("position", str(position).encode())],
        )


def create_app(
    projection: str,
    kafka: KafkaLogConfig,
    sink: ProjectionSink,
    serializer: EventSerializer,
    *,
    metrics_port: int | None = None,
) -> tuple[faust.App, ProjectorWorker]:
    app = faust.App(
        f"aimem-projector-{projection}",
        broker=[f"kafka://{host}" for host in kafka.bootstrap.split(",")],
        value_serializer="raw",
        key_serializer="raw",
        store="memory://",
        web_enabled=False,
        consumer_auto_offset_reset="earliest",
        topic_replication_factor=kafka.replication_factor,
        producer_acks=-1,
        # Commit often: a crash then redelivers little (the sinks make it harmless anyway).
        broker_commit_every=BATCH_SIZE,
        broker_commit_interval=1.0,
        # A dead worker's partitions move to the survivors after this long.
        broker_session_timeout=10.0,
        broker_heartbeat_interval=2.0,
    )
    source = app.topic(
        kafka.topic, value_type=bytes, key_type=bytes, partitions=kafka.partitions, internal=False
    )
    dlq = app.topic(kafka.dead_letter_topic, value_type=bytes, key_type=bytes, internal=False)
    metrics = WorkerMetrics()
    worker = ProjectorWorker(sink, serializer, DeadLetter(dlq), metrics)

    @app.agent(source, name=f"project-{projection}", concurrency=1)
    async def project(stream: Any) -> None:  # faust.Stream; its stubs lack take_events
        async for events in stream.take_events(BATCH_SIZE, within=BATCH_WITHIN_S):
            messages = [(e.message.partition, e.message.offset, e.value) for e in events]
            await worker.handle(messages)
            for e in events:
                tp = e.message.tp
                highwater = app.consumer.highwater(tp)
                if highwater is not None:
                    lag = max(0, highwater - e.message.offset - 1)
                    metrics.lag.labels(projection, str(tp.partition)).set(lag)

    if metrics_port:
        start_http_server(metrics_port, registry=metrics.registry)
    return app, worker


def run_worker(app: faust.App) -> None:
    """Run until SIGTERM/SIGINT (blocks)."""
    faust.Worker(app, loglevel="WARNING", quiet=True).execute_from_commandline()
