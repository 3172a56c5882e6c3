"""Read reinforcement's batches (``service/recalls.py``): an id once per batch, the batch
bounded by distinct ids, and its event small enough for the log at the bound."""

from __future__ import annotations

from typing import Any

from ai_memory.bootstrap import Container
from ai_memory.core.events import MemoriesRecalled
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.memory_service import MemoryService, SearchRequest
from ai_memory.service.recalls import RecallRecorder
from tests.factories import header


def _recalls(container: Container) -> list[MemoriesRecalled]:
    events = container.log.read(after=0, limit=10_000)
    return [e.event for e in events if isinstance(e.event, MemoriesRecalled)]


def test_an_id_returned_to_many_searches_is_appended_once_per_batch(
    container: Container, tenant: str
) -> None:
    svc: MemoryService = container.service
    for n, text in enumerate(["Alice prefers green tea.", "Bob drinks green tea daily."]):
        svc.write(tenant, {"id": f"m{n}", "type": "fact", "content": text, "scope": "user:a",
                           "source_agent": "a"})  # fmt: skip
    svc.wait_for(container.log.last_position())
    assert svc.recalls is not None
    svc.recalls.flush()
    before = len(_recalls(container))
    request = SearchRequest.parse({"query": "green tea", "scope": "user:a"}, svc.limits)
    for _ in range(5):
        assert len(svc.search(tenant, request)) == 2
    assert svc.recalls.flush() == 2  # two distinct ids, not ten
    (event,) = _recalls(container)[before:]
    assert sorted(event.memory_ids) == ["m0", "m1"]
    svc.wait_for(container.log.last_position())
    # What a read count is: the recall events that named the memory — one here, as
    # before, when the event named it five times.
    assert svc.get(tenant, "m0").read_count == 1


def test_the_batch_is_bounded_by_distinct_ids(container: Container) -> None:
    recorder = RecallRecorder(container.service.units, max_batch=3)
    recorder.record("t", [("user:a", "x")] * 50)
    assert not recorder._wake.is_set()  # one distinct id, however often returned
    recorder.record("t", [("user:a", "y"), ("user:b", "x")])
    assert recorder._wake.is_set()  # three distinct (scope, id) pairs


def test_an_event_at_the_bound_fits_the_log(container: Container) -> None:
    """2,000 ids of the longest an id may be: the encoded event stays under half of
    Kafka's default 1 MiB record (``message.max.bytes``), so a flush at the bound is
    never refused for its size."""
    longest = container.service.limits.max_id_chars
    ids = tuple(f"{n:06d}".ljust(longest, "x") for n in range(RecallRecorder(
        container.service.units).max_batch))  # fmt: skip
    event: Any = MemoriesRecalled(header("t"), "user:" + "s" * 190, ids)
    encoded = AvroEventSerializer().encode(event)
    assert len(encoded) < 512 * 1024
