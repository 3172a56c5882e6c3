"""Import never regresses: a bundle line older than the live local memory is counted
``stale`` and not written; a newer one is applied (the rule lives in ``ImportSession``,
used by bundle import and ``migrate`` alike)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.transfer import ImportReport, ImportSession, export_lines
from tests.factories import FixedClock, writing_of


def write(svc: MemoryService, tenant: str, content: str) -> None:
    body = {"id": "home", "type": "fact", "scope": "user:alice", "source_agent": "a"}
    svc.write(tenant, {**body, "content": content}, wait=True)


def backup(svc: MemoryService, tenant: str) -> list[str]:
    return list(export_lines(svc.store, svc.clock, tenant, None))


def restore(svc: MemoryService, tenant: str, lines: list[str]) -> ImportReport:
    session = ImportSession(writing_of(svc), tenant)
    session.feed(list(enumerate(lines, start=1)))
    return session.finish(wait=True)


def edit_records(lines: list[str], **changes: Any) -> list[str]:
    out = []
    for line in lines:
        obj = json.loads(line)
        if obj["kind"] == "record":
            obj.update(changes)
            obj = {k: v for k, v in obj.items() if v is not None}
        out.append(json.dumps(obj))
    return out


@pytest.fixture
def svc(container: Container) -> MemoryService:
    return container.service


def test_an_older_backup_never_overwrites_a_newer_memory(
    svc: MemoryService, tenant: str, clock: FixedClock
) -> None:
    write(svc, tenant, "Alice lives in Lyon.")
    old = backup(svc, tenant)
    clock.advance(60)
    write(svc, tenant, "Alice moved to Montréal.")
    report = restore(svc, tenant, old)
    assert (report.stale, report.written, report.rejected) == (1, 0, 0)
    assert report.to_json()["stale"] == 1
    assert svc.get(tenant, "home").record.content == "Alice moved to Montréal."
    # a line with a version but no updated_at is judged by its version
    undated = edit_records(old, updated_at=None)
    assert restore(svc, tenant, undated).stale == 1
    # a line that says neither is judged by content alone, as a hand-written row is
    bare = edit_records(old, updated_at=None, version=None)
    assert restore(svc, tenant, bare).written == 1


def test_a_change_made_before_an_earlier_import_still_lands(
    svc: MemoryService, tenant: str, clock: FixedClock
) -> None:
    source, target = tenant, f"{tenant}-copy"
    write(svc, source, "Alice lives in Lyon.")
    first = backup(svc, source)
    clock.advance(60)
    write(svc, source, "Alice moved to Montréal.")  # version 2 on the source
    second = backup(svc, source)
    clock.advance(60)
    assert restore(svc, target, first).written == 1  # stamped now, after the change
    report = restore(svc, target, second)
    assert (report.stale, report.written) == (0, 1)
    assert svc.get(target, "home").record.content == "Alice moved to Montréal."
    assert restore(svc, target, first).stale == 1  # and the older one never comes back


def test_a_newer_line_is_applied(svc: MemoryService, tenant: str, clock: FixedClock) -> None:
    source, target = tenant, f"{tenant}-copy"
    write(svc, source, "Alice lives in Lyon.")
    assert restore(svc, target, backup(svc, source)).written == 1
    clock.advance(60)
    write(svc, source, "Alice moved to Montréal.")
    report = restore(svc, target, backup(svc, source))
    assert (report.stale, report.written) == (0, 1)
    assert svc.get(target, "home").record.content == "Alice moved to Montréal."


def test_a_newer_state_travels_with_unchanged_content(
    svc: MemoryService, tenant: str, clock: FixedClock
) -> None:
    """An ``archived`` line whose content equals the local memory's moves its state (it
    used to be counted unchanged and leave the memory active); importing it again changes
    nothing, and an older line naming another state never moves it back."""
    write(svc, tenant, "Alice lives in Lyon.")
    active = backup(svc, tenant)
    clock.advance(60)
    archived = edit_records(active, state="archived", updated_at=clock.now().isoformat())
    report = restore(svc, tenant, archived)
    assert (report.states_applied, report.written, report.unchanged) == (1, 0, 0), report
    assert report.to_json()["states_applied"] == 1
    assert svc.get(tenant, "home").state.value == "archived"
    assert restore(svc, tenant, archived).unchanged == 1  # idempotent
    # The backup taken while it was active is older than the state change: stale.
    back = restore(svc, tenant, active)
    assert (back.stale, back.states_applied) == (1, 0), back
    assert svc.get(tenant, "home").state.value == "archived"
    lineage = [e for e in svc.store.lineage(tenant, "home") if e.kind == "state_changed"]
    assert [(e.detail["to"], e.detail["cause"]) for e in lineage] == [("archived", "import.state")]
