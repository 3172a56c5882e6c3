"""Conditional writes on Kafka: two gateways (no process lock between them) each get a
PUT with the same ``If-Match``; the partition's single writer admits one append, the
other decision is refused, decided again with fresh heads, and fails its condition."""

from __future__ import annotations

import threading
from typing import Any

from ai_memory.adapters.embedders import StaticEmbedder
from ai_memory.adapters.kafka.event_log import KafkaEventLog
from ai_memory.adapters.memory import MemoryRecordStore, MemoryVectorIndex
from ai_memory.core.errors import PreconditionFailed
from ai_memory.core.preconditions import Preconditions, etag
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.unit_of_work import UnitsOfWork
from tests.factories import FixedClock, pipeline
from tests.integration.test_single_writer import pair, topic

__all__ = ["pair", "topic"]


class NoWait:
    def wait(self, position: int, timeout: float) -> bool:
        return True

    async def wait_async(self, position: int, timeout: float) -> bool:
        return True

    def beyond_head(self, position: int) -> bool:
        return False

    packed_positions = False


def service(log: KafkaEventLog) -> MemoryService:
    """A gateway's memory service: units without a lock, as bootstrap builds them on Kafka."""
    clock, embedder = FixedClock(), StaticEmbedder()
    return MemoryService(
        store=MemoryRecordStore(),
        index=MemoryVectorIndex(embedder.dim),
        embedder=embedder,
        clock=clock,
        waiter=NoWait(),
        units=UnitsOfWork(pipeline(log), clock, NoWait(), serialize=False),
    )


def body(content: str) -> dict[str, Any]:
    return {"type": "fact", "content": content, "scope": "user:race", "source_agent": "a"}


def race(a: MemoryService, b: MemoryService, tag: str) -> list[str]:
    """Both gateways PUT with ``If-Match: tag`` at once; what each got."""
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def put(gateway: MemoryService, name: str) -> None:
        start.wait()
        try:
            gateway.write(
                "default",
                body(f"{name} in round {tag}"),
                memory_id="raced",
                preconditions=Preconditions(if_match=(tag,)),
            )
            outcomes.append("ok")
        except PreconditionFailed:
            outcomes.append("412")

    threads = [threading.Thread(target=put, args=(g, n)) for g, n in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return sorted(outcomes)


def test_two_gateways_with_one_if_match_one_wins(
    pair: tuple[KafkaEventLog, KafkaEventLog],
) -> None:
    a, b = (service(log) for log in pair)
    a.write("default", body("v1"), memory_id="raced")
    for round_ in range(5):
        assert race(a, b, etag(round_ + 1)) == ["412", "ok"], round_
    assert pair[0].heads("default", ["raced"])["raced"].version == 6
