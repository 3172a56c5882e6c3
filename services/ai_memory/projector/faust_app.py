"""Faust projector workers: thin stream-processor agents around the projection sinks.

``ai-memory project --projection records|index`` runs one worker. Each projection is its
own Faust app, hence its own Kafka consumer group: records and index lag, fail and are
rebuilt independently, and replicas of one projection share the partitions.

Delivery is at-least-once. A batch is acknowledged only after its sink applied it; a
worker killed mid-batch gets the uncommitted events again, and the sinks — order-safe and
idempotent by log position — turn the redelivery into a no-op. Faust's ``exactly_once``
mode is deliberately not used.

Per batch: events are grouped by partition (positions are per-partition), decoded with
the same Avro serializer as every other reader, and applied by the same sink code and the
same ``ApplyPolicy`` as the embedded tailer, in a worker thread so the Faust event loop
keeps heartbeating. Retryable failures (a store is down) are retried with backoff forever
and the batch is not acknowledged meanwhile (``aimem_projection_stuck`` is 1); undecodable
events and events the sink cannot apply on their own are dead-lettered through the
``DeadLetters`` port (the ``<topic>.dlq`` topic, one format) and the projection moves on.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import faust
from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ai_memory.adapters.kafka.config import KafkaLogConfig
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import DeadLetters, EventSerializer
from ai_memory.core.positions import pack

from .policy import ApplyPolicy, Backoff
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
        self.dead_lettered = Counter(
            "aimem_dead_lettered_events",
            "Events sent to the DLQ",
            ["projection", "reason"],
            registry=self.registry,
        )

    def watch(self, worker: ProjectorWorker) -> None:
        """Failures and the stuck flag are read at scrape time: while a projection is
        stuck its worker thread is blocked retrying and updates nothing."""
        self.registry.register(_PolicyCollector(worker))


class _PolicyCollector(Collector):
    def __init__(self, worker: ProjectorWorker) -> None:
        self.worker = worker

    def collect(self) -> Iterable[GaugeMetricFamily]:
        policy = self.worker.policy
        failures = GaugeMetricFamily(
            "aimem_projection_failures", "Failed batches (retried)", labels=["projection"]
        )
        failures.add_metric([policy.name], policy.failures)
        stuck = GaugeMetricFamily(
            "aimem_projection_stuck",
            "1 while the projection cannot advance on this partition (retrying)",
            labels=["projection", "partition"],
        )
        blocked = policy.stuck
        for partition in self.worker.seen_partitions():
            flag = blocked is not None and blocked.partition == partition
            stuck.add_metric([policy.name, str(partition)], 1.0 if flag else 0.0)
        yield failures
        yield stuck


class ProjectorWorker:
    """The agent's body, separate from Faust wiring so it can be tested directly.

    Owns ``dead_letters`` (closed by ``close``)."""

    def __init__(
        self,
        sink: ProjectionSink,
        serializer: EventSerializer,
        dead_letters: DeadLetters,
        metrics: WorkerMetrics | None = None,
        *,
        backoff: Backoff | None = None,
    ) -> None:
        self.sink = sink
        self.serializer = serializer
        self.dead_letters = dead_letters
        self._stopping = threading.Event()
        self.policy = ApplyPolicy(
            sink,
            dead_letters,
            backoff=backoff or Backoff(0.1, MAX_BACKOFF_S),
            wait=self._stopping.wait,
        )
        self._partitions: set[int] = set()
        self._partitions_lock = threading.Lock()  # read by the metrics server's thread
        self.metrics = metrics or WorkerMetrics()
        self.metrics.watch(self)
        # One thread: batches of a projection are applied strictly one after another.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"sink-{sink.name}")

    @property
    def failures(self) -> int:
        return self.policy.failures

    def seen_partitions(self) -> list[int]:
        with self._partitions_lock:
            return sorted(self._partitions)

    async def handle(self, messages: Sequence[tuple[int, int, bytes]]) -> None:
        """Apply ``(partition, offset, value)`` messages; return once every one of them is
        applied or dead-lettered."""
        by_partition: dict[int, list[tuple[int, bytes]]] = {}
        for partition, offset, value in messages:
            by_partition.setdefault(partition, []).append((offset, value))
        loop = asyncio.get_running_loop()
        for partition, items in by_partition.items():
            with self._partitions_lock:
                self._partitions.add(partition)
            before = dict(self.policy.dead_lettered_by_reason)
            applied = await loop.run_in_executor(self.executor, self._project, partition, items)
            name = self.sink.name
            self.metrics.position.labels(name, str(partition)).set(pack(partition, items[-1][0]))
            self.metrics.applied.labels(name).inc(applied)
            for reason, count in self.policy.dead_lettered_by_reason.items():
                new = count - before.get(reason, 0)
                if new:
                    self.metrics.dead_lettered.labels(name, reason).inc(new)

    def _project(self, partition: int, items: list[tuple[int, bytes]]) -> int:
        """Decode and apply one partition's messages in offset order (on the sink thread).

        An undecodable message splits the batch: what precedes it is applied first, so the
        checkpoint — which read-your-writes waits on — never passes an unapplied event."""
        applied = 0
        run: list[LoggedEvent] = []
        raw: dict[int, bytes] = {}
        for offset, value in items:
            position = pack(partition, offset)
            try:
                event = self.serializer.decode(value)
            except Exception as e:  # whatever the decoder raises, the bytes are parked
                applied += self.policy.apply(run, partition, raw).applied
                run = []
                self.policy.park_undecodable(position, partition, value, e)
                continue
            run.append(LoggedEvent(position, event))
            raw[position] = value
        return applied + self.policy.apply(run, partition, raw).applied

    def close(self) -> None:
        self._stopping.set()  # a policy retrying a down store gives up waiting
        self.executor.shutdown(wait=True)
        self.dead_letters.close()


def create_app(
    projection: str,
    kafka: KafkaLogConfig,
    sink: ProjectionSink,
    serializer: EventSerializer,
    dead_letters: DeadLetters,
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
    metrics = WorkerMetrics()
    worker = ProjectorWorker(sink, serializer, dead_letters, metrics)

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
