"""Kafka projector workers: consumer-group members around the projection sinks.

``ai-memory project --projection records|index`` runs one worker. Each projection of a
topic is its own consumer group (``aimem-projector-<projection>.<topic>``): records and
index lag, fail and are rebuilt independently, replicas of one projection share the
partitions, and deployments sharing a Kafka cluster never rebalance each other.

**Where a worker resumes.** The view's own checkpoint, stored with its data in the same
store, is the only truth of what the view holds: a checkpoint kept elsewhere could run ahead
of what the store durably holds and skip events for good. On every partition
assignment the worker reads that checkpoint and seeks the partition to the event after
it; Kafka's committed offsets are never used to resume (they are committed only so the
usual consumer-lag tools work). Before each batch, and before each retry after a sink
error, the shared ``ApplyPolicy`` asks the worker's guard whether the stored checkpoint is
still where this worker left it; if it went back (a single Cassandra node killed before
its commit log was synced forgets the last acknowledged mutations), the batch is given up
and every assigned partition is sought back to its stored checkpoint, so the lost events
are applied again instead of being skipped by the next batch's checkpoint.

**Why aiokafka directly, not Faust.** The loop is a plain ``AIOKafkaConsumer``. Seeking
is the whole point here, and Faust makes it impractical: a Faust stream buffers fetched
events in its own per-topic channel and acks them into its own commit bookkeeping, so a
seek does not discard events already buffered past the gap (they would be applied first,
moving the checkpoint past it), and Faust seeks assigned partitions to the committed
offsets on its own schedule. aiokafka's ``seek`` drops what it prefetched for the
partition, and ``getmany`` then returns from the new position — exactly the semantics
needed. The consumer reads ``read_committed``, so events of an aborted transaction are
never projected once appends are transactional.

Delivery is at-least-once; the sinks — order-safe and idempotent by log position — turn
redelivery into a no-op. Per batch: events are grouped by partition (positions are
per-partition), decoded with the same Avro serializer as every other reader, and applied
by the same sink code and the same ``ApplyPolicy`` as the embedded tailer, on one worker
thread so the event loop keeps heartbeating. Retryable failures (a store is down) are
retried with backoff forever (``aimem_projection_stuck`` is 1 meanwhile); undecodable
events and events the sink cannot apply on their own are dead-lettered through the
``DeadLetters`` port (the ``<topic>.dlq`` topic) and the projection moves on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import uvloop
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import KafkaError
from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ai_memory import metrics_catalog as mc
from ai_memory.adapters.kafka.config import KafkaLogConfig
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import DeadLetters, EventSerializer
from ai_memory.core.positions import offset_of, pack

from .policy import ApplyPolicy, Backoff, Rewind, Stopping
from .sinks import ProjectionSink

log = logging.getLogger(__name__)

BATCH_SIZE = 500
BATCH_WITHIN_S = 0.2
MAX_BACKOFF_S = 10.0


@dataclass
class WorkerMetrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        # Names, help and labels come from the one catalog the gateway uses too.
        self.position = mc.gauge(mc.PROJECTION_POSITION, self.registry)
        self.lag = mc.gauge(mc.PROJECTION_LAG, self.registry)
        self.applied = mc.counter(mc.PROJECTION_EVENTS, self.registry)
        self.dead_lettered = mc.counter(mc.DEAD_LETTERED, self.registry)

    def watch(self, worker: ProjectorWorker) -> None:
        """Failures and the stuck flag are read at scrape time: while a projection is
        stuck its worker thread is blocked retrying and updates nothing."""
        self.registry.register(_PolicyCollector(worker))


class _PolicyCollector(Collector):
    def __init__(self, worker: ProjectorWorker) -> None:
        self.worker = worker

    def collect(self) -> Iterable[GaugeMetricFamily]:
        policy = self.worker.policy
        failures = mc.gauge_family(mc.PROJECTION_FAILURES)
        failures.add_metric([policy.name], policy.failures)
        stuck = mc.gauge_family(mc.PROJECTION_STUCK)
        blocked = policy.stuck
        for partition in self.worker.seen_partitions():
            flag = blocked is not None and blocked.partition == partition
            stuck.add_metric([policy.name, str(partition)], 1.0 if flag else 0.0)
        yield failures
        yield stuck


class ProjectorWorker:
    """The agent's body, separate from the consumer loop so it can be tested directly.

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
            guard=self._guard,
        )
        # The checkpoint each partition's view held when this worker last read it or
        # moved it (only touched on the sink thread). Absent: not resumed by this worker.
        self._held: dict[int, int] = {}
        self.rewinds = 0  # times the view was found behind (a metric and for tests)
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

    async def resume_offset(self, partition: int) -> int:
        """The offset to read ``partition`` from: the event after the view's stored
        checkpoint (waiting out a store that is down). Remembers it for the guard."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self._resume_offset, partition)

    def _resume_offset(self, partition: int) -> int:
        delay = self.policy.backoff.delays()
        while True:
            try:
                stored = self.sink.checkpoint(partition)
                break
            except RetryableError as e:
                self.policy.note_failure(partition, 0, e)
                if self._stopping.wait(delay()):
                    raise Stopping(f"projection {self.sink.name} is stopping") from e
        self.policy.clear()
        self._held[partition] = stored
        # Reported at once, so a worker with nothing new to apply still shows where it is.
        self.metrics.position.labels(self.sink.name, str(partition)).set(stored)
        return 0 if stored == 0 else offset_of(stored) + 1

    def forget(self, partitions: Iterable[int]) -> None:
        """Partitions taken away: their checkpoint is someone else's to move now."""
        for partition in partitions:
            self._held.pop(partition, None)

    def _guard(self, partition: int) -> None:
        """Raise ``Rewind`` if the view lost what this worker applied to it."""
        held = self._held.get(partition)
        if held is None:
            return
        stored = self.sink.checkpoint(partition)
        if stored < held:
            self.rewinds += 1
            log.error(
                "projection %s: partition %d checkpoint is %d, behind %d that this worker "
                "applied (the store lost writes); re-reading the log from the checkpoint",
                self.sink.name,
                partition,
                stored,
                held,
            )
            raise Rewind(partition, stored, held)

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
                # A store being down while decoding (the vault) is waited out, not parked.
                event = self.policy.decode(
                    functools.partial(self.serializer.decode, value), position, partition
                )
            except (Stopping, Rewind):
                raise
            except Exception as e:  # whatever else the decoder raises, the bytes are parked
                applied += self.policy.apply(run, partition, raw).applied
                run = []
                self.policy.park_undecodable(position, partition, value, e)
                continue
            run.append(LoggedEvent(position, event))
            raw[position] = value
        applied += self.policy.apply(run, partition, raw).applied
        if partition in self._held:
            last = pack(partition, items[-1][0])
            self._held[partition] = max(self._held[partition], last)
        return applied

    async def idle(self) -> None:
        """Nothing new on the log: let the sink make buffered work durable."""
        await asyncio.get_running_loop().run_in_executor(self.executor, self.sink.idle)

    def stopping(self) -> None:
        """A policy retrying a down store gives up waiting (the batch stays unapplied)."""
        self._stopping.set()

    def close(self) -> None:
        self._stopping.set()  # a policy retrying a down store gives up waiting
        self.executor.shutdown(wait=True)
        self.dead_letters.close()


