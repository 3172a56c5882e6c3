"""Conditional writes (``If-Match`` / ``If-None-Match``) judged inside the unit of work:
on the embedded log under its lock, and on a lock-free log whose single writer admits
an append only if the head is still where the decision saw it (Kafka's shape)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

from ai_memory.adapters.embedders import StaticEmbedder
from ai_memory.adapters.memory import MemoryEventLog, MemoryRecordStore, MemoryVectorIndex
from ai_memory.bootstrap import Container
from ai_memory.core.errors import Conflict, Gone, InvalidInput, PreconditionFailed
from ai_memory.core.events import Head
from ai_memory.core.heads import Refused, admit, head_update
from ai_memory.core.ports import EncodedEvent
from ai_memory.core.preconditions import Preconditions, etag
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.unit_of_work import UnitsOfWork
from tests.factories import FixedClock, pipeline


def body(content: str = "Alice prefers tea.") -> dict[str, Any]:
    return {
        "type": "preference",
        "content": content,
        "scope": "user:alice",
        "source_agent": "agent-a",
    }


def if_match(*tags: str) -> Preconditions:
    return Preconditions(if_match=tags)


def test_if_match_and_if_none_match(container: Container, tenant: str) -> None:
    service = container.services.memory
    create_only = Preconditions(if_none_match=("*",))
    assert service.write(tenant, body(), memory_id="m1", preconditions=create_only).version == 1
    with pytest.raises(PreconditionFailed):
        service.write(tenant, body("again"), memory_id="m1", preconditions=create_only)
    with pytest.raises(PreconditionFailed):  # * on a memory that does not exist
        service.write(tenant, body(), memory_id="m2", preconditions=if_match("*"))
    assert service.write(tenant, body("v2"), memory_id="m1", preconditions=if_match("*")).version
    with pytest.raises(PreconditionFailed):  # stale
        service.write(tenant, body("v3"), memory_id="m1", preconditions=if_match(etag(1)))
    with pytest.raises(PreconditionFailed):  # a weak tag never matches If-Match
        service.write(tenant, body("v3"), memory_id="m1", preconditions=if_match('W/"2"'))
    result = service.write(
        tenant, body("v3"), memory_id="m1", preconditions=if_match(etag(9), etag(2))
    )
    assert result.version == 3
    with pytest.raises(PreconditionFailed):
        service.delete(tenant, "m1", actor="t", preconditions=if_match(etag(2)))
    service.delete(tenant, "m1", actor="t", preconditions=if_match(etag(3)))
    with pytest.raises(PreconditionFailed):  # a forgotten memory has no current version
        service.delete(tenant, "m1", actor="t", preconditions=if_match("*"))
    with pytest.raises(Gone):  # create-only holds, and the write is refused as forgotten
        service.write(tenant, body(), memory_id="m1", preconditions=create_only)


def test_headers_are_parsed_strictly() -> None:
    parsed = Preconditions.parse(' "1" , W/"2",', "*")
    assert parsed.if_match == ('"1"', 'W/"2"')
    assert parsed.if_none_match == ("*",)
    assert Preconditions.parse(None, None).empty
    for bad in ("1", '"1" "2"', "", '*, "1"', "W/1"):
        with pytest.raises(InvalidInput) as e:
            Preconditions.parse(bad, None)
        assert e.value.field == "If-Match"


def race(write: Any) -> list[str]:
    """Two threads start ``write`` together; what each got."""
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def run() -> None:
        start.wait()
        try:
            write()
            outcomes.append("ok")
        except PreconditionFailed:
            outcomes.append("412")

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return sorted(outcomes)


def test_two_writers_with_the_same_if_match_one_wins(container: Container, tenant: str) -> None:
    service = container.services.memory
    service.write(tenant, body(), memory_id="m1")
    for n in range(20):
        tag = etag(n + 1)  # each round moves the version by one

        def put(n: int = n, tag: str = tag) -> None:
            content = body(f"{threading.get_ident()} {n}")
            service.write(tenant, content, memory_id="m1", preconditions=if_match(tag))

        outcomes = race(put)
        assert outcomes == ["412", "ok"]


class SingleWriterLog(MemoryEventLog):
    """A log without a process lock whose append admits a head move only if the head is
    where the decision saw it (``core.heads.admit``), as Kafka's single writer does; the
    first two ``heads`` reads meet at a barrier, so both decisions see the same head."""

    def __init__(self) -> None:
        super().__init__(AvroEventSerializer())
        self.meet = threading.Barrier(2)
        self.reads = 0
        self.admitting = threading.Lock()
        self.event_ids: dict[tuple[str, str], str] = {}

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        found = super().heads(tenant, memory_ids)
        with self.admitting:
            self.reads += 1
            first = self.reads <= 2
        if first:
            self.meet.wait(5)
        return found

    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        with self.admitting:
            for encoded in events:
                update = head_update(encoded.event)
                if update is None:
                    continue
                key = (update.tenant, update.head.memory_id)
                current = super().heads(update.tenant, [update.head.memory_id])
                verdict = admit(update, current.get(key[1]), self.event_ids.get(key))
                if isinstance(verdict, Refused):
                    raise Conflict("another writer moved the head", code="concurrent_write")
                self.event_ids[key] = update.event_id
            return super().append_encoded(events)


class NoWait:
    def wait(self, position: int, timeout: float) -> bool:
        return True

    async def wait_async(self, position: int, timeout: float) -> bool:
        return True

    def beyond_head(self, position: int) -> bool:
        return False

    packed_positions = False


def test_without_a_lock_the_single_writer_refuses_the_second(tmp_path: Any) -> None:
    log = SingleWriterLog()
    clock = FixedClock()
    embedder = StaticEmbedder()
    units = UnitsOfWork(pipeline(log), clock, NoWait(), serialize=False)
    service = MemoryService(
        store=MemoryRecordStore(),
        index=MemoryVectorIndex(embedder.dim),
        embedder=embedder,
        clock=clock,
        waiter=NoWait(),
        units=units,
    )
    log.reads = 2  # the first write passes the barrier alone
    service.write("t", body(), memory_id="m1")
    log.reads = 0
    outcomes = race(
        lambda: service.write(
            "t", body(f"{threading.get_ident()}"), memory_id="m1", preconditions=if_match(etag(1))
        )
    )
    assert outcomes == ["412", "ok"]
    assert log.heads("t", ["m1"])["m1"].version == 2
