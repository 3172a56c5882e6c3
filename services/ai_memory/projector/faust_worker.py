"""Projector workers as Faust agents: ``ai-memory project --projection records|index``.

Each projection of a topic is its own Faust app and so its own consumer group
(``aimem-projector-<projection>.<topic>``): records and index lag, fail and are rebuilt
independently, replicas of one projection share the partitions, and deployments sharing
a Kafka cluster never rebalance each other. One agent (``project``) takes the topic's
events in batches (``stream.take_events``) and hands them to the ``ProjectorWorker`` —
the same pure projector, sinks and apply/retry/dead-letter policy as the embedded tailer.

What Faust owns: group membership, assignment, fetching, flow control, the stream's
buffers, acks and offset commits, signals, the worker's lifecycle. What we own, and why
(``docs/design/PROJECTORS.md``):

* **Where a partition resumes.** After every rebalance Faust pauses the assigned
  partitions and then seeks each to its *committed* offset (``perform_seek`` →
  ``seek_to_committed``). A committed offset can run ahead of the view (a store that lost
  acknowledged writes), so the consumer here (``ViewConsumer``) answers
  ``seek_to_committed`` with the view's own checkpoints: every seek Faust makes lands on
  the event after what the view durably holds. Committed offsets still move (Faust
  commits what was acked) so the usual consumer-lag tools work; they are never read back.
* **Stale events.** A batch is applied only for partitions resumed from their view in
  this generation; events Faust fetched before a rebalance (an older generation) are
  dropped, and Faust delivers them again from the new seek.
* **A view found behind its checkpoint while running** (``Rewind``): the batch is given
  up, every partition is marked unresumed, and the group is asked to rebalance; Faust's
  own revoke/assign cycle clears its buffers and seeks — through the view — so the lost
  events are applied again instead of skipped.
* **read_committed.** Appends are Kafka transactions; Faust reads read_committed only in
  its own exactly-once mode, so the consumer is told to here: an aborted transaction's
  events are never projected.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

import faust
from faust.transport.drivers import aiokafka as faust_kafka
from faust.types import TP
from prometheus_client import start_http_server

from ai_memory.adapters.kafka.config import KafkaLogConfig
from ai_memory.core.ports import DeadLetters, EventSerializer
from ai_memory.telemetry import context_from_headers, enabled

from .offset_gaps import add_gap
from .policy import Rewind, Stopping
from .sinks import ProjectionSink
from .worker import ProjectorWorker, WorkerMetrics

if TYPE_CHECKING:
    from opentelemetry.trace import SpanContext

log = logging.getLogger(__name__)

BATCH_SIZE = 500
BATCH_WITHIN_S = 0.2
#: A fetch is answered once this much has accumulated or after FETCH_WAIT_MS, whichever
#: comes first. Faust asks for one byte, so every commit on the log (a single PUT's
#: transaction) woke each worker with a fetch of its own: at a hundred writes a second,
#: most of a worker's CPU went on fetch round trips carrying one or two events. Waiting
#: at most FETCH_WAIT_MS adds that much to write→projected latency and makes a worker's
#: fetches a few per ``BATCH_WITHIN_S`` whatever the write rate.
FETCH_MIN_BYTES = 1024 * 1024
FETCH_WAIT_MS = 100
#: The sink's buffered work is made durable after this long without a batch.
IDLE_AFTER_S = 0.5
#: How often a worker holding events it may not apply asks the group to rebalance.
REJOIN_EVERY_S = 5.0


class _ViewConsumerThread(faust_kafka.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        # Faust reads read_committed only in its exactly-once mode; appends are
        # transactions, so an aborted one must never be projected.
        consumer._isolation_level = "read_committed"
        # Private like the line above (Faust passes neither); read by ``start``.
        consumer._fetch_min_bytes = FETCH_MIN_BYTES
        consumer._fetch_max_wait_ms = FETCH_WAIT_MS
        return consumer


class Resumer(Protocol):
    """Where each assigned partition of ``topic`` resumes: the view's say in every seek."""

    topic: str

    async def resume_offsets(self, assigned: Iterable[TP]) -> dict[TP, int]: ...


