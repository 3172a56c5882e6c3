"""Export and import of NDJSON bundles through the service: a round trip carries records
and tombstones, re-importing writes nothing, a forgotten id is never resurrected."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.errors import Gone
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.transfer import ImportReport, ImportSession, export_lines
from tests.factories import writing_of


def write(svc: MemoryService, tenant: str, memory_id: str, content: str, **kw: Any) -> None:
    body = {"type": "fact", "scope": "user:alice", "source_agent": "a", "content": content}
    svc.write(tenant, {**body, "id": memory_id, **kw}, wait=True)


def import_into(svc: MemoryService, tenant: str, lines: list[str]) -> ImportReport:
    session = ImportSession(writing_of(svc), tenant)
    session.feed(list(enumerate(lines, start=1)))
    return session.finish(wait=True)


@pytest.fixture
def svc(container: Container) -> MemoryService:
    return container.service


def test_round_trip_carries_records_and_tombstones(svc: MemoryService, tenant: str) -> None:
    write(svc, tenant, "tea", "Alice prefers green tea.", tags=["drinks"])
    write(svc, tenant, "ci", "The deploy pipeline uses GitHub Actions.")
    write(svc, tenant, "gone", "A secret to forget.")
    svc.delete(tenant, "gone", actor="alice", wait=True)
    bundle = list(export_lines(svc.store, svc.clock, tenant, None))
    kinds = [json.loads(line)["kind"] for line in bundle]
    assert kinds == ["header", "record", "record", "tombstone", "trailer"]

    target = f"{tenant}-copy"
    write(svc, target, "gone", "The copy still holds what the source forgot.")
    report = import_into(svc, target, bundle)
    assert (report.written, report.tombstones_applied, report.rejected) == (2, 1, 0)
    assert svc.get(target, "tea").record.tags == ("drinks",)
    with pytest.raises(Gone):
        svc.get(target, "gone")  # the receiving system forgets too

    again = import_into(svc, target, bundle)
    assert (again.written, again.tombstones_applied, again.rejected) == (0, 0, 0)


def test_a_forgotten_id_is_never_resurrected(svc: MemoryService, tenant: str) -> None:
    write(svc, tenant, "tea", "Alice prefers green tea.")
    bundle = list(export_lines(svc.store, svc.clock, tenant, None))
    svc.delete(tenant, "tea", actor="alice", wait=True)
    report = import_into(svc, tenant, bundle)
    assert (report.written, report.skipped_tombstoned) == (0, 1)
    with pytest.raises(Gone):
        svc.get(tenant, "tea")


def test_a_bad_line_is_reported_and_the_rest_imported(svc: MemoryService, tenant: str) -> None:
    write(svc, tenant, "tea", "Alice prefers green tea.")
    bundle = list(export_lines(svc.store, svc.clock, tenant, None))
    target = f"{tenant}-copy"
    report = import_into(svc, target, [bundle[0], "{not json", *bundle[1:]])
    assert (report.written, report.rejected) == (1, 1)
    assert report.errors[0]["line"] == 2


def test_export_is_filtered_by_scope(svc: MemoryService, tenant: str) -> None:
    write(svc, tenant, "a", "Alice's memory.")
    write(svc, tenant, "b", "Bob's memory.", scope="user:bob")
    lines = [json.loads(line) for line in export_lines(svc.store, svc.clock, tenant, ["user:bob"])]
    assert [line["record"]["id"] for line in lines if line["kind"] == "record"] == ["b"]
