"""The gateways' replica of the usage table (``adapters/kafka/usage_replica.py``) on the
real broker from ``tests/servers.py``: it reads a changelog topic to its end, sums a
tenant's keys, and closing it stops its consumer on its own loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from ai_memory.adapters.kafka import parse_kafka_url
from ai_memory.adapters.kafka import usage_replica as module
from ai_memory.adapters.kafka.usage_replica import KafkaUsageReplica
from ai_memory.core.usage import TenantUsage
from tests.contract.test_kafka_event_log import delete_topics, unique_topic


def write_changelog(bootstrap: str, topic: str, rows: list[tuple[int, str, Any]]) -> None:
    """``(partition, key, value)`` rows, JSON as Faust writes them (None: a tombstone)."""

    async def run() -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
        finally:
            await admin.close()
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
        await producer.start()
        try:
            for partition, key, value in rows:
                body = None if value is None else json.dumps(value).encode()
                await producer.send_and_wait(
                    topic, body, key=json.dumps(key).encode(), partition=partition
                )
        finally:
            await producer.stop()

    asyncio.run(run())


@pytest.fixture
def changelog(kafka_bootstrap: str) -> Iterator[str]:
    name = unique_topic()
    write_changelog(
        kafka_bootstrap,
        name,
        [
            (0, "t|acme|0", [1, 10, 1024]),
            (0, "m|acme|a", [10, 1024, -1]),  # a memory key: the fold's own state
            (0, "t|acme|0", [2, 15, 2048]),
            (1, "t|acme|1", [1, 7, 1025]),
            (1, "t|other|1", [4, 40, 3073]),
            (1, "t|other|1", None),  # compacted away: the key is gone
        ],
    )
    yield name
    delete_topics(kafka_bootstrap, [name])


def replica(bootstrap: str, changelog: str) -> KafkaUsageReplica:
    return KafkaUsageReplica(parse_kafka_url(f"kafka://{bootstrap}/aimem-unused"), changelog)


def test_the_replica_sums_the_newest_value_of_each_tenant_key(
    kafka_bootstrap: str, changelog: str
) -> None:
    r = replica(kafka_bootstrap, changelog)
    try:
        assert r.wait_ready(60)
        assert r.usage("acme") == TenantUsage(3, 22, {0: 2048, 1: 1025})
        assert r.usage("other") == TenantUsage()
        assert r.tenants() == ["acme"]
    finally:
        r.close()


@pytest.mark.parametrize("ready", [True, False], ids=["once-ready", "at-once"])
def test_closing_the_replica_stops_its_consumer(
    kafka_bootstrap: str, changelog: str, monkeypatch: pytest.MonkeyPatch, ready: bool
) -> None:
    """Cancelled without waiting, the reader's own ``consumer.stop()`` was cancelled again
    by the loop's close: its sockets stayed open (unclosed-transport warnings, and under
    warnings-as-errors a ``close`` that never returned)."""
    stopped: list[bool] = []

    class Recording(AIOKafkaConsumer):  # type: ignore[misc]  # untyped base
        async def stop(self) -> None:
            await asyncio.sleep(0.2)  # a stop that takes a while, as on a loaded box
            await super().stop()
            stopped.append(True)

    monkeypatch.setattr(module, "AIOKafkaConsumer", Recording)
    r = replica(kafka_bootstrap, changelog)
    if ready:
        assert r.wait_ready(60)
    r.close()
    assert stopped == [True]
