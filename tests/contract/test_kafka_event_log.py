"""KafkaEventLog against a real broker: the EventLog contract plus Kafka-specific behaviour.

Kafka is always the real broker from ``tests/servers.py``. A log opened with a
``WriterConfig`` is a gateway: it joins the writers group and owns partitions; the
single-writer guarantees (fencing, forwarding, no orphan versions) are attacked in
``tests/integration/test_single_writer.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka import errors as ke
from aiokafka.admin import AIOKafkaAdminClient

from ai_memory.adapters.kafka import KafkaEventLog, UndecodableRecord, parse_kafka_url
from ai_memory.adapters.kafka.dead_letter import header_dict
from ai_memory.adapters.kafka.errors import translate
from ai_memory.adapters.kafka.event_log import EVENT_ID_HEADER, EVENT_TYPE_HEADER, WriterConfig
from ai_memory.core.errors import Conflict, InvalidInput, PermanentError, Unavailable
from ai_memory.core.ports import EventLog
from ai_memory.core.positions import offset_of, pack, partition_of
from ai_memory.serialization import AvroEventSerializer, UndecodableEvent
from tests.contract.event_log_contract import EventLogContract, read_all
from tests.factories import record, written
from tests.kafka_requests import count_fetches

JUNK = b"\x00not an avro frame at all"


def unique_topic() -> str:
    return f"aimem-test-{uuid.uuid4().hex[:12]}"


def delete_topics(bootstrap: str, topics: list[str]) -> None:
    async def run() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        try:
            await admin.start()
            await admin.delete_topics(topics)
        finally:
            await admin.close()

    asyncio.run(run())


@pytest.fixture
def topic(kafka_bootstrap: str) -> Iterator[str]:
    name = unique_topic()
    yield name
    delete_topics(kafka_bootstrap, [name, f"{name}.dlq", f"{name}.heads"])


def open_log(
    bootstrap: str, topic: str, *, partitions: int = 3, writer: bool = True
) -> KafkaEventLog:
    return KafkaEventLog(
        bootstrap,
        topic,
        AvroEventSerializer(),
        partitions=partitions,
        request_timeout=10.0,
        writer=WriterConfig() if writer else None,
    )


class TestKafkaEventLog(EventLogContract):
    @pytest.fixture(params=[1, 3], ids=["1-partition", "3-partitions"])
    def log(
        self, request: pytest.FixtureRequest, kafka_bootstrap: str, topic: str
    ) -> Iterator[EventLog]:
        log = open_log(kafka_bootstrap, topic, partitions=request.param)
        yield log
        log.close()


@pytest.fixture
def klog(kafka_bootstrap: str, topic: str) -> Iterator[KafkaEventLog]:
    log = open_log(kafka_bootstrap, topic, partitions=6)
    yield log
    log.close()


def end_offsets(log: KafkaEventLog) -> list[int]:
    return [log.last_position(p) for p in log.partitions()]


def raw_records(bootstrap: str, topic: str, partition: int, through: int = -1) -> list[Any]:
    """Every committed record of a partition, as the broker stores it (commit markers are
    not records: read until the position passes the end, not until a count). ``through``:
    an offset the read must include — a transaction's commit returns before the broker's
    markers move the last stable offset past it, so a read_committed end can lag a moment."""

    async def run() -> list[Any]:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            isolation_level="read_committed",
        )
        await consumer.start()
        try:
            tp = TopicPartition(topic, partition)
            consumer.assign([tp])
            deadline = asyncio.get_running_loop().time() + 30
            end = (await consumer.end_offsets([tp]))[tp]
            while end <= through:
                assert asyncio.get_running_loop().time() < deadline, "offset never stable"
                await asyncio.sleep(0.05)
                end = (await consumer.end_offsets([tp]))[tp]
            out: list[Any] = []
            while await consumer.position(tp) < end:
                assert asyncio.get_running_loop().time() < deadline, "partition not read"
                batch = await consumer.getmany(tp, timeout_ms=1000)
                out.extend(batch.get(tp, []))
            return out
        finally:
            await consumer.stop()

    return asyncio.run(run())


def produce_raw(bootstrap: str, topic: str, key: bytes, value: bytes) -> int:
    async def run() -> int:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
        await producer.start()
        try:
            meta = await producer.send_and_wait(topic, value=value, key=key)
            return pack(meta.partition, meta.offset)
        finally:
            await producer.stop()

    return asyncio.run(run())


def test_scopes_spread_over_partitions_and_each_stays_in_one(klog: KafkaEventLog) -> None:
    scopes = [f"user:{i}" for i in range(24)]
    events = [written(record(f"{s}/m{v}", scope=s)) for v in range(3) for s in scopes]
    positions = klog.append(events)
    by_scope: dict[str, set[int]] = {}
    for event, position in zip(events, positions, strict=True):
        by_scope.setdefault(event.record.scope, set()).add(partition_of(position))
    assert all(len(parts) == 1 for parts in by_scope.values())
    assert len(set().union(*by_scope.values())) > 1  # 24 scopes do not all hash alike


def test_records_carry_key_headers_and_avro_frames(
    klog: KafkaEventLog, kafka_bootstrap: str
) -> None:
    event = written(record("m1"))
    (position,) = klog.append([event])
    (rec,) = raw_records(
        kafka_bootstrap, klog.config.topic, partition_of(position), offset_of(position)
    )
    assert rec.key == b"default/user:alice" and rec.offset == offset_of(position)
    assert rec.value[:2] == b"\xc3\x01"
    headers = header_dict(rec.headers)
    assert headers[EVENT_TYPE_HEADER] == "MemoryWritten"
    assert headers[EVENT_ID_HEADER] == event.header.event_id


def test_retried_append_returns_original_position_and_produces_nothing(
    klog: KafkaEventLog,
) -> None:
    event = written(record("m1"))
    (position,) = klog.append([event])
    before = end_offsets(klog)
    assert klog.append([event]) == [position]
    assert end_offsets(klog) == before


def test_cas_loser_gets_conflict_and_nothing_is_produced(klog: KafkaEventLog) -> None:
    klog.append([written(record("m1", "first"))])
    before = end_offsets(klog)
    rival = written(record("m1", "a rival first version"))  # also version 1
    with pytest.raises(Conflict) as caught:
        klog.append([written(record("m9", "innocent bystander")), rival])
    assert caught.value.code == "concurrent_write"
    assert end_offsets(klog) == before
    assert klog.heads("default", ["m9"]) == {}  # refused whole: its other event neither


def test_racing_writers_of_one_version_one_wins(klog: KafkaEventLog) -> None:
    outcomes: list[str] = []

    def attempt(n: int) -> None:
        try:
            klog.append([written(record("contested", f"writer {n}"))])
            outcomes.append("ok")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 5 + ["ok"]
    assert len(read_all(klog)) == 1


def test_superseded_event_retry_is_refused_not_duplicated(klog: KafkaEventLog) -> None:
    v1 = written(record("m1", "one"))
    klog.append([v1, written(record("m1", "two"), version=2)])
    with pytest.raises(Conflict):
        klog.append([v1])
    assert len(read_all(klog)) == 2


@contextlib.contextmanager
def failing_commits(
    klog: KafkaEventLog, partition: int, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Inside: the partition's writer sends its events, then its commit fails as if the
    broker were gone (the transaction is aborted)."""
    writer = klog._writers[partition]
    # The writer opens its transactional producer once its partition is assigned: on a
    # broker that just started, the group coordinator needs a moment.
    klog._loop.run(writer.ready(60), 65)

    async def broker_gone() -> None:
        raise ke.KafkaConnectionError("connection refused")

    with monkeypatch.context() as patch:
        patch.setattr(writer._producer, "commit_transaction", broker_gone)
        yield


