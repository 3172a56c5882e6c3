"""A Kafka projector worker (a Faust agent) resumes from the checkpoint stored with its
view, never from Kafka's committed offsets (which may run ahead of what the view holds),
on a real broker.

The view is an in-memory sink that can "lose" its last applied batch, as a single
Cassandra node killed before its commit log was synced does (data and checkpoint roll
back together). The consumer group's committed offsets are then moved to the end of the
log — ahead of the view, as after any crash of the store — and a restarted worker must
still apply every event.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from ai_memory.adapters.kafka.config import parse_kafka_url
from ai_memory.adapters.kafka.event_log import KafkaEventLog, WriterConfig
from ai_memory.adapters.sqlite_dead_letters import SqliteDeadLetters
from ai_memory.projector.faust_worker import create_app
from ai_memory.serialization import AvroEventSerializer
from tests.factories import record, written
from tests.unit.test_projector_worker import LossySink

PARTITIONS = 2


class RunningWorker:
    """One Faust projector app on its own thread and event loop, as ``ai-memory project``
    runs it (without the process-wide signal handling of ``faust.Worker``)."""

    def __init__(
        self, url: str, sink: LossySink, tmp: Path, *, request_timeout: float | None = None
    ) -> None:
        self.url, self.sink, self.tmp = url, sink, tmp
        self.request_timeout = request_timeout
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()
        assert self.ready.wait(60)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.app, self.worker = create_app(
            "records",
            parse_kafka_url(self.url),
            self.sink,
            AvroEventSerializer(),
            SqliteDeadLetters(self.tmp / f"dlq-{uuid.uuid4().hex}.db"),
        )
        if self.request_timeout is not None:  # what Faust gives its seek, among others
            conf = self.app.conf
            conf.broker_heartbeat_interval = 1.0
            conf.broker_session_timeout = conf.broker_request_timeout = self.request_timeout
        self.ready.set()
        self.loop.run_until_complete(self._run())

    async def _run(self) -> None:
        self.stopped = asyncio.Event()
        await self.app.start()
        await self.stopped.wait()  # the app's own "stopped" is set as stopping begins

    async def _stop(self) -> None:
        await self.app.stop()
        self.stopped.set()

    def stop(self) -> None:
        self.worker.stopping()
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(60)
        self.thread.join(60)
        assert not self.thread.is_alive()
        self.loop.close()
        self.worker.close()


@pytest.fixture
def url(kafka_bootstrap: str) -> str:
    return f"kafka://{kafka_bootstrap}/aimem.resume.{uuid.uuid4().hex[:10]}?partitions={PARTITIONS}"


@pytest.fixture
def log(url: str, tmp_path: Path) -> Iterator[KafkaEventLog]:
    opened = KafkaEventLog.from_url(url, AvroEventSerializer(), writer=WriterConfig())
    yield opened
    opened.close()


def append(log: KafkaEventLog, start: int, count: int) -> None:
    for n in range(start, start + count):
        log.append([written(record(f"m{n}", f"memory {n}", scope=f"user:u{n % 5}"))])


def eventually(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def caught_up(log: KafkaEventLog, sink: LossySink) -> Callable[[], bool]:
    return lambda: all(sink.checkpoint(p) >= log.last_position(p) for p in log.partitions())


def all_positions(log: KafkaEventLog) -> set[int]:
    return {
        e.position for p in log.partitions() for e in log.read(after=0, limit=10_000, partition=p)
    }


def commit_end_offsets(url: str) -> None:
    """Move the group's committed offsets to the end of the log (ahead of the view)."""
    config = parse_kafka_url(url)

    async def run() -> None:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=config.bootstrap,
            group_id=f"aimem-projector-records.{config.topic}",
            enable_auto_commit=False,
        )
        await consumer.start()
        try:
            tps = [TopicPartition(config.topic, p) for p in range(config.partitions)]
            consumer.assign(tps)
            ends = await consumer.end_offsets(tps)
            await consumer.commit(ends)
        finally:
            await consumer.stop()

    asyncio.run(run())


