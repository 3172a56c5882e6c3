"""The projectability proof: events built by hand, bypassing validation, that a projection
could never apply are refused before they reach the log; good ones pass untouched."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ai_memory.adapters.projectability import ProjectabilityCheck, check_projectable
from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.core.errors import InvalidInput
from ai_memory.core.events import DomainEvent, MemoryStateChanged, MemoryWritten
from ai_memory.core.record import MemoryState
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.append_pipeline import AppendPipeline
from tests.factories import header, record

SERIALIZER = AvroEventSerializer()


def written(**kw: Any) -> MemoryWritten:
    return MemoryWritten(header(), record("m1", **kw), 1, "0" * 64)


def deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for _ in range(levels):
        node = {"a": node}
    return node


POISON: dict[str, DomainEvent] = {
    # the expiry overflows every datetime: the index payload cannot be built
    "huge ttl": written(ttl=2**62),
    "expiry past 9999": written(created_at=datetime(9999, 12, 31, 12, tzinfo=UTC), ttl=86_400),
    # Avro refuses to encode text UTF-8 cannot hold
    "lone surrogate in content": written(content="tea \ud800"),
    "lone surrogate in a tag": written(tags=("\udfff",)),
    "lone surrogate in the tenant": MemoryWritten(
        replace(header(), tenant="t\ud800"), record("m1"), 1, "0" * 64
    ),
    # JSON encoding of meta recurses past the interpreter's stack
    "meta nested 5000 deep": written(meta=deep(5000)),
    "meta with NaN": written(meta={"x": float("nan")}),
    # the lineage projection parses the recorded decision and recurses past the stack
    "decision nested 100000 deep": MemoryStateChanged(
        header(),
        "m1",
        "user:alice",
        MemoryState.ACTIVE,
        MemoryState.ARCHIVED,
        "rule",
        "[" * 100_000 + "]" * 100_000,
    ),
}


@pytest.mark.parametrize("name", sorted(POISON))
def test_unprojectable_events_are_refused(name: str) -> None:
    with pytest.raises(InvalidInput) as e:
        check_projectable(POISON[name], SERIALIZER)
    assert (e.value.field, e.value.rule) == ("event", "projectable")
    e.value.message.encode("utf-8")  # the reason itself is always sendable


def test_a_refused_batch_appends_nothing(tmp_path: Path) -> None:
    log = SqliteEventLog(tmp_path / "events.db", SERIALIZER)
    pipeline = AppendPipeline(log, SERIALIZER, ProjectabilityCheck(SERIALIZER))
    try:
        good = written()
        for poison in ("huge ttl", "lone surrogate in content"):  # unprovable, unencodable
            with pytest.raises(InvalidInput) as e:
                pipeline.append([good, POISON[poison]])
            assert (e.value.field, e.value.rule) == ("event", "projectable")
        assert log.last_position() == 0
        (position,) = pipeline.append([good])
        assert position == log.last_position() == 1
        (logged,) = log.read(after=0, limit=10)
        assert logged.event == good
        assert log.heads("default", ["m1"])["m1"].version == 1
    finally:
        log.close()


def test_valid_extremes_pass() -> None:
    for event in (
        written(created_at=datetime(1, 1, 1, tzinfo=UTC)),
        written(created_at=datetime(9999, 12, 30, tzinfo=UTC), ttl=86_399),
        written(meta=deep(32), tags=("标签", "🦀"), content="𠀀 \x85 tab\t"),
    ):
        check_projectable(event, SERIALIZER)
