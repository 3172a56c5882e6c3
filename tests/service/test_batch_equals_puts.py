"""A batch is the same as its items sent one by one as PUTs, in order: the same status,
version and ``changed`` for every item, and the same memories stored afterwards —
whatever mix of new, repeated, changed, forgotten, scope-moving and invalid items it
holds (Hypothesis)."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai_memory.bootstrap import Container
from ai_memory.core.errors import AiMemoryError, Conflict, Gone, InvalidInput, NotFound
from ai_memory.service.memory_service import MemoryService
from tests.factories import FixedClock

IDS = ["a", "b", "c"]
FORGOTTEN = "gone"

items = st.fixed_dictionaries(
    {
        "id": st.sampled_from([*IDS, FORGOTTEN]),
        "type": st.sampled_from(["fact", "preference"]),
        "content": st.sampled_from(["Tea.", "Coffee.", "", "NUL \x00 inside"]),
        "scope": st.sampled_from(["user:alice", "user:alice", "team:ops"]),
        "source_agent": st.just("fleet"),
    }
)


def put(
    svc: MemoryService, tenant: str, body: dict[str, Any]
) -> tuple[int, int | None, bool | None]:
    """One PUT /v1/memories/{id} as the route answers it: (status, version, changed)."""
    try:
        r = svc.write(tenant, body, memory_id=body["id"])
    except AiMemoryError as e:
        status = {InvalidInput: 422, Gone: 410, Conflict: 409, NotFound: 404}[type(e)]
        return status, None, None
    return (201 if r.created else 200), r.version, r.changed


def stored(svc: MemoryService, tenant: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for memory_id in IDS:
        try:
            s = svc.get(tenant, memory_id)
        except NotFound:
            continue
        record = s.record
        out[memory_id] = (s.version, record.content, record.scope, record.type, record.created_at)
    return out


def prepared(svc: MemoryService) -> str:
    """A fresh tenant where ``a`` exists and ``gone`` was forgotten."""
    tenant = f"eq-{uuid.uuid4().hex[:12]}"
    svc.write(
        tenant,
        {
            "id": "a",
            "type": "fact",
            "content": "Tea.",
            "scope": "user:alice",
            "source_agent": "fleet",
        },
    )
    svc.write(
        tenant,
        {
            "id": FORGOTTEN,
            "type": "fact",
            "content": "Old.",
            "scope": "user:alice",
            "source_agent": "fleet",
        },
    )
    svc.delete(tenant, FORGOTTEN, actor="test")
    return tenant


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(items, max_size=8))
def test_a_batch_answers_and_stores_as_its_puts_in_order(
    container: Container, batch: list[dict[str, Any]]
) -> None:
    svc = container.service
    by_batch, by_puts = prepared(svc), prepared(svc)
    clock = container.clock
    assert isinstance(clock, FixedClock)
    clock.advance(60)  # an upsert keeps the original created_at, not this later time
    results = svc.write_many(by_batch, batch)
    expected = [put(svc, by_puts, dict(item)) for item in batch]
    assert [(r.status, r.version, r.changed) for r in results] == expected
    assert [r.index for r in results] == list(range(len(batch)))
    svc.wait_for(svc.units.last_position)
    assert stored(svc, by_batch) == stored(svc, by_puts)
