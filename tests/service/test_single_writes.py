"""Concurrent single writes on the embedded (serialised) log share one lock hold and one
append (``service.single_writes``), and each still answers as if it had run alone: its
own actor, its own refusal, its own version, in arrival order."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry.sdk.trace import TracerProvider

from ai_memory import telemetry
from ai_memory.bootstrap import Container
from ai_memory.core.errors import Gone, InvalidInput, PreconditionFailed
from ai_memory.core.events import DomainEvent, MemoryWritten
from ai_memory.core.preconditions import Preconditions, etag
from ai_memory.service.acting import acting_as
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.single_writes import SingleWrites
from ai_memory.service.writing import WriteResult
from ai_memory.telemetry import EVENT_CONTEXTS, tracing


def body(content: str = "Alice prefers tea.", scope: str = "user:alice") -> dict[str, Any]:
    return {"type": "preference", "content": content, "scope": scope, "source_agent": "a"}


def singles(service: MemoryService) -> SingleWrites:
    assert service.singles is not None  # the in-memory log is serialised, as SQLite's
    return service.singles


def grouped(
    service: MemoryService, tenant: str, writes: Sequence[Callable[[], WriteResult]]
) -> list[WriteResult | Exception]:
    """Run ``writes`` on threads of their own while the write lock is held, so that the
    first runs alone and all the others queue for one group; what each got, in order."""
    out: list[WriteResult | Exception | None] = [None] * len(writes)

    def run(i: int) -> None:
        try:
            out[i] = writes[i]()
        except Exception as e:
            out[i] = e

    groups = singles(service).groups
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(writes))]
    lock = service.units.lock
    assert isinstance(lock, type(threading.RLock()))
    with lock:
        threads[0].start()  # runs its group at once, and waits for the lock
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and singles(service).groups == groups:
            time.sleep(0.005)
        for t in threads[1:]:
            t.start()
        while time.monotonic() < deadline and singles(service).waiting(tenant) < len(writes) - 1:
            time.sleep(0.005)
    for t in threads:
        t.join(10)
    assert singles(service).groups == groups + 2  # the first alone, then the rest together
    return [r for r in out if r is not None]


def events_of(container: Container, tenant: str) -> list[DomainEvent]:
    logged = container.services.memory.units.log.read(after=0, limit=10_000)
    return [e.event for e in logged if e.event.header.tenant == tenant]


def test_concurrent_writes_share_a_group_and_each_is_answered(
    container: Container, tenant: str
) -> None:
    service = container.services.memory
    writes = [
        (lambda i=i: service.write(tenant, body(f"fact {i}"), memory_id=f"m{i}")) for i in range(6)
    ]
    results = grouped(service, tenant, writes)
    assert all(isinstance(r, WriteResult) and r.created and r.version == 1 for r in results)
    positions = [r.position for r in results if isinstance(r, WriteResult)]
    assert len(set(positions)) == 6
    for i in range(6):
        stored = service.get(tenant, f"m{i}", min_position=max(positions))
        assert stored.record.content == f"fact {i}"


def test_each_event_records_its_own_callers_actor(container: Container, tenant: str) -> None:
    service = container.services.memory

    def as_key(key: str, memory_id: str) -> Callable[[], WriteResult]:
        def write() -> WriteResult:
            with acting_as(key):
                return service.write(tenant, body(key), memory_id=memory_id)

        return write

    grouped(service, tenant, [as_key(f"key:k{i}", f"m{i}") for i in range(4)])
    actors = {
        e.record.id: e.header.actor
        for e in events_of(container, tenant)
        if isinstance(e, MemoryWritten)
    }
    assert actors == {f"m{i}": f"key:k{i}" for i in range(4)}


def test_a_refused_write_fails_alone(container: Container, tenant: str) -> None:
    service = container.services.memory
    service.write(tenant, body(), memory_id="exists")
    service.write(tenant, body(), memory_id="forgotten")
    service.delete(tenant, "forgotten", actor="t")
    create_only = Preconditions(if_none_match=("*",))
    results = grouped(
        service,
        tenant,
        [
            lambda: service.write(tenant, body("first"), memory_id="m0"),
            lambda: service.write(tenant, body("x"), memory_id="exists", preconditions=create_only),
            lambda: service.write(tenant, body("y"), memory_id="forgotten"),
            lambda: service.write(tenant, body("z"), memory_id="m1"),
        ],
    )
    assert isinstance(results[1], PreconditionFailed)
    assert isinstance(results[2], Gone)
    assert isinstance(results[3], WriteResult) and results[3].created


def test_two_writes_of_one_memory_in_a_group_are_decided_in_order(
    container: Container, tenant: str
) -> None:
    service = container.services.memory
    v1 = Preconditions(if_match=(etag(1),))
    results = grouped(
        service,
        tenant,
        [
            lambda: service.write(tenant, body("unrelated"), memory_id="other"),
            lambda: service.write(tenant, body("one"), memory_id="m"),
            lambda: service.write(tenant, body("two"), memory_id="m", preconditions=v1),
            lambda: service.write(tenant, body("two"), memory_id="m"),  # the same again
        ],
    )
    one, two, same = results[1:]
    assert isinstance(one, WriteResult) and (one.version, one.created) == (1, True)
    assert isinstance(two, WriteResult) and (two.version, two.changed) == (2, True)
    assert isinstance(same, WriteResult) and (same.version, same.changed) == (2, False)
    assert same.position == two.position > one.position


@contextmanager
def refusing(service: MemoryService, content: str) -> Iterator[None]:
    """The log's pipeline refuses (as unprojectable) any append holding ``content``."""
    pipeline = service.units.pipeline
    original = pipeline.append

    def append(events: Sequence[DomainEvent]) -> list[int]:
        if any(isinstance(e, MemoryWritten) and e.record.content == content for e in events):
            raise InvalidInput("content", "projectable", "refused", code="unprojectable_event")
        return original(events)

    pipeline.append = append  # type: ignore[method-assign]
    try:
        yield
    finally:
        pipeline.append = original  # type: ignore[method-assign]


