"""One writer per partition, attacked: two gateways, a zombie owner, a lost changelog.

Every log here is a gateway (``WriterConfig``) on the real broker from ``tests/servers.py``;
two of them in one process stand for two gateway processes (their own Kafka clients,
event loops and peer listeners on loopback).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaProducer

from ai_memory.adapters.kafka.event_log import KafkaEventLog, WriterConfig
from ai_memory.adapters.kafka.peer import TOKEN_HEADER, pack_frames
from ai_memory.core.errors import Conflict, InvalidInput, Unavailable
from ai_memory.core.events import MemoryWritten
from ai_memory.core.positions import partition_of
from ai_memory.serialization import AvroEventSerializer
from tests.contract.event_log_contract import read_all
from tests.contract.test_kafka_event_log import delete_topics, topic
from tests.factories import record, written

__all__ = ["topic"]


def gateway(bootstrap: str, topic: str, partitions: int = 4) -> KafkaEventLog:
    return KafkaEventLog(
        bootstrap,
        topic,
        AvroEventSerializer(),
        partitions=partitions,
        request_timeout=10.0,
        writer=WriterConfig(session_timeout_ms=6_000),
    )


def settled(*logs: KafkaEventLog, timeout: float = 30.0) -> None:
    """Until every log's routing table names a live member for every partition, each
    partition owned by exactly one of ``logs`` and all of them agree."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tables = [log._member.routes.owners for log in logs if log._member is not None]
        owners = {p: url for table in tables for p, url in table.items()}
        urls = {log.advertised for log in logs}
        if (
            all(t == tables[0] for t in tables)
            and len(owners) == len(logs[0].partitions())
            and set(owners.values()) == urls
        ):
            return
        time.sleep(0.1)
    raise AssertionError("the writers group did not settle")


@pytest.fixture
def pair(kafka_bootstrap: str, topic: str) -> Iterator[tuple[KafkaEventLog, KafkaEventLog]]:
    a = gateway(kafka_bootstrap, topic)
    b = gateway(kafka_bootstrap, topic)
    try:
        settled(a, b)
        yield a, b
    finally:
        b.close()
        a.close()


def test_two_gateways_share_the_partitions_and_forward_to_each_other(
    pair: tuple[KafkaEventLog, KafkaEventLog],
) -> None:
    a, b = pair
    assert a._writers and b._writers and not set(a._writers) & set(b._writers)
    for log in (a, b):  # what /healthz shows
        seen = log.writers()
        assert seen["owners"] == {str(p): url for p, url in a._member.routes.owners.items()}
        assert {w["partition"] for w in seen["partitions"]} == set(log._writers)
        assert all(w["state"] in ("writing", "taking_over") for w in seen["partitions"])
    scopes = [f"user:{i}" for i in range(16)]
    through_a = [written(record(f"a-{s}", scope=s)) for s in scopes]
    through_b = [written(record(f"b-{s}", scope=s)) for s in scopes]
    positions = a.append(through_a) + b.append(through_b)
    # Every partition took events, whichever gateway received them.
    assert {partition_of(p) for p in positions} == set(a.partitions())
    ids = [e.record.id for e in through_a + through_b]
    for log in (a, b):
        heads = log.heads("default", ids)
        assert {i: heads[i].position for i in ids} == dict(zip(ids, positions, strict=True))
    assert len(read_all(a)) == len(ids)