class ViewConsumer(faust_kafka.Consumer):
    """Faust's aiokafka consumer, except that every seek to "committed" offsets lands on
    the view's checkpoints for the projected topic, and a partition of that topic is
    fetched from only once it has been sought there (see the module docstring)."""

    def _new_consumer_thread(self) -> faust_kafka.AIOKafkaConsumerThread:
        return _ViewConsumerThread(self, loop=self.loop, beacon=self.beacon)

    async def _add_gap(self, tp: TP, offset_from: int, offset_to: int) -> None:
        # Faust's, without rebuilding the partition's gap tree for every gap read in
        # order (``offset_gaps``): each transaction on the log leaves one.
        committed = self._committed_offset[tp]
        if committed is not None:
            offset_from = max(offset_from, committed + 1)
        if offset_from <= offset_to and add_gap(self._gap[tp], offset_from, offset_to + 1):
            await asyncio.sleep(0)  # Faust yields around a merge too (health checks)

    def _resumer(self) -> Resumer | None:
        return cast(ProjectorApp, self.app).projector

    def resume_partitions(self, tps: Iterable[TP]) -> None:
        # Faust resumes the stream's partitions *before* it seeks them, and an app with
        # tables has its flow running then (it was reading changelogs): without this, a
        # fetch from the old position (the committed offset, or where a partition kept
        # over the rebalance had read to) races the seek, and events past the view's
        # checkpoint are handed over ahead of those the seek reads again.
        resumer = self._resumer()
        tpset = set(tps)
        if resumer is not None:
            held = {tp for tp in tpset if tp.topic == resumer.topic}
            self._awaiting_seek().update(held)
            tpset -= held
        super().resume_partitions(tpset)

    def _awaiting_seek(self) -> set[TP]:
        awaiting: set[TP] | None = getattr(self, "_awaiting", None)
        if awaiting is None:  # Faust's __init__ is long; the set is made on first use
            awaiting = set()
            self._awaiting = awaiting
        return awaiting

    async def seek_to_committed(self) -> Mapping[TP, int]:
        committed = dict(await super().seek_to_committed())
        resumer = self._resumer()
        if resumer is None:
            return committed
        # Not awaited: Faust gives this seek ``broker_request_timeout`` and, past it, its
        # recovery gives up for good (``ServiceStopped``: the flow is never resumed and
        # the worker idles silently — seen with a Cassandra node frozen for 30 s). The
        # projected partitions stay paused (``resume_partitions``) until the task has
        # read their view, however long the store takes, and sought them there.
        task = asyncio.ensure_future(self._seek_to_view(resumer))
        self._seeking().add(task)
        task.add_done_callback(self._sought)
        # Faust's read offsets for them are set by the task, not from committed offsets.
        return {tp: offset for tp, offset in committed.items() if tp.topic != resumer.topic}

    def _seeking(self) -> set[asyncio.Future[None]]:
        tasks: set[asyncio.Future[None]] | None = getattr(self, "_seek_tasks", None)
        if tasks is None:
            tasks = set()
            self._seek_tasks = tasks
        return tasks

    def _sought(self, task: asyncio.Future[None]) -> None:
        self._seeking().discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None and not isinstance(error, Stopping):
            log.error("seeking to the view failed; the group is asked to rebalance: %r", error)
            self._coordinator_rejoin()

    def _coordinator_rejoin(self) -> None:
        thread = self._thread

        async def request() -> None:
            thread._ensure_consumer()._coordinator.request_rejoin()

        rejoin = asyncio.ensure_future(thread.call_thread(request))
        self._seeking().add(rejoin)
        rejoin.add_done_callback(self._seeking().discard)

    async def _seek_to_view(self, resumer: Resumer) -> None:
        generation = self.app.consumer_generation_id
        resume = await resumer.resume_offsets(self.assignment())
        if resume:
            await self.seek_wait(resume)
        if self.app.consumer_generation_id != generation:
            return  # a newer rebalance seeks (and resumes) them again
        for tp, offset in resume.items():
            self._read_offset[tp] = offset or None  # Faust drops events below it
        ready = self._awaiting_seek() & set(resume) & self.assignment()
        self._awaiting_seek().difference_update(ready)
        super().resume_partitions(ready)


class _ViewTransport(faust_kafka.Transport):
    Consumer = ViewConsumer


class ProjectorApp(faust.App):
    """A Faust app whose consumer resumes partitions from the view (``ViewConsumer``)."""

    projector: Resumer | None = None

    def _new_transport(self) -> Any:
        return _ViewTransport(self.conf.broker_consumer, self)


