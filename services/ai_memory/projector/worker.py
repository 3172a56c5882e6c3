"""The body of a projector worker: a projection's sink behind the one apply policy.

The Faust agent (``faust_worker``) hands it each batch a partition delivered; this class
knows nothing of Kafka. It owns three things the driver must not get wrong:

* **Where a partition resumes** (``resume_offset``): the event after the checkpoint stored
  with the view, in the same store as its data — the only truth of what the view holds.
  Kafka's committed offsets can run ahead of it (a store that lost acknowledged writes)
  and are never trusted.
* **The guard**: before each batch, and before each retry after a sink error, the shared
  ``ApplyPolicy`` asks whether the stored checkpoint is still where this worker left it.
  If it went back (a single Cassandra node killed before its commit log was synced
  forgets the last acknowledged mutations), the batch is given up with ``Rewind`` and the
  driver must read the log again from the stored checkpoint.
* **One thread** applies batches strictly one after another, so the event loop keeps
  heartbeating while a store is slow or down (retried with backoff forever;
  ``aimem_projection_stuck`` is 1 meanwhile); undecodable events and events the sink
  cannot apply on their own are dead-lettered through the ``DeadLetters`` port.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ai_memory import metrics_catalog as mc
from ai_memory.core.errors import RetryableError
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import DeadLetters, EventSerializer, decode_all
from ai_memory.core.positions import offset_of, pack
from ai_memory.telemetry import batch_span, gc_pauses

from .policy import ApplyPolicy, Backoff, Rewind, Stopping
from .sinks import ProjectionSink

if TYPE_CHECKING:
    from opentelemetry.trace import SpanContext

log = logging.getLogger(__name__)

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
        self.registry.register(mc.GcCollector(gc_pauses.watch()))

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

    def forget_all(self) -> None:
        """After a ``Rewind``: no partition may be applied to again before it is resumed
        from its view (events already fetched for it lie past the gap)."""
        self._held.clear()

    def resumed(self, partition: int) -> bool:
        """Whether ``partition`` was resumed from its view by this worker and not since
        taken away or rewound (a driver applies nothing else)."""
        return partition in self._held

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

    async def handle(
        self,
        messages: Sequence[tuple[int, int, bytes]],
        parents: Mapping[tuple[int, int], SpanContext] | None = None,
    ) -> None:
        """Apply ``(partition, offset, value)`` messages; return once every one of them is
        applied or dead-lettered. ``parents``: the span context each message's producer
        sent (tracing on), so a batch's span joins the traces of its writes."""
        by_partition: dict[int, list[tuple[int, bytes]]] = {}
        for partition, offset, value in messages:
            by_partition.setdefault(partition, []).append((offset, value))
        loop = asyncio.get_running_loop()
        for partition, items in by_partition.items():
            with self._partitions_lock:
                self._partitions.add(partition)
            before = dict(self.policy.dead_lettered_by_reason)
            traced = [parents.get((partition, o)) for o, _ in items] if parents else []
            project = functools.partial(self._project_traced, partition, items, traced)
            applied = await loop.run_in_executor(self.executor, project)
            name = self.sink.name
            self.metrics.position.labels(name, str(partition)).set(pack(partition, items[-1][0]))
            self.metrics.applied.labels(name).inc(applied)
            for reason, count in self.policy.dead_lettered_by_reason.items():
                new = count - before.get(reason, 0)
                if new:
                    self.metrics.dead_lettered.labels(name, reason).inc(new)

    def _project_traced(
        self,
        partition: int,
        items: list[tuple[int, bytes]],
        parents: Sequence[SpanContext | None],
    ) -> int:
        attributes: dict[str, str | int] = {
            "aimem.projection": self.sink.name,
            "aimem.partition": partition,
            "aimem.events": len(items),
            "aimem.offset.first": items[0][0],
            "aimem.offset.last": items[-1][0],
        }
        with batch_span("aimem.projection.apply", parents, attributes):
            return self._project(partition, items)

    def _project(self, partition: int, items: list[tuple[int, bytes]]) -> int:
        """Decode and apply one partition's messages in offset order (on the sink thread).

        An undecodable message splits the batch: what precedes it is applied first, so the
        checkpoint — which read-your-writes waits on — never passes an unapplied event."""
        applied = 0
        run: list[LoggedEvent] = []
        raw: dict[int, bytes] = {}
        # The whole batch first: its sealed events' keys in one vault read.
        first = decode_all(self.serializer, [value for _, value in items])
        for (offset, value), decoded in zip(items, first, strict=True):
            position = pack(partition, offset)
            try:
                if isinstance(decoded, Exception):
                    # Again, through the policy: a store being down while decoding (the
                    # vault) is waited out, not parked; anything else is raised and parked.
                    event = self.policy.decode(
                        functools.partial(self.serializer.decode, value), position, partition
                    )
                else:
                    event = decoded
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
        held = self._held.get(partition)  # a revocation may drop it meanwhile
        if held is not None:
            self._held[partition] = max(held, pack(partition, items[-1][0]))
        return applied

    async def idle(self) -> None:
        """Nothing new on the log: let the sink make buffered work durable."""
        await asyncio.get_running_loop().run_in_executor(self.executor, self.sink.idle)

    def stopping(self) -> None:
        """A policy retrying a down store gives up waiting (the batch stays unapplied)."""
        self._stopping.set()

    def close(self) -> None:
        """Stop: what the sink buffered is made durable first (a stopped worker's view
        holds everything it reported applied), then the thread and the dead letters."""
        self._stopping.set()  # a policy retrying a down store gives up waiting
        try:
            self.executor.submit(self.sink.idle).result()
        except Exception:  # a store that is down: the next worker re-applies from the view
            log.exception("projection %s: buffered work not made durable", self.sink.name)
        self.executor.shutdown(wait=True)
        self.dead_letters.close()
