"""Small deterministic builders for tests (hypothesis strategies live in strategies.py)."""

from __future__ import annotations

import dataclasses
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from ai_memory.adapters.projectability import ProjectabilityCheck
from ai_memory.core.events import EventHeader, MemoryDeleted, MemoryWritten
from ai_memory.core.ports import EventLog
from ai_memory.core.record import MemoryRecord, MemoryType
from ai_memory.core.secrets import SecretPolicy
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.append_pipeline import AppendPipeline
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.secret_policy import SecretGuard
from ai_memory.service.writing import Writing

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


def writing_of(service: MemoryService) -> Writing:
    """What the import, notes and erasure use cases are given, as the memory service of a
    test container has it (one set of units, store, policy, limits and clock)."""
    return Writing(service.units, service.store, service.secrets, service.limits, service.clock)


def use_secret_policy(monkeypatch: Any, container: Any, policy: SecretPolicy) -> SecretGuard:
    """Every service of ``container`` that screens a write under one guard of ``policy``
    (as bootstrap builds them: one guard, given to each)."""
    guard = SecretGuard(policy)
    monkeypatch.setattr(container.service, "secrets", guard)
    monkeypatch.setattr(container.governance, "secrets", guard)
    monkeypatch.setattr(container.notes, "secrets", guard)
    transfer = container.services.transfer
    monkeypatch.setattr(transfer, "deps", dataclasses.replace(transfer.deps, secrets=guard))
    erasures = container.services.erasures
    if erasures is not None:
        monkeypatch.setattr(erasures, "deps", dataclasses.replace(erasures.deps, secrets=guard))
    return guard
