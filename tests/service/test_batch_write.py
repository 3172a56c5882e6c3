"""MemoryService.write_many: many upserts decided in one unit of work and appended at
once, every item answering for itself, nothing stored lost to a refused item."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.access import AccessPrincipal
from ai_memory.core.errors import Gone, InvalidInput, NotFound, Unavailable
from ai_memory.core.events import DomainEvent, LoggedEvent, MemoryWritten
from ai_memory.core.ports import EncodedEvent
from ai_memory.core.positions import pack
from ai_memory.core.record import MemoryState
from ai_memory.service.batch_write import (
    MAX_BATCH_ITEMS,
    ItemResult,
    batch_report,
    positions_to_wait,
)
from ai_memory.service.memory_service import MemoryService
from ai_memory.wire import models as wire


def body(content: str = "Alice prefers green tea.", **kw: Any) -> dict[str, Any]:
    return {
        "type": kw.pop("type", "preference"),
        "content": content,
        "scope": kw.pop("scope", "user:alice"),
        "source_agent": kw.pop("source_agent", "planner"),
        **kw,
    }


class SpyLog:
    """The service's appends, counted per call; a batch holding an event whose content
    says POISON is refused as a whole, as the pipeline refuses an unprojectable one."""

    def __init__(self, append: Callable[[Sequence[DomainEvent]], list[int]]) -> None:
        self.inner = append
        self.appends: list[int] = []  # events per call

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        self.appends.append(len(events))
        for e in events:
            if isinstance(e, MemoryWritten) and "POISON" in e.record.content:
                raise InvalidInput("event", "projectable", "a projection could not apply it")
        return self.inner(events)


@pytest.fixture
def svc(container: Container) -> MemoryService:
    return container.service


@pytest.fixture
def spy(svc: MemoryService, monkeypatch: pytest.MonkeyPatch) -> Iterator[SpyLog]:
    log = SpyLog(svc.units.pipeline.append)
    monkeypatch.setattr(svc.units.pipeline, "append", log.append)
    yield log


def events_of(container: Container, tenant: str) -> list[LoggedEvent]:
    logged = container.log.read(after=0, limit=1_000_000)
    return [e for e in logged if e.event.header.tenant == tenant]


def test_every_item_lands_with_one_append_in_input_order(
    svc: MemoryService, tenant: str, spy: SpyLog
) -> None:
    items = [body(f"Memory number {i}.", id=f"m{i}", source_agent=f"agent-{i}") for i in range(5)]
    results = svc.write_many(tenant, items, wait=True)
    assert [r.index for r in results] == [0, 1, 2, 3, 4]
    assert [(r.status, r.id, r.version, r.changed) for r in results] == [
        (201, f"m{i}", 1, True) for i in range(5)
    ]
    assert spy.appends == [5]  # one call for the whole batch
    positions = [r.position or 0 for r in results]
    assert positions == sorted(positions) and len(set(positions)) == 5
    for i in range(5):
        stored = svc.get(tenant, f"m{i}")
        assert stored.record.content == f"Memory number {i}." and stored.position == positions[i]


def test_each_items_source_agent_is_the_actor_of_its_event(
    svc: MemoryService, tenant: str, container: Container
) -> None:
    svc.write_many(tenant, [body(id="a", source_agent="planner"), body(id="b", source_agent="x")])
    actors = {
        e.event.record.id: e.event.header.actor
        for e in events_of(container, tenant)
        if isinstance(e.event, MemoryWritten)
    }
    assert actors == {"a": "planner", "b": "x"}


def test_bad_items_are_refused_on_their_own_and_the_rest_land(
    svc: MemoryService, tenant: str
) -> None:
    items: list[Any] = [
        body(id="good-1"),
        body(id="bad-scope", scope="Not A Scope"),
        "not an object",
        body(id="nul", content="a NUL \x00 inside"),
        body(id="surrogate", content="lone \ud800 surrogate"),
        body(id="good-2", tags=["x"] * 40),  # too many tags
        {**body(id="extra"), "colour": "red"},
        body(id="good-3"),
    ]
    results = svc.write_many(tenant, items, wait=True)
    assert [r.status for r in results] == [201, 422, 422, 422, 422, 422, 422, 201]
    refused = {r.index: r.error for r in results if r.error is not None}
    fields = {i: (e.field, e.rule) for i, e in refused.items() if isinstance(e, InvalidInput)}
    assert fields == {
        1: ("scope", fields[1][1]),
        2: ("item", "json_object"),
        3: ("content", fields[3][1]),
        4: ("content", "utf8"),
        5: ("tags", fields[5][1]),
        6: ("colour", "unknown_field"),
    }
    assert all(rule for _, rule in fields.values())
    # A refused item's id is named when it is a valid one, so callers can match it up.
    assert [r.id for r in results[1:5]] == ["bad-scope", None, "nul", "surrogate"]
    assert svc.get(tenant, "good-1").version == 1 and svc.get(tenant, "good-3").version == 1
    report = batch_report(results)
    assert (report["written"], report["unchanged"], report["rejected"]) == (2, 0, 6)
    problem = report["results"][4]["problem"]
    assert problem["status"] == 422 and problem["field"] == "content"
    assert problem["detail"].encode("utf-8")  # the quoted surrogate is escaped


def test_same_content_again_is_unchanged_with_the_stored_version_and_position(
    svc: MemoryService, tenant: str, container: Container, spy: SpyLog
) -> None:
    first = svc.write(tenant, body(id="tea"), wait=True)
    head = container.log.last_position()
    spy.appends.clear()
    (again,) = svc.write_many(tenant, [body(id="tea")], wait=True)
    assert (again.status, again.version, again.changed) == (200, 1, False)
    assert again.position == first.position
    assert container.log.last_position() == head and spy.appends == []


def test_one_memory_twice_in_a_batch_gets_contiguous_versions(
    svc: MemoryService, tenant: str, container: Container
) -> None:
    results = svc.write_many(
        tenant,
        [
            body("Alice prefers green tea.", id="tea"),
            body("Alice prefers black tea.", id="tea"),
            body("Alice prefers black tea.", id="tea"),  # unchanged against the second
        ],
        wait=True,
    )
    assert [(r.status, r.version, r.changed) for r in results] == [
        (201, 1, True),
        (200, 2, True),
        (200, 2, False),
    ]
    assert results[2].position == results[1].position
    versions = [
        e.event.version
        for e in events_of(container, tenant)
        if isinstance(e.event, MemoryWritten) and e.event.record.id == "tea"
    ]
    assert versions == [1, 2]
    stored = svc.get(tenant, "tea")
    assert stored.version == 2 and stored.record.content == "Alice prefers black tea."


def test_a_forgotten_id_in_the_batch_is_gone_and_the_others_land(
    svc: MemoryService, tenant: str
) -> None:
    svc.write(tenant, body(id="old"), wait=True)
    svc.delete(tenant, "old", actor="alice", wait=True)
    results = svc.write_many(tenant, [body(id="old"), body(id="new")], wait=True)
    assert [r.status for r in results] == [410, 201]
    assert isinstance(results[0].error, Gone) and results[0].error.code == "memory_forgotten"
    assert results[0].id == "old"
    with pytest.raises(Gone):
        svc.get(tenant, "old")
    assert svc.get(tenant, "new").version == 1


def test_a_scope_change_is_refused_for_that_item_only(svc: MemoryService, tenant: str) -> None:
    svc.write(tenant, body(id="tea"), wait=True)
    results = svc.write_many(
        tenant,
        [
            body("Moved.", id="tea", scope="team:x"),
            body(id="other"),
            body("Moved too.", id="other", scope="team:y"),
        ],
        wait=True,
    )
    assert [r.status for r in results] == [409, 201, 409]
    assert all(r.error is not None and r.error.code == "scope_immutable" for r in results[::2])
    stored = svc.get(tenant, "tea")
    assert stored.record.scope == "user:alice" and stored.version == 1
    assert svc.get(tenant, "other").record.scope == "user:alice"


def test_nothing_stored_is_lost_when_a_batch_has_rejected_items(
    svc: MemoryService, tenant: str
) -> None:
    kept = [svc.write(tenant, body(f"Kept memory {i}.", id=f"k{i}"), wait=True) for i in range(3)]
    svc.write_many(
        tenant,
        [
            body("Overwritten in place.", id="k0"),
            body(id="k1", scope="team:elsewhere"),  # refused: would move scope
            body(id="k2", content=""),  # refused: empty
            body(id="k2", ttl=-5),  # refused: ttl
        ],
        wait=True,
    )
    assert svc.get(tenant, "k0").version == 2
    for i in (1, 2):
        stored = svc.get(tenant, f"k{i}")
        assert stored.record.content == f"Kept memory {i}." and stored.version == 1
        assert stored.position == kept[i].position and stored.state is MemoryState.ACTIVE


def test_a_batch_the_log_refuses_is_appended_item_by_item(
    svc: MemoryService, tenant: str, spy: SpyLog
) -> None:
    results = svc.write_many(
        tenant,
        [
            body(id="a"),
            body("POISON for a projection.", id="b"),
            body(id="c"),
            body("Second version of b.", id="b"),  # decided on the refused write
        ],
        wait=True,
    )
    assert spy.appends == [4, 1, 1, 1]  # the batch, then a, b, c one by one
    assert [r.status for r in results] == [201, 422, 201, 409]
    assert results[1].error is not None and results[1].error.code == "invalid_input"
    assert isinstance(results[1].error, InvalidInput) and results[1].error.rule == "projectable"
    assert results[3].error is not None
    assert results[3].error.code == "batch_predecessor_refused"
    assert svc.get(tenant, "a").version == 1 and svc.get(tenant, "c").version == 1
    # b never reached the log, so the next write of b is its version 1.
    (retry,) = svc.write_many(tenant, [body("Second version of b.", id="b")], wait=True)
    assert (retry.status, retry.version) == (201, 1)


def test_an_unavailable_log_fails_the_request_and_a_retry_is_idempotent(
    svc: MemoryService, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def down(events: Sequence[EncodedEvent]) -> list[int]:
        calls.append(len(events))
        raise Unavailable("the log is down")

    items = [body(id="x"), body(id="y")]
    with monkeypatch.context() as patched:
        patched.setattr(svc.units.pipeline.log, "append_encoded", down)
        with pytest.raises(Unavailable):
            svc.write_many(tenant, items)
    assert calls == [2]  # not retried item by item: every item would wait on the log
    first = svc.write_many(tenant, items, wait=True)
    again = svc.write_many(tenant, items, wait=True)
    assert [r.status for r in first] == [201, 201]
    assert [(r.status, r.changed) for r in again] == [(200, False), (200, False)]


def test_batch_limits(svc: MemoryService, tenant: str) -> None:
    assert svc.write_many(tenant, []) == []
    with pytest.raises(InvalidInput) as e:
        svc.write_many(tenant, [body(id=f"m{i}") for i in range(MAX_BATCH_ITEMS + 1)])
    assert (e.value.field, e.value.rule, e.value.code) == ("items", "max_items", "batch_too_large")
    with pytest.raises(InvalidInput) as e:
        svc.write_many(tenant, {"items": []})  # type: ignore[arg-type]
    assert e.value.field == "items"
    # The most the batch allows is taken whole.
    results = svc.write_many(
        tenant, [body(f"Memory {i}.", id=f"m{i}") for i in range(MAX_BATCH_ITEMS)]
    )
    assert sum(1 for r in results if r.status == 201) == MAX_BATCH_ITEMS
    assert wire.MAX_BATCH_ITEMS == MAX_BATCH_ITEMS  # the document states the service's limit


def test_items_without_an_id_get_one_each(svc: MemoryService, tenant: str) -> None:
    results = svc.write_many(tenant, [body("One."), body("Two.")], wait=True)
    ids = [r.id for r in results]
    assert all(ids) and len(set(ids)) == 2
    assert svc.get(tenant, str(ids[0])).record.content == "One."


def test_wait_reaches_the_newest_position_of_the_batch(svc: MemoryService, tenant: str) -> None:
    results = svc.write_many(
        tenant, [body(f"Searchable batch memory {i}.", id=f"s{i}") for i in range(3)], wait=True
    )
    newest = max(r.position or 0 for r in results)
    assert batch_report(results)["position"] == newest
    for i in range(3):
        assert svc.get(tenant, f"s{i}").position <= newest


def test_item_results_render_as_the_wire_model() -> None:
    refused = ItemResult(3, 422, error=InvalidInput("content", "utf8", "bad \ud800"))
    ok = ItemResult(0, 201, "a", 1, True, 7)
    out = wire.BatchWriteOut.model_validate(batch_report([ok, refused]))
    assert out.results[0].ok and not out.results[1].ok
    problem = out.results[1].problem
    assert problem is not None and (problem.field, problem.rule) == ("content", "utf8")
    assert "\\ud800" in problem.detail and out.position == 7


def test_an_item_the_caller_may_not_write_is_refused_with_403_alone(
    svc: MemoryService, tenant: str
) -> None:
    only_user_scopes = AccessPrincipal(tenant, "k1", "writer", ("user:*",))
    results = svc.write_many(
        only_user_scopes,
        [body(id="mine"), body(id="theirs", scope="team:ops"), body(id="bad", scope="Bad")],
        wait=True,
    )
    assert [r.status for r in results] == [201, 403, 422]
    assert results[1].error is not None and results[1].error.code == "scope_forbidden"
    assert batch_report(results)["results"][1]["problem"]["title"] == "Forbidden"
    with pytest.raises(NotFound):
        svc.get(tenant, "theirs")


def test_wait_covers_every_partition_the_items_landed_on() -> None:
    # Packed positions (Kafka): partition in the low bits, so positions of different
    # partitions are not ordered and the highest alone would leave the others unread.
    def at(partition: int, offset: int) -> ItemResult:
        return ItemResult(0, 201, "m", 1, True, pack(partition, offset))

    results = [
        at(0, 9),
        at(1, 3),
        at(0, 4),
        at(2, 0),
        ItemResult(1, 422, error=InvalidInput("a", "b", "c")),
    ]
    assert positions_to_wait(results) == sorted([pack(0, 9), pack(1, 3), pack(2, 0)], reverse=True)
    assert positions_to_wait([]) == []
