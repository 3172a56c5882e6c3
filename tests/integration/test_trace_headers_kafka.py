"""The W3C trace context on real Kafka records: the appending span's ``traceparent`` is
on every record a gateway produces — also when a member that owns no partition forwards
the append to the owner through the peer listener — and on none while tracing is off."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from aiokafka import AIOKafkaConsumer
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ai_memory import telemetry
from ai_memory.adapters.kafka.event_log import KafkaEventLog, WriterConfig
from ai_memory.serialization import AvroEventSerializer
from ai_memory.telemetry import tracing
from tests.contract.test_kafka_event_log import topic
from tests.factories import record, written
from tests.integration.test_single_writer import gateway, settled

__all__ = ["topic"]

Headers = dict[str, bytes]


@pytest.fixture
def traced() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.enable(provider)
    yield exporter
    tracing.disable()


def headers_on_the_topic(bootstrap: str, topic: str, count: int) -> list[Headers]:
    async def consume() -> list[Headers]:
        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=bootstrap,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            isolation_level="read_committed",
        )
        await consumer.start()
        try:
            found: list[Headers] = []
            deadline = time.monotonic() + 30
            while len(found) < count and time.monotonic() < deadline:
                batches = await consumer.getmany(timeout_ms=500)
                found += [dict(m.headers) for ms in batches.values() for m in ms]
            return found
        finally:
            await consumer.stop()

    return asyncio.run(consume())


def test_every_record_carries_the_appending_span(
    kafka_bootstrap: str, topic: str, traced: InMemorySpanExporter
) -> None:
    log = gateway(kafka_bootstrap, topic, partitions=2)
    try:
        settled(log)
        with telemetry.span("aimem.log.append") as append:
            assert append is not None
            log.append([written(record(f"m{i}", scope=f"user:{i}")) for i in range(4)])
    finally:
        log.close()
    records = headers_on_the_topic(kafka_bootstrap, topic, 4)
    assert len(records) == 4
    for headers in records:
        found = telemetry.context_from_headers(headers)
        assert found is not None, headers
        assert found.trace_id == append.get_span_context().trace_id
        assert found.span_id == append.get_span_context().span_id
        assert {"aimem.event_type", "aimem.event_id"} <= set(headers)


def test_a_forwarded_append_keeps_the_forwarders_span(
    kafka_bootstrap: str, topic: str, traced: InMemorySpanExporter
) -> None:
    owner = gateway(kafka_bootstrap, topic, partitions=2)
    forwarder = KafkaEventLog(
        kafka_bootstrap,
        topic,
        AvroEventSerializer(),
        partitions=2,
        request_timeout=10.0,
        writer=WriterConfig(owns_partitions=False),
    )
    try:
        settled(owner)
        deadline = time.monotonic() + 30
        while forwarder._member is None or (
            forwarder._member.routes.owners != owner._member.routes.owners  # type: ignore[union-attr]
        ):
            assert time.monotonic() < deadline, "the forwarder never learned the owners"
            time.sleep(0.1)
        with telemetry.span("aimem.log.append") as append:
            assert append is not None
            forwarder.append([written(record("f1"))])
    finally:
        forwarder.close()
        owner.close()
    (headers,) = headers_on_the_topic(kafka_bootstrap, topic, 1)
    found = telemetry.context_from_headers(headers)
    assert found is not None and found.span_id == append.get_span_context().span_id


def test_no_trace_header_while_tracing_is_off(kafka_bootstrap: str, topic: str) -> None:
    assert not telemetry.enabled()
    log = gateway(kafka_bootstrap, topic, partitions=2)
    try:
        settled(log)
        log.append([written(record("m1"))])
    finally:
        log.close()
    (headers,) = headers_on_the_topic(kafka_bootstrap, topic, 1)
    assert set(headers) == {"aimem.event_type", "aimem.event_id"}
