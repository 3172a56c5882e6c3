"""The unit of work: decide-then-append under one lock, heads overlaid with what the unit
appended, headers from the injected clock, read-your-writes after the lock."""

from __future__ import annotations

import threading

import pytest

from ai_memory.adapters.memory import MemoryEventLog
from ai_memory.core.access import AccessPrincipal
from ai_memory.core.decide import decide_delete, decide_write
from ai_memory.core.errors import InvalidInput, Timeout
from ai_memory.core.events import MemoryWritten
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.access import Embedded
from ai_memory.service.unit_of_work import UnitOfWork, UnitsOfWork
from tests.factories import T0, FixedClock, pipeline, record


class Waiter:
    """Projections that reach exactly ``reached``."""

    def __init__(self) -> None:
        self.reached = 0
        self.asked: list[int] = []

    def wait(self, position: int, timeout: float) -> bool:
        self.asked.append(position)
        return position <= self.reached

    async def wait_async(self, position: int, timeout: float) -> bool:
        return self.wait(position, timeout)

    def beyond_head(self, position: int) -> bool:
        return position > 100

    packed_positions = False


def written(uow: UnitOfWork, memory_id: str) -> MemoryWritten:
    event = decide_write(record(memory_id), None, uow.header()).event
    assert event is not None
    return event


@pytest.fixture
def waiter() -> Waiter:
    return Waiter()


@pytest.fixture
def units(waiter: Waiter) -> UnitsOfWork:
    return UnitsOfWork(
        pipeline(MemoryEventLog(AvroEventSerializer())), FixedClock(), waiter, wait_timeout=0.1
    )


def test_heads_show_what_the_unit_appended(units: UnitsOfWork) -> None:
    with units.begin("t", "agent") as uow:
        assert uow.heads(["m1"]) == {}
        (position,) = uow.append([written(uow, "m1")])
        head = uow.heads(["m1"])["m1"]
        assert (head.version, head.position, head.deleted) == (1, position, False)
        gone = decide_delete("m1", None, head, uow.header(), reason="test")
        assert gone is not None
        uow.append([gone])
        assert uow.heads(["m1"])["m1"].deleted
    assert uow.last_position == units.last_position == position + 1


def test_headers_carry_tenant_actor_and_the_clocks_time(units: UnitsOfWork) -> None:
    with units.begin("acme", "planner") as uow:
        a, b = uow.header(), uow.header("governor")
    assert (a.tenant, a.actor, a.occurred_at) == ("acme", "planner", T0)
    assert b.actor == "governor" and a.event_id != b.event_id


def test_nothing_is_decided_or_appended_outside_the_lock(units: UnitsOfWork) -> None:
    uow = units.begin("t", "agent")
    with pytest.raises(RuntimeError):
        uow.heads(["m1"])
    with pytest.raises(RuntimeError):
        uow.append([])


def test_units_are_serialised(units: UnitsOfWork) -> None:
    entered = threading.Event()

    def second() -> None:
        with units.begin("t", "b"):
            entered.set()

    with units.begin("t", "a"):
        other = threading.Thread(target=second)
        other.start()
        assert not entered.wait(0.1), "a second unit entered while the first held the lock"
    assert entered.wait(1)
    other.join()


def test_waits_for_its_own_position_after_the_lock(units: UnitsOfWork, waiter: Waiter) -> None:
    with units.begin("t", "agent") as uow:
        (position,) = uow.append([written(uow, "m1")])
    with pytest.raises(Timeout):
        uow.wait()
    waiter.reached = position
    uow.wait()
    assert waiter.asked == [position, position]


def test_a_position_beyond_the_head_is_refused(units: UnitsOfWork) -> None:
    with pytest.raises(InvalidInput) as refused:
        units.check_position(101)
    assert refused.value.code == "position_beyond_head"


def test_a_caller_writes_only_to_its_tenant(units: UnitsOfWork) -> None:
    key = AccessPrincipal("acme", "key-1", "admin", ())
    for caller in (key, Embedded("acme")):
        with pytest.raises(InvalidInput):
            units.begin("other", "agent", caller=caller)
        assert units.begin("acme", "agent", caller=caller).caller == caller