def test_failed_transaction_moves_no_head_and_leaves_nothing_readable(
    klog: KafkaEventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The orphan of the claim-then-append design: a version decided, its event never
    committed. Here the commit fails after the events were sent to the broker."""
    event = written(record("m1"))
    partition = klog.partition_for(event.partition_key)
    with failing_commits(klog, partition, monkeypatch), pytest.raises(Unavailable):
        klog.append([event])
    assert klog.heads("default", ["m1"]) == {}  # no version without its event
    assert read_all(klog) == []  # the aborted transaction is never read
    (position,) = klog.append([event])  # the caller's retry goes through, once
    assert klog.heads("default", ["m1"])["m1"].position == position
    assert [e.position for e in read_all(klog)] == [position]


def test_undecodable_record_carries_position_and_bytes(
    klog: KafkaEventLog, kafka_bootstrap: str
) -> None:
    (good,) = klog.append([written(record("m1"))])
    bad = produce_raw(kafka_bootstrap, klog.config.topic, b"default/user:alice", JUNK)
    (after,) = klog.append([written(record("m2"))])
    partition = partition_of(good)
    assert [e.position for e in klog.read(after=0, limit=10, partition=partition)] == [good]
    with pytest.raises(UndecodableRecord) as caught:
        klog.read(after=good, limit=10, partition=partition)
    assert isinstance(caught.value, UndecodableEvent)
    assert caught.value.position == bad and caught.value.raw == JUNK
    assert caught.value.reason == "bad_magic"
    assert [e.position for e in klog.read(after=bad, limit=10, partition=partition)] == [after]


def test_reads_validate_partition_and_position(klog: KafkaEventLog) -> None:
    with pytest.raises(InvalidInput):
        klog.read(after=0, limit=1, partition=6)
    with pytest.raises(InvalidInput):
        klog.read(after=pack(1, 0), limit=1, partition=2)


def test_close_is_idempotent(kafka_bootstrap: str, topic: str) -> None:
    log = open_log(kafka_bootstrap, topic)
    log.close()
    log.close()
    with pytest.raises(Unavailable):
        log.last_position(0)


def test_a_read_only_log_refuses_appends(kafka_bootstrap: str, topic: str) -> None:
    log = open_log(kafka_bootstrap, topic, writer=False)
    try:
        with pytest.raises(PermanentError) as caught:
            log.append([written(record("m1"))])
        assert caught.value.code == "event_log_read_only"
    finally:
        log.close()


# --- no broker needed -------------------------------------------------------------------


def test_url_parsing() -> None:
    c = parse_kafka_url("kafka://k1:9092,k2:9093/tenant.events?partitions=12&replication_factor=3")
    assert (c.bootstrap, c.topic, c.partitions, c.replication_factor) == (
        "k1:9092,k2:9093",
        "tenant.events",
        12,
        3,
    )
    assert c.min_insync == 2 and c.dead_letter_topic == "tenant.events.dlq"
    d = parse_kafka_url("kafka://127.0.0.1:9092")
    assert (d.topic, d.partitions, d.replication_factor, d.min_insync) == ("aimem.events", 6, 1, 1)
    for bad in (
        "kafka:///events",
        "kafka://host/events",
        "kafka://h:1/events?partitions=0",
        "kafka://h:1/events?partitions=x",
        "kafka://h:1/events?partitons=3",
        "kafka://h:1/bad topic",
        "kafka://h:1/e?replication_factor=1&min_insync_replicas=2",
        "sqlite:///x.db",
    ):
        with pytest.raises(InvalidInput):
            parse_kafka_url(bad)


@pytest.mark.parametrize(
    ("error", "expected", "retry_after"),
    [
        (ke.KafkaConnectionError("refused"), Unavailable, 2.0),
        (ke.NoBrokersAvailable(), Unavailable, 2.0),
        (ke.KafkaTimeoutError(), Unavailable, 1.0),
        (ke.RequestTimedOutError(), Unavailable, 1.0),
        (TimeoutError(), Unavailable, 1.0),
        (ke.NotLeaderForPartitionError(), Unavailable, 0.5),
        (ke.LeaderNotAvailableError(), Unavailable, 0.5),
        (ke.NotEnoughReplicasError(), Unavailable, 0.5),
        (ke.ProducerClosed(), Unavailable, 1.0),
        (ke.GroupLoadInProgressError(), Unavailable, 1.0),  # any other retriable error
    ],
)
def test_retriable_driver_errors_become_unavailable(
    error: BaseException, expected: type[Unavailable], retry_after: float
) -> None:
    mapped = translate(error)
    assert isinstance(mapped, expected) and mapped.retry_after == retry_after


def test_permanent_driver_errors_and_non_driver_errors() -> None:
    too_large = translate(ke.MessageSizeTooLargeError())
    assert isinstance(too_large, InvalidInput) and too_large.rule == "max_size"
    denied = translate(ke.TopicAuthorizationFailedError())
    assert isinstance(denied, PermanentError) and denied.code == "event_log_failed"
    assert translate(ValueError("a bug")) is None
    conflict = Conflict("x")
    assert translate(conflict) is conflict


# --- waiting at the end of a partition (long polls) --------------------------------------


def test_a_wait_wakes_with_another_process_commit_and_the_reads_after_it_lose_nothing(
    kafka_bootstrap: str, topic: str
) -> None:
    """A projection in another process: it waits (a long poll), wakes with the commit, and
    reads what the wait fetched. Every event arrives once and in order, whichever of the
    wait or the read fetched it."""
    writer = open_log(kafka_bootstrap, topic, partitions=1)
    reader = open_log(kafka_bootstrap, topic, partitions=1, writer=False)
    try:
        assert reader.wait_for_events(after=0, timeout=0.3) is False
        appended: list[int] = []

        def append_later() -> None:
            for i in range(30):
                appended.extend(writer.append([written(record(f"m{i}"))]))

        thread = threading.Thread(target=append_later)
        thread.start()
        seen: list[int] = []
        try:
            while len(seen) < 30:
                assert reader.wait_for_events(after=max(seen, default=0), timeout=30.0)
                seen += [e.position for e in reader.read(after=max(seen, default=0), limit=7)]
        finally:
            thread.join()
        assert seen == appended
        assert reader.wait_for_events(after=seen[-1], timeout=0.3) is False
    finally:
        reader.close()
        writer.close()


def test_a_wait_is_not_woken_by_an_aborted_transaction(
    kafka_bootstrap: str, topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    klog = open_log(kafka_bootstrap, topic, partitions=1)
    reader = open_log(kafka_bootstrap, topic, partitions=1, writer=False)
    try:
        with failing_commits(klog, 0, monkeypatch), pytest.raises(Unavailable):
            klog.append([written(record("aborted"))])
        assert reader.wait_for_events(after=0, timeout=1.0) is False
        assert reader.read(after=0, limit=10) == []
        (position,) = klog.append([written(record("committed"))])
        assert reader.wait_for_events(after=0, timeout=30.0) is True
        assert [e.position for e in reader.read(after=0, limit=10)] == [position]
    finally:
        reader.close()
        klog.close()


def test_idle_readers_send_no_fetches(klog: KafkaEventLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """An assigned consumer fetches in the background even when nobody reads: one request
    per fetch wait (50 ms) per idle reader, forever. Readers back in the pool are paused."""
    for i in range(12):
        klog.append([written(record(f"m{i}", scope=f"user:u{i}"))])
    for p in klog.partitions():
        read_all_of = klog.read(after=0, limit=100, partition=p)
        assert (
            klog.wait_for_events(
                after=read_all_of[-1].position if read_all_of else 0, timeout=0.1, partition=p
            )
            is False
        )
    fetches = count_fetches(monkeypatch)
    threading.Event().wait(2.0)  # idle: nobody reads or waits
    # Fetches in flight when the readers went back to the pool may still be answered and
    # followed by none; twelve readers polling every 50 ms would send hundreds.
    assert len(fetches) <= 12, fetches