def current_messages(
    app: faust.App, events: Sequence[Any], resumed: Callable[[int], bool]
) -> tuple[list[tuple[int, int, bytes]], bool]:
    """``(partition, offset, value)`` of the batch's events a worker may apply: fetched
    in the consumer's current generation, for a partition resumed from its view; and
    whether any event was held back for a partition not resumed."""
    generation = app.consumer_generation_id
    messages: list[tuple[int, int, bytes]] = []
    unresumed = False
    for event in events:
        message = event.message
        if message.generation_id != generation:
            continue  # fetched before a rebalance: delivered again after its seek
        if not resumed(message.partition):
            unresumed = True  # past a rewind, or its seek did not finish
            continue
        messages.append((message.partition, message.offset, bytes(message.value or b"")))
    return messages, unresumed


def trace_parents(events: Sequence[Any]) -> dict[tuple[int, int], SpanContext]:
    """The span context each event's producer sent (its ``traceparent`` header), by
    ``(partition, offset)``; nothing when tracing is off."""
    if not enabled():
        return {}
    found: dict[tuple[int, int], SpanContext] = {}
    for event in events:
        message = event.message
        context = context_from_headers(message.headers)
        if context is not None:
            found[(message.partition, message.offset)] = context
    return found


class ProjectorRunner:
    """What the agent does with each batch; also the view's say in every seek."""

    def __init__(self, app: ProjectorApp, topic: str, worker: ProjectorWorker) -> None:
        self.app = app
        self.topic = topic
        self.worker = worker
        self.last_batch = time.monotonic()
        self._next_rejoin = 0.0

    async def resume_offsets(self, assigned: Iterable[TP]) -> dict[TP, int]:
        """The offset after each assigned partition's view checkpoint (waits out a store
        that is down); the worker guards those partitions from now on."""
        offsets: dict[TP, int] = {}
        for tp in sorted(assigned):
            if tp.topic != self.topic:
                continue
            offsets[tp] = await self.worker.resume_offset(tp.partition)
            log.info(
                "projection %s: partition %d resumes at offset %d (view checkpoint)",
                self.worker.sink.name,
                tp.partition,
                offsets[tp],
            )
        return offsets

    async def revoked(self, partitions: Iterable[TP]) -> None:
        self.worker.forget(tp.partition for tp in partitions if tp.topic == self.topic)

    async def apply(self, events: Sequence[Any]) -> None:
        """Apply one batch of Faust events; return once each is applied or parked."""
        self.last_batch = time.monotonic()
        messages, unresumed = current_messages(self.app, events, self.worker.resumed)
        if unresumed:
            await self.rejoin("events arrived for a partition not resumed from its view")
        if not messages:
            return
        try:
            await self.worker.handle(messages, trace_parents(events))
        except Rewind as e:
            log.error(
                "projection %s: %s — the store lost acknowledged writes; every partition "
                "is re-read from its view's checkpoint after a rebalance",
                self.worker.sink.name,
                e,
            )
            self.worker.forget_all()
            await self.rejoin("the view went behind its checkpoint", now=True)
            return
        self._report_lag(messages)

    async def rejoin(self, why: str, *, now: bool = False) -> None:
        """Ask the group to rebalance: Faust then revokes, clears its buffers and seeks
        every partition again (through ``ViewConsumer``)."""
        moment = time.monotonic()
        if not now and moment < self._next_rejoin:
            return
        self._next_rejoin = moment + REJOIN_EVERY_S
        log.warning("projection %s: asking the group to rebalance (%s)", self.worker.sink.name, why)
        thread = self.app.consumer._thread  # type: ignore[attr-defined]

        async def request() -> None:
            thread._ensure_consumer()._coordinator.request_rejoin()

        await thread.call_thread(request)

    def _report_lag(self, messages: Sequence[tuple[int, int, bytes]]) -> None:
        last: dict[int, int] = {}
        for partition, offset, _ in messages:
            last[partition] = offset
        consumer = self.app.consumer
        assigned = consumer.assignment()
        for partition, offset in last.items():
            tp = TP(self.topic, partition)
            if tp not in assigned:  # revoked while the batch was applied
                continue
            highwater = consumer.highwater(tp)
            if highwater is not None:
                lag = max(0, highwater - offset - 1)
                self.worker.metrics.lag.labels(self.worker.sink.name, str(partition)).set(lag)

    async def tick(self) -> None:
        """Nothing new for a while: let the sink make buffered work durable."""
        if time.monotonic() - self.last_batch >= IDLE_AFTER_S:
            await self.worker.idle()


