"""Topic creation and verification of the Kafka event log, checked with the admin client."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from ai_memory.adapters.kafka import KafkaEventLog, TopicMismatch
from ai_memory.adapters.kafka.topics import describe_topic_configs
from ai_memory.core.errors import Unavailable
from ai_memory.core.positions import partition_of
from ai_memory.serialization import AvroEventSerializer
from tests.contract.test_kafka_event_log import open_log, topic
from tests.factories import record, written

__all__ = ["topic"]


def describe(bootstrap: str, name: str) -> tuple[int, dict[str, str]]:
    async def run() -> tuple[int, dict[str, str]]:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        try:
            await admin.start()
            assert name in await admin.list_topics()
            (meta,) = await admin.describe_topics([name])
            return len(meta["partitions"]), await describe_topic_configs(admin, name)
        finally:
            await admin.close()

    return asyncio.run(run())


def test_topics_are_created_to_keep_every_event(kafka_bootstrap: str, topic: str) -> None:
    open_log(kafka_bootstrap, topic, partitions=4).close()
    partitions, configs = describe(kafka_bootstrap, topic)
    assert partitions == 4
    assert configs["retention.ms"] == "-1"
    assert configs["retention.bytes"] == "-1"
    assert configs["cleanup.policy"] == "delete"
    assert configs["min.insync.replicas"] == "1"
    dlq_partitions, dlq_configs = describe(kafka_bootstrap, f"{topic}.dlq")
    assert dlq_partitions == 1 and dlq_configs["retention.ms"] == "-1"
    # The writers' heads changelog: one record per memory is all a new owner restores.
    heads_partitions, heads_configs = describe(kafka_bootstrap, f"{topic}.heads")
    assert heads_partitions == 4 and heads_configs["cleanup.policy"] == "compact"


def test_reopening_keeps_positions(kafka_bootstrap: str, topic: str) -> None:
    first = open_log(kafka_bootstrap, topic, partitions=2)
    (position,) = first.append([written(record("m1"))])
    first.close()
    again = open_log(kafka_bootstrap, topic, partitions=2)
    try:
        partition = partition_of(position)
        assert again.last_position(partition) == position
        (later,) = again.append([written(record("m2"))])
        assert later > position
    finally:
        again.close()


def test_partition_count_mismatch_is_refused(kafka_bootstrap: str, topic: str) -> None:
    open_log(kafka_bootstrap, topic, partitions=3).close()
    threads_before = threading.active_count()
    with pytest.raises(TopicMismatch, match="has 3 partitions but the configuration says 5"):
        open_log(kafka_bootstrap, topic, partitions=5)
    assert threading.active_count() == threads_before  # the loop thread was stopped


def test_unreachable_broker_is_unavailable() -> None:
    started = time.monotonic()
    with pytest.raises(Unavailable):
        KafkaEventLog("127.0.0.1:1", "nowhere", AvroEventSerializer(), request_timeout=2)
    assert time.monotonic() - started < 30
