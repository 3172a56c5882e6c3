"""The usage use case: the tenant's numbers from the usage source, its quota from the
limit table (its override, else the default; 0 is no quota), and the wire shape."""

from __future__ import annotations

from ai_memory.adapters.memory import MemoryRecordStore
from ai_memory.core.access.tenant_limits import LimitTable, TenantLimits
from ai_memory.core.positions import pack
from ai_memory.core.projection import PutRecord
from ai_memory.service.usage import UsageService
from tests.contract.record_store_contract import stored


def service(default_quota: int) -> tuple[MemoryRecordStore, UsageService]:
    store = MemoryRecordStore()
    table = LimitTable.parse(
        TenantLimits(max_memories=default_quota), '{"acme": {"max_memories": 7}}'
    )
    return store, UsageService(store, table)


def test_the_report_carries_the_usage_the_quota_and_the_positions() -> None:
    store, usage = service(default_quota=0)
    store.apply(
        [PutRecord(stored("m1", "二", position=pack(2, 5), tenant="acme"))],
        checkpoint=pack(2, 5),
        partition=2,
    )
    assert usage.usage("acme").to_json() == {
        "tenant": "acme",
        "memories": 1,
        "bytes": 3,
        "quota": {"max_memories": 7},
        "as_of": [{"partition": 2, "position": pack(2, 5)}],
    }
    assert usage.usage("globex").to_json()["quota"] == {"max_memories": None}


def test_a_tenant_without_an_override_has_the_default_quota() -> None:
    _, usage = service(default_quota=100)
    assert usage.usage("globex").max_memories == 100
    assert usage.usage("acme").max_memories == 7


def test_every_tenant_is_what_the_source_lists() -> None:
    store, usage = service(default_quota=0)
    for i, tenant in enumerate(("b", "a", "b")):
        store.apply([PutRecord(stored(f"m{i}", position=i + 1, tenant=tenant))], checkpoint=i + 1)
    assert [(r.tenant, r.memories) for r in usage.every_tenant()] == [("a", 1), ("b", 2)]
