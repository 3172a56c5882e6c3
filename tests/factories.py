"""Small deterministic builders for tests (hypothesis strategies live in strategies.py)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from ai_memory.adapters.projectability import ProjectabilityCheck
from ai_memory.core.events import EventHeader, MemoryDeleted, MemoryWritten
from ai_memory.core.ports import EventLog
from ai_memory.core.record import MemoryRecord, MemoryType
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.append_pipeline import AppendPipeline

T0 = datetime(2026, 3, 12, 9, 30, tzinfo=UTC)
_ids = itertools.count(1)


class FixedClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime = T0) -> None:
        self.current = start

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


def header(tenant: str = "default", actor: str = "test", at: datetime = T0) -> EventHeader:
    return EventHeader(f"evt-{next(_ids)}", tenant, at, actor)


def record(
    memory_id: str = "m1",
    content: str = "Alice prefers tea.",
    *,
    scope: str = "user:alice",
    type_: MemoryType = MemoryType.PREFERENCE,
    **kw: Any,
) -> MemoryRecord:
    return MemoryRecord(
        id=memory_id,
        type=type_,
        content=content,
        scope=scope,
        source_agent=kw.pop("source_agent", "agent-a"),
        created_at=kw.pop("created_at", T0),
        **kw,
    )


def written(
    rec: MemoryRecord | None = None, *, version: int = 1, tenant: str = "default", **kw: Any
) -> MemoryWritten:
    rec = rec or record()
    return MemoryWritten(
        header=header(tenant), record=rec, version=version, content_sha256=rec.fingerprint(), **kw
    )


def deleted(
    memory_id: str = "m1", *, scope: str = "user:alice", tenant: str = "default", version: int = 1
) -> MemoryDeleted:
    return MemoryDeleted(
        header=header(tenant),
        memory_id=memory_id,
        scope=scope,
        reason="user_request",
        version=version,
    )


def pipeline(log: EventLog) -> AppendPipeline:
    """The append pipeline over ``log`` without encryption (frames in plain Avro)."""
    serializer = AvroEventSerializer()
    return AppendPipeline(log, serializer, ProjectabilityCheck(serializer))
