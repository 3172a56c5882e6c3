"""The dead-letter service behind ``ai-memory dead-letters``: the store's operations here,
the re-drive handed in by the composition root (end to end: test_poison_events)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ai_memory.adapters.memory import MemoryDeadLetters
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import DeadLetter
from ai_memory.service.dead_letters import DeadLetterService, Redrive, Redriven

AT = datetime(2026, 1, 1, tzinfo=UTC)


def letter(projection: str, position: int) -> DeadLetter:
    return DeadLetter(projection, position, 0, "undecodable", "E: x", b"\x00", 1, AT, AT)


def test_it_lists_gets_describes_and_discards() -> None:
    store = MemoryDeadLetters()
    for entry in (letter("index", 3), letter("index", 1), letter("records", 2)):
        store.put(entry)
    service = DeadLetterService(store, describe=lambda raw: f"{len(raw)} byte(s)")
    assert [e.position for e in service.entries("index")] == [1, 3]
    assert len(service.entries()) == 3
    found = service.get("records", 2)
    assert found is not None and service.describe(found) == "1 byte(s)"
    assert service.get("records", 9) is None
    assert service.discard(service.entries("index")) == 2
    assert service.discard([letter("index", 1)]) == 0  # already gone
    assert [e.projection for e in service.entries()] == ["records"]


def test_a_redrive_needs_the_views_the_composition_root_hands_in() -> None:
    without = DeadLetterService(MemoryDeadLetters(), describe=repr)
    with pytest.raises(InvalidInput):
        without.redriver("index")
    asked: list[str] = []

    def redrive_for(projection: str) -> Redrive:
        asked.append(projection)
        return lambda entry: Redriven(entry, True)

    closed: list[bool] = []
    service = DeadLetterService(
        MemoryDeadLetters(),
        describe=repr,
        redrive_for=redrive_for,
        close=lambda: closed.append(True),
    )
    assert service.redriver("records")(letter("records", 5)).resolved
    assert asked == ["records"]
    service.close()
    assert closed == [True]