def test_two_gateways_writing_one_memory_append_contiguous_versions_in_log_order(
    pair: tuple[KafkaEventLog, KafkaEventLog],
) -> None:
    """The claim-then-append design let v2 land before v1; here every version is decided
    by the partition's one writer, so the log holds 1, 2, 3, … in order, once each."""
    a, b = pair
    acked: list[tuple[int, int]] = []  # (version, position)
    lock = threading.Lock()

    def writer(log: KafkaEventLog, name: str, count: int) -> None:
        done = 0
        while done < count:
            head = log.heads("default", ["contested"]).get("contested")
            version = 1 if head is None else head.version + 1
            event = written(record("contested", f"{name} #{done}"), version=version)
            try:
                (position,) = log.append([event])
            except Conflict:
                continue  # the other gateway got this version: read again
            with lock:
                acked.append((version, position))
            done += 1

    threads = [
        threading.Thread(target=writer, args=(log, name, 15))
        for log, name in ((a, "a"), (b, "b"), (a, "a2"), (b, "b2"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(acked) == 60
    on_log = [
        (e.event.version, e.position)
        for e in read_all(a)
        if isinstance(e.event, MemoryWritten) and e.event.record.id == "contested"
    ]
    assert [v for v, _ in on_log] == list(range(1, 61))  # contiguous, in log order, once
    assert sorted(acked) == on_log  # every acknowledged version is the one on the log


def test_a_zombie_owner_cannot_commit(kafka_bootstrap: str, topic: str) -> None:
    """A gateway the group gave up on (paused, partitioned) keeps running: once the new
    owner initialises the partition's transactional producer, the zombie's appends fail
    and nothing of them is ever readable."""
    log = gateway(kafka_bootstrap, topic, partitions=1)
    try:
        (before,) = log.append([written(record("m1", "before"))])
        writer = log._writers[0]

        async def take_over() -> None:
            producer = AIOKafkaProducer(
                bootstrap_servers=kafka_bootstrap,
                transactional_id=writer.transactional_id,
                enable_idempotence=True,
            )
            await producer.start()  # InitProducerId: the epoch moves past the zombie's
            await producer.stop()

        asyncio.run(take_over())
        with pytest.raises(Unavailable):
            log.append([written(record("m2", "from the zombie"))])
        assert writer.fenced
        assert [e.position for e in read_all(log)] == [before]
    finally:
        log.close()


def test_a_new_owner_restores_the_heads_and_refuses_stale_versions(
    kafka_bootstrap: str, topic: str
) -> None:
    first = gateway(kafka_bootstrap, topic)
    v1, v2 = first.append([written(record("m1", "one")), written(record("m1", "two"), version=2)])
    first.close()  # leaves the group: its partitions move to the next gateway
    second = gateway(kafka_bootstrap, topic)
    try:
        head = second.heads("default", ["m1"])["m1"]
        assert (head.version, head.position) == (2, v2)
        with pytest.raises(Conflict):  # a decision built on version 1 is stale
            second.append([written(record("m1", "stale two"), version=2)])
        (v3,) = second.append([written(record("m1", "three"), version=3)])
        assert v1 < v2 < v3
    finally:
        second.close()


def test_heads_are_rebuilt_from_the_events_when_the_changelog_is_gone(
    kafka_bootstrap: str, topic: str
) -> None:
    """The changelog is a shortcut, not a source of truth."""
    first = gateway(kafka_bootstrap, topic)
    positions = first.append([written(record(f"m{i}", scope=f"user:{i}")) for i in range(8)])
    first.close()
    delete_topics(kafka_bootstrap, [f"{topic}.heads"])
    time.sleep(1.0)  # topic deletion is asynchronous on the broker
    second = gateway(kafka_bootstrap, topic)
    try:
        heads = second.heads("default", [f"m{i}" for i in range(8)])
        assert [heads[f"m{i}"].position for i in range(8)] == positions
        with pytest.raises(Conflict):
            second.append([written(record("m0", "a second version 1"))])
        # Later transactions raise the changelog's newest position past the heads that
        # were folded from events: those heads must be in the changelog by then.
        for n in range(3):
            second.append([written(record(f"late{n}", scope=f"user:{n}"))])
    finally:
        second.close()
    third = gateway(kafka_bootstrap, topic)
    try:
        heads = third.heads("default", [f"m{i}" for i in range(8)])
        assert [heads[f"m{i}"].position for i in range(8)] == positions
    finally:
        third.close()


def test_a_forwarding_member_owns_nothing_and_appends_through_the_owner(
    kafka_bootstrap: str, topic: str
) -> None:
    """The governor or a stdio MCP server: in the group to learn the owners, never one."""
    owner = gateway(kafka_bootstrap, topic)
    forwarder = KafkaEventLog(
        kafka_bootstrap,
        topic,
        AvroEventSerializer(),
        partitions=4,
        request_timeout=10.0,
        writer=WriterConfig(owns_partitions=False),
    )
    try:
        settled(owner)
        deadline = time.monotonic() + 30
        while forwarder._member.routes.owners != owner._member.routes.owners:
            assert time.monotonic() < deadline, "the forwarder never learned the owners"
            time.sleep(0.1)
        assert forwarder._writers == {} and len(owner._writers) == 4
        events = [written(record(f"m{i}", scope=f"user:{i}")) for i in range(8)]
        positions = forwarder.append(events)
        assert owner.heads("default", [f"m{i}" for i in range(8)]) == forwarder.heads(
            "default", [f"m{i}" for i in range(8)]
        )
        assert [e.position for e in read_all(owner)] == sorted(
            positions, key=lambda p: (partition_of(p), p)
        )
    finally:
        forwarder.close()
        owner.close()


def test_a_peer_port_beyond_loopback_needs_a_token(kafka_bootstrap: str, topic: str) -> None:
    """Forwarded appends are trusted: an open peer port would let anyone write."""
    with pytest.raises(InvalidInput) as caught:
        KafkaEventLog(
            kafka_bootstrap,
            topic,
            AvroEventSerializer(),
            partitions=1,
            request_timeout=10.0,
            writer=WriterConfig(listen="0.0.0.0:0"),
        )
    assert caught.value.field == "AIMEM_PEER_TOKEN"


def test_the_peer_port_refuses_a_wrong_token(kafka_bootstrap: str, topic: str) -> None:
    log = KafkaEventLog(
        kafka_bootstrap,
        topic,
        AvroEventSerializer(),
        partitions=1,
        request_timeout=10.0,
        writer=WriterConfig(token="s3cret-shared-by-gateways"),
    )
    try:
        frame = AvroEventSerializer().encode(written(record("m1")))
        body = pack_frames([frame])
        for headers in ({}, {TOKEN_HEADER: "guess"}):
            r = httpx.post(f"{log.advertised}/peer/v1/append/0", content=body, headers=headers)
            assert r.status_code == 403
        assert read_all(log) == []
        r = httpx.post(
            f"{log.advertised}/peer/v1/append/0",
            content=body,
            headers={TOKEN_HEADER: "s3cret-shared-by-gateways"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        # A transaction's commit returns before the broker's markers move the last stable
        # offset past it: a read_committed read may trail the acknowledgement a moment.
        deadline = time.monotonic() + 10
        while not read_all(log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(read_all(log)) == 1
    finally:
        log.close()


def test_a_lone_gateway_answers_heads_on_the_calling_thread(
    kafka_bootstrap: str, topic: str
) -> None:
    """Owning every partition, a gateway reads its writers' heads without a round trip
    through its Kafka loop, and answers what the loop would."""
    log = gateway(kafka_bootstrap, topic)
    try:
        ids = [f"m{i}" for i in range(8)]
        positions = log.append([written(record(i, scope=f"user:{i}")) for i in ids])
        settled(log)
        through_loop: list[object] = []
        real = log._loop.run

        def counted(coro: Any, timeout: float | None = None) -> Any:
            through_loop.append(coro)
            return real(coro, timeout)

        log._loop.run = counted  # type: ignore[method-assign]
        heads = log.heads("default", [*ids, "absent"])
        assert through_loop == []
        assert [heads[i].position for i in ids] == positions and "absent" not in heads
        assert real(log._heads("default", [*ids, "absent"]), 20) == heads
    finally:
        log.close()


def test_a_gateway_that_owns_only_some_partitions_asks_its_loop(
    pair: tuple[KafkaEventLog, KafkaEventLog],
) -> None:
    a, b = pair
    ids = [f"m{i}" for i in range(16)]
    positions = b.append([written(record(i, scope=f"user:{i}")) for i in ids])
    assert a._heads_here("default", ids) is None  # another owner holds some of them
    heads = a.heads("default", ids)
    assert [heads[i].position for i in ids] == positions
