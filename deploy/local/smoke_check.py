"""End-to-end check of the local servers started by servers.sh.

Produces and consumes one Kafka message (aiokafka) and creates a keyspace and
table, then writes and reads one row (cassandra-driver). Needs only those two
packages; run it from any virtualenv that has them:

    pip install aiokafka cassandra-driver
    python deploy/local/smoke_check.py

Ports follow the same environment variables as servers.sh.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid

KAFKA_PORT = int(os.environ.get("AIMEM_KAFKA_PORT", "9092"))
CASSANDRA_PORT = int(os.environ.get("AIMEM_CASSANDRA_PORT", "9042"))


async def check_kafka() -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    bootstrap = f"127.0.0.1:{KAFKA_PORT}"
    topic = f"smoke-{uuid.uuid4().hex[:8]}"
    payload = f"hello {uuid.uuid4()}".encode()

    started = time.monotonic()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        # The topic is auto-created on first use.
        meta = await producer.send_and_wait(topic, payload, key=b"k")
    finally:
        await producer.stop()

    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"smoke-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=True,
    )
    await consumer.start()
    try:
        msg = await asyncio.wait_for(consumer.getone(), timeout=30)
        await consumer.commit()
    finally:
        await consumer.stop()

    assert msg.value == payload, (msg.value, payload)
    assert msg.key == b"k"
    print(
        f"kafka ok: {topic} partition {meta.partition} offset {meta.offset}, "
        f"consumed in group, {time.monotonic() - started:.2f}s"
    )


def check_cassandra() -> None:
    from cassandra.cluster import Cluster

    started = time.monotonic()
    cluster = Cluster(["127.0.0.1"], port=CASSANDRA_PORT, protocol_version=5)
    try:
        session = cluster.connect()
        version = session.execute("SELECT release_version FROM system.local").one()[0]
        session.execute(
            "CREATE KEYSPACE IF NOT EXISTS smoke WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}"
        )
        session.execute(
            "CREATE TABLE IF NOT EXISTS smoke.events "
            "(stream text, seq bigint, body text, PRIMARY KEY (stream, seq))"
        )
        body = f"row {uuid.uuid4()}"
        session.execute(
            "INSERT INTO smoke.events (stream, seq, body) VALUES (%s, %s, %s)",
            ("s1", 1, body),
        )
        row = session.execute(
            "SELECT body FROM smoke.events WHERE stream = %s AND seq = %s", ("s1", 1)
        ).one()
        assert row is not None and row.body == body, row
        print(
            f"cassandra ok: release {version}, connection class "
            f"{cluster.connection_class.__name__}, {time.monotonic() - started:.2f}s"
        )
    finally:
        cluster.shutdown()


def main() -> int:
    asyncio.run(check_kafka())
    check_cassandra()
    return 0


if __name__ == "__main__":
    sys.exit(main())