def test_an_event_the_log_refuses_fails_only_its_write(container: Container, tenant: str) -> None:
    service = container.services.memory
    with refusing(service, "poison"):
        results = grouped(
            service,
            tenant,
            [
                lambda: service.write(tenant, body("first"), memory_id="m0"),
                lambda: service.write(tenant, body("fine"), memory_id="m1"),
                lambda: service.write(tenant, body("poison"), memory_id="m2"),
                lambda: service.write(tenant, body("also fine"), memory_id="m3"),
            ],
        )
    assert isinstance(results[2], InvalidInput) and results[2].code == "unprojectable_event"
    assert all(isinstance(results[i], WriteResult) for i in (0, 1, 3))
    assert {e.record.id for e in events_of(container, tenant) if isinstance(e, MemoryWritten)} == {
        "m0",
        "m1",
        "m3",
    }


def test_a_write_inside_an_open_unit_is_decided_on_the_spot(
    container: Container, tenant: str
) -> None:
    service = container.services.memory
    groups = singles(service).groups
    with service.units.begin(tenant, "t"):
        # Waiting for a group here would wait for this thread's own lock.
        result = service.write(tenant, body(), memory_id="nested")
    assert result.created and singles(service).groups == groups


def test_a_lone_write_waits_for_nobody(container: Container, tenant: str) -> None:
    service = container.services.memory
    groups = singles(service).groups
    for i in range(3):
        service.write(tenant, body(f"{i}"), memory_id=f"m{i}")
    assert singles(service).groups == groups + 3


def test_with_tracing_each_grouped_write_is_remembered_in_its_own_trace(
    container: Container, tenant: str
) -> None:
    service = container.services.memory
    provider = TracerProvider()
    telemetry.enable(provider)
    try:
        writes = [
            (lambda i=i: service.write(tenant, body(f"fact {i}"), memory_id=f"m{i}"))
            for i in range(4)
        ]
        grouped(service, tenant, writes)
        ids = [e.header.event_id for e in events_of(container, tenant)]
        contexts = EVENT_CONTEXTS.lookup(ids)
    finally:
        tracing.disable()
        provider.shutdown()
    assert len(ids) == 4 and all(c is not None for c in contexts)
    # Each write is a trace of its own (no HTTP span above it here): four traces, not
    # the two of the requests that ran a group.
    assert len({c.trace_id for c in contexts if c is not None}) == 4