@pytest.mark.timeout(180)
def test_a_restarted_worker_reapplies_what_the_view_lost_despite_committed_offsets(
    url: str, log: KafkaEventLog, tmp_path: Path
) -> None:
    sink = LossySink()
    append(log, 0, 30)
    worker = RunningWorker(url, sink, tmp_path)
    eventually(caught_up(log, sink))
    worker.stop()
    sink.lose_last_batch()
    assert set(sink.rows) != all_positions(log)  # the view lost acknowledged events
    commit_end_offsets(url)
    worker = RunningWorker(url, sink, tmp_path)
    try:
        eventually(caught_up(log, sink))
        assert set(sink.rows) == all_positions(log)
    finally:
        worker.stop()


@pytest.mark.timeout(180)
def test_a_running_worker_rewinds_when_the_view_goes_back(
    url: str, log: KafkaEventLog, tmp_path: Path
) -> None:
    sink = LossySink()
    append(log, 0, 20)
    worker = RunningWorker(url, sink, tmp_path)
    try:
        eventually(caught_up(log, sink))
        sink.lose_last_batch()
        append(log, 20, 20)  # later batches must not carry the checkpoint past the gap
        eventually(caught_up(log, sink))
        eventually(lambda: set(sink.rows) == all_positions(log))
        assert worker.worker.rewinds >= 1
    finally:
        worker.stop()


def abort_a_transaction(url: str, count: int) -> None:
    """Send ``count`` well-formed events to partition 0 in a transaction, then abort it:
    what a gateway that lost its partition mid-append leaves on the log."""
    from aiokafka import AIOKafkaProducer

    config = parse_kafka_url(url)
    serializer = AvroEventSerializer()

    async def run() -> None:
        producer = AIOKafkaProducer(
            bootstrap_servers=config.bootstrap, transactional_id=f"abort-{uuid.uuid4().hex}"
        )
        await producer.start()
        try:
            await producer.begin_transaction()
            for n in range(count):
                event = written(record(f"aborted{n}", "must never be projected"))
                await producer.send(config.topic, serializer.encode(event), partition=0)
            await producer.abort_transaction()
        finally:
            await producer.stop()

    asyncio.run(run())


@pytest.mark.timeout(180)
def test_an_aborted_transaction_is_never_projected(
    url: str, log: KafkaEventLog, tmp_path: Path
) -> None:
    """Faust reads read_committed only in its exactly-once mode; the projector's consumer
    is told to. Read uncommitted, the aborted events would land in the view."""
    sink = LossySink()
    append(log, 0, 10)
    abort_a_transaction(url, 5)
    append(log, 10, 10)  # after the aborted ones on partition 0 too
    worker = RunningWorker(url, sink, tmp_path)
    try:
        eventually(caught_up(log, sink))
        assert set(sink.rows) == all_positions(log)
        assert len(sink.rows) == 20
    finally:
        worker.stop()


class SlowCheckpointSink(LossySink):
    """A view whose checkpoint reads take ``delay`` seconds while ``slow`` (a store
    node frozen while the worker resumes its partitions)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.slow = True

    def checkpoint(self, partition: int = 0) -> int:
        if self.slow:
            time.sleep(self.delay)
        return super().checkpoint(partition)


@pytest.mark.timeout(180)
def test_a_view_slower_than_fausts_seek_timeout_still_resumes(
    url: str, log: KafkaEventLog, tmp_path: Path
) -> None:
    """Faust gives its seek ``broker_request_timeout``; past it, its recovery gives up
    for good and the flow is never resumed. Reading the view's checkpoints must not be
    what that timeout bounds: the worker resumes once the store answers."""
    sink = SlowCheckpointSink(delay=5.0)  # two partitions: 10 s, past the 6 s below
    append(log, 0, 20)
    worker = RunningWorker(url, sink, tmp_path, request_timeout=6.0)  # the broker minimum
    try:
        time.sleep(14)  # past the seek timeout with the store still slow
        sink.slow = False
        eventually(caught_up(log, sink), timeout=90)
        assert set(sink.rows) == all_positions(log)
    finally:
        worker.stop()