class _Resume(ConsumerRebalanceListener):  # type: ignore[misc]  # untyped base
    """Partitions assigned: queued for a seek to the view's checkpoint (done by the
    loop, which can wait out a store that is down without stalling the group)."""

    def __init__(self, app: ProjectorApp) -> None:
        self.app = app

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self.app.worker.forget(tp.partition for tp in revoked)
        self.app.pending.difference_update(revoked)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.app.pending.update(assigned)
        # Nothing is read from a partition before its seek: pause it until then.
        self.app.consumer.pause(*assigned)


class ProjectorApp:
    """The consumer loop of one projection worker (see the module docstring)."""

    def __init__(self, projection: str, kafka: KafkaLogConfig, worker: ProjectorWorker) -> None:
        self.projection = projection
        self.kafka = kafka
        self.worker = worker
        self.pending: set[TopicPartition] = set()
        self.stop = asyncio.Event()
        self._next_commit = 0.0
        self._consumer: AIOKafkaConsumer | None = None

    @property
    def consumer(self) -> AIOKafkaConsumer:
        assert self._consumer is not None, "the worker is not running"
        return self._consumer

    def _new_consumer(self) -> AIOKafkaConsumer:
        """Created inside the running event loop, which aiokafka binds it to."""
        kafka, projection = self.kafka, self.projection
        return AIOKafkaConsumer(
            bootstrap_servers=kafka.bootstrap,
            group_id=f"aimem-projector-{projection}.{kafka.topic}",
            client_id=f"aimem-projector-{projection}",
            enable_auto_commit=False,  # resuming never reads committed offsets
            auto_offset_reset="earliest",
            isolation_level="read_committed",
            max_poll_records=BATCH_SIZE,
            # A dead worker's partitions move to the survivors after this long.
            session_timeout_ms=10_000,
            heartbeat_interval_ms=2_000,
            # A batch retried while a store is down may take long; the group must not
            # evict the worker for it (the partition could not advance elsewhere either).
            max_poll_interval_ms=3_600_000,
            request_timeout_ms=int(kafka.request_timeout * 1000),
        )

    def shutdown(self) -> None:
        """Stop after the batch in hand (or at once, if it waits for a store that is down)."""
        self.stop.set()
        self.worker.stopping()

    async def run(self) -> None:
        self._consumer = self._new_consumer()
        await self.consumer.start()
        try:
            self.consumer.subscribe([self.kafka.topic], listener=_Resume(self))
            while not self.stop.is_set():
                await self._step()
        finally:
            await self.worker.idle()
            await self.consumer.stop()

    async def _step(self) -> None:
        if self.pending:
            await self._seek_pending()
        batch = await self.consumer.getmany(timeout_ms=int(BATCH_WITHIN_S * 1000))
        messages = [
            (tp.partition, r.offset, r.value)
            for tp, records in batch.items()
            if tp not in self.pending
            for r in records
        ]
        if not messages:
            await self.worker.idle()
            return
        try:
            await self.worker.handle(messages)
        except Rewind:
            # The view lost writes: every assigned partition goes back to what its view
            # durably holds (the others are cheap to re-check, and nothing is skipped).
            self.pending.update(self.consumer.assignment())
            self.consumer.pause(*self.pending)
            return
        self._report_lag(batch)
        await self._commit(batch)

    async def _seek_pending(self) -> None:
        for tp in sorted(self.pending):
            if tp not in self.consumer.assignment():
                self.pending.discard(tp)
                continue
            offset = await self.worker.resume_offset(tp.partition)
            if tp not in self.pending:  # revoked while the checkpoint was read
                continue
            self.consumer.seek(tp, offset)
            self.consumer.resume(tp)
            self.pending.discard(tp)
            log.info(
                "projection %s: partition %d resumes at offset %d (view checkpoint)",
                self.projection,
                tp.partition,
                offset,
            )

    def _report_lag(self, batch: dict[Any, list[Any]]) -> None:
        # A rebalance may have revoked a partition of the batch while it was applied;
        # asking its high watermark then fails an assertion in aiokafka and kills the
        # worker (and, each crash being a rebalance, its peers).
        assigned = self.consumer.assignment()
        for tp, records in batch.items():
            if tp not in assigned:
                continue
            highwater = self.consumer.highwater(tp)
            if records and highwater is not None:
                lag = max(0, highwater - records[-1].offset - 1)
                self.worker.metrics.lag.labels(self.projection, str(tp.partition)).set(lag)

    async def _commit(self, batch: dict[Any, list[Any]]) -> None:
        """Commit what was applied, at most once a second — only for lag tooling."""
        now = time.monotonic()
        if now < self._next_commit:
            return
        self._next_commit = now + 1.0
        assigned = self.consumer.assignment()
        offsets = {
            tp: records[-1].offset + 1
            for tp, records in batch.items()
            if records and tp in assigned
        }
        if not offsets:
            return
        try:
            await self.consumer.commit(offsets)
        except KafkaError as e:  # a rebalance in progress: harmless, never read back
            log.debug("projection %s: offset commit skipped (%s)", self.projection, e)


def create_app(
    projection: str,
    kafka: KafkaLogConfig,
    sink: ProjectionSink,
    serializer: EventSerializer,
    dead_letters: DeadLetters,
    *,
    metrics_port: int | None = None,
) -> tuple[ProjectorApp, ProjectorWorker]:
    worker = ProjectorWorker(sink, serializer, dead_letters, WorkerMetrics())
    if metrics_port:
        start_http_server(metrics_port, registry=worker.metrics.registry)
    return ProjectorApp(projection, kafka, worker), worker


def run_worker(app: ProjectorApp) -> None:
    """Run until SIGTERM/SIGINT (blocks)."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, app.shutdown)
        with contextlib.suppress(Stopping):  # stopped while a store was down
            await app.run()

    # uvloop: the consumer's fetches and heartbeats cost less CPU in a C event loop.
    uvloop.run(main())
