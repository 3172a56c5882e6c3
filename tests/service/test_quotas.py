"""The stored-memories quota in the service layer: every write path obeys it, because it
is checked where every append passes (the unit of work), and only new memories count."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from ai_memory.bootstrap import Container, build
from ai_memory.core.access.tenant_limits import LimitTable, TenantLimits
from ai_memory.core.errors import Forbidden
from ai_memory.core.ports import Embedder
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.quotas import MemoryQuota
from ai_memory.service.transfer import ImportSession, export_lines
from ai_memory.settings import Settings
from tests.factories import FixedClock, writing_of

from .conftest import MEMORY

QUOTA = 3


@pytest.fixture(scope="module")
def quota_container(
    tmp_path_factory: pytest.TempPathFactory, clock: FixedClock, embedder: Embedder
) -> Iterator[Container]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("data"),
        event_log_url=MEMORY,
        record_store_url=MEMORY,
        index_url=MEMORY,
        tenant_max_memories=QUOTA,
        tenant_limits=json.dumps({"roomy": {"max_memories": 0}}),
    )
    c = build(settings, clock=clock, embedder=embedder)
    c.start()
    yield c
    c.close()


@pytest.fixture
def svc(quota_container: Container) -> MemoryService:
    return quota_container.service


def body(memory_id: str, content: str = "Alice prefers green tea.") -> dict[str, Any]:
    return {
        "id": memory_id,
        "type": "preference",
        "content": content,
        "scope": "user:alice",
        "source_agent": "planner",
    }


def fill(svc: MemoryService, tenant: str) -> None:
    for i in range(QUOTA):
        svc.write(tenant, body(f"m{i}", f"Memory number {i}."), wait=True)


def test_the_write_past_the_quota_is_refused_and_updates_still_work(
    svc: MemoryService, tenant: str
) -> None:
    fill(svc, tenant)
    with pytest.raises(Forbidden) as refused:
        svc.write(tenant, body("one-too-many"))
    assert refused.value.code == "quota_exceeded"
    assert f"at most {QUOTA}" in refused.value.message
    updated = svc.write(tenant, body("m0", "Memory number 0, revised."), wait=True)
    assert updated.changed and not updated.created
    assert svc.write(tenant, body("m1", "Memory number 1.")).changed is False  # a repeat


def test_forgetting_is_always_allowed_and_makes_room(
    svc: MemoryService, tenant: str, quota_container: Container
) -> None:
    fill(svc, tenant)
    svc.delete(tenant, "m0", actor="alice", wait=True)
    quota = quota_container.service.units.quota
    assert quota is not None
    quota._known.clear()  # as once the cached count is read again (RECOUNT_EVERY)
    assert svc.write(tenant, body("fresh"), wait=True).created


def test_a_batch_lands_what_fits_and_refuses_the_rest_item_by_item(
    svc: MemoryService, tenant: str
) -> None:
    svc.write(tenant, body("kept", "Memory kept."), wait=True)
    items = [body(f"b{i}", f"Batch memory {i}.") for i in range(3)]
    items.append(body("kept", "Memory kept, revised."))  # an update: always allowed
    results = svc.write_many(tenant, items, wait=True)
    statuses = [r.status for r in results]
    assert statuses == [201, 201, 403, 200]
    refused = results[2]
    assert refused.error is not None and refused.error.code == "quota_exceeded"


def test_an_import_rejects_the_lines_past_the_quota(svc: MemoryService, tenant: str) -> None:
    source = f"{tenant}-src"[:60]
    fill(svc, source)
    bundle = list(export_lines(svc.store, svc.clock, source, None))
    svc.write(tenant, body("already", "Memory already here."), wait=True)
    session = ImportSession(writing_of(svc), tenant)
    session.feed(list(enumerate(bundle, start=1)))
    report = session.finish(wait=True)
    assert (report.written, report.rejected) == (2, 1)
    assert [e["code"] for e in report.errors] == ["quota_exceeded"]


def test_a_tenant_without_a_quota_is_not_counted(svc: MemoryService) -> None:
    for i in range(QUOTA + 2):
        assert svc.write("roomy", body(f"r{i}", f"Roomy memory {i}.")).created


# --- the cached count, on its own ---------------------------------------------------------


class Counts:
    def __init__(self) -> None:
        self.stored = 0
        self.reads = 0

    def __call__(self, tenant: str) -> int:
        self.reads += 1
        return self.stored


def test_the_count_is_read_once_per_ttl_and_what_this_process_creates_is_added() -> None:
    counts, now = Counts(), [100.0]
    quota = MemoryQuota(counts, LimitTable(TenantLimits(max_memories=5)), monotonic=lambda: now[0])
    for _ in range(5):
        quota.admit("t", 1)
        quota.created("t", 1)  # the store has not projected them: still reads 0
    assert counts.reads == 1
    with pytest.raises(Forbidden):
        quota.admit("t", 1)  # 5 known: refused without a recount within a second
    assert counts.reads == 1
    counts.stored = 3  # two were forgotten meanwhile
    now[0] += 1.0
    quota.admit("t", 2)  # a would-be refusal re-reads the count first
    assert counts.reads == 2
    with pytest.raises(Forbidden):
        quota.admit("t", 3)


def test_an_unlimited_tenant_never_reads_the_count() -> None:
    counts = Counts()
    quota = MemoryQuota(counts, LimitTable(TenantLimits(), {"q": TenantLimits(max_memories=1)}))
    quota.admit("other", 100)
    quota.created("other", 100)
    assert counts.reads == 0