def app_settings(kafka: KafkaLogConfig, client_id: str) -> dict[str, Any]:
    """What every Faust app here is configured with (projectors and the usage table)."""
    return {
        "broker": [f"kafka://{host}" for host in kafka.bootstrap.split(",")],
        "broker_client_id": client_id,
        "web_enabled": False,  # metrics are served by prometheus_client (--metrics-port)
        "topic_disable_leader": True,  # no leader election: nothing here needs one
        "topic_partitions": kafka.partitions,
        "consumer_auto_offset_reset": "earliest",
        "broker_max_poll_records": BATCH_SIZE,
        # A dead worker's partitions move to the survivors after this long.
        "broker_session_timeout": 10.0,
        "broker_heartbeat_interval": 2.0,
        "broker_request_timeout": max(kafka.request_timeout, 30.0),
        # A batch retried while a store is down may take long; the group must not evict
        # the worker for it (the partition could not advance elsewhere either).
        "broker_max_poll_interval": 3600.0,
        # A revocation never waits for buffered events: they are applied again, or
        # dropped as stale, whatever their fate here (every view is idempotent by
        # position).
        "stream_wait_empty": False,
        # Faust would log every event stuck behind a down store as a slow processing
        # error; ``aimem_projection_stuck`` says it once.
        "stream_processing_timeout": 3600.0,
        # Every table here is in memory (views keep their own positions), yet Faust
        # creates its data directory, by default ``<app id>-data`` in the working
        # directory: give it a private one that goes with the process.
        "datadir": _scratch_dir(),
    }


def _scratch_dir() -> str:
    scratch = tempfile.TemporaryDirectory(prefix="aimem-faust-")
    _SCRATCH.append(scratch)  # removed at exit (TemporaryDirectory's finalizer)
    return scratch.name


_SCRATCH: list[tempfile.TemporaryDirectory[str]] = []


def faust_app(projection: str, kafka: KafkaLogConfig, worker: ProjectorWorker) -> ProjectorApp:
    """The Faust app of one projection worker, its agent and its signals."""
    app = ProjectorApp(
        f"aimem-projector-{projection}.{kafka.topic}",
        store="memory://",
        **app_settings(kafka, f"aimem-projector-{projection}"),
    )
    topic = app.topic(
        kafka.topic, key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw"
    )
    runner = ProjectorRunner(app, kafka.topic, worker)
    app.projector = runner

    async def project(stream: faust.types.StreamT[Any]) -> None:
        # take_events (not take): each batch keeps its messages' partitions, offsets
        # and generations. It is on Stream, not on the StreamT protocol.
        batches = cast(faust.Stream[bytes], stream).take_events(BATCH_SIZE, within=BATCH_WITHIN_S)
        async for events in batches:
            await runner.apply(events)

    app.agent(topic, name=f"project-{projection}", concurrency=1)(project)

    def revoked(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> Awaitable[None]:
        return runner.revoked(args[0] if args else kwargs["revoked"])

    app.on_partitions_revoked.connect(revoked)
    app.timer(IDLE_AFTER_S)(runner.tick)
    return app


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
    return faust_app(projection, kafka, worker), worker


def run_worker(
    app: faust.App,
    *,
    loglevel: str = "info",
    stopping: Callable[[], None] | None = None,
    logging_config: dict[str, Any] | None = None,
) -> None:
    """Run until SIGTERM/SIGINT (blocks): Faust's worker owns the loop and the signals.
    ``stopping`` is called as shutdown begins (a batch waiting for a down store gives up)."""
    import uvloop

    # uvloop: the consumer's fetches and heartbeats cost less CPU in a C event loop.
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    # ``logging_config``: ours (AIMEM_LOG_FORMAT) instead of Faust's coloured lines.
    worker = faust.Worker(app, loglevel=loglevel, quiet=True, logging_config=logging_config)
    if stopping is not None:
        stop = stopping

        def on_shutdown(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
            stop()

        app.on_before_shutdown.connect(on_shutdown)
    try:
        worker.execute_from_commandline()
    except SystemExit as e:
        if e.code not in (0, None):
            raise
    except Stopping:
        pass
