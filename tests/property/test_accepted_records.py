"""For any record body the service accepts, the projections apply it, ``get`` returns the
same record and a keyword search in its scope finds it; any body it refuses is refused
with ``InvalidInput`` only, and nothing is appended to the log.

One embedded container serves every example (building one takes seconds); each example
writes under a fresh id and scope, so examples cannot see each other.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings

from ai_memory.bootstrap import Container
from ai_memory.core.errors import InvalidInput
from ai_memory.core.keywords import query_terms
from ai_memory.service.memory_service import SearchRequest, WriteResult
from tests.property.log_probe import appended_since
from tests.strategies import hostile_bodies, record_bodies

TENANT = "default"
SLOW_IO = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def assert_projected(container: Container, body: dict[str, Any], written: WriteResult) -> None:
    """The write is readable as it was decided, and findable by its own words."""
    record = written.record
    assert record.content == body["content"]
    assert record.scope == body["scope"]
    assert record.source_agent == body["source_agent"].strip()
    assert record.ttl == body.get("ttl")
    assert record.tags == tuple(dict.fromkeys(t.strip() for t in body.get("tags") or ()))

    stored = container.service.get(TENANT, record.id)
    assert stored.record == record
    assert stored.version == written.version

    now = container.clock.now()
    if record.is_expired(now) or not query_terms(record.content).indices:
        event("not searchable (expired, or stop words only)")
        return  # expired memories and queries of stop words only find nothing, by design
    event("searched")
    request = SearchRequest(record.content, scopes=[record.scope], mode="keyword", top_k=100)
    hits = container.service.search(TENANT, request)
    # Generated scopes are unique; a hostile body may say ``public``, which others share.
    assert record.id in [h.stored.record.id for h in hits]


@settings(SLOW_IO, max_examples=100)
@given(body=record_bodies())
def test_every_accepted_extreme_record_is_projected_read_and_found(
    container: Container, body: dict[str, Any]
) -> None:
    written = container.service.write(TENANT, body, wait=True)
    assert written.created and written.changed
    assert_projected(container, body, written)


@settings(SLOW_IO, max_examples=200)
@given(body=hostile_bodies())
def test_hostile_bodies_are_projected_or_refused_without_a_trace(
    container: Container, body: dict[str, Any]
) -> None:
    log = container.log
    before = log.last_position()
    try:
        written = container.service.write(TENANT, body, wait=True)
    except InvalidInput as e:
        assert appended_since(container, before) == [], "a refused write must append nothing"
        # the refusal can be sent back as it is: field and message are encodable text
        e.field.encode("utf-8")
        e.message.encode("utf-8")
        # Validation, not the projectability guard, must catch what API input gets wrong.
        assert e.rule and e.rule != "projectable", e.message
        event(f"refused: {e.rule}")
        return
    event("accepted")
    assert_projected(container, body, written)


@settings(SLOW_IO, max_examples=60)
@given(first=record_bodies(), second=record_bodies())
def test_upserts_keeping_created_at_stay_projectable(
    container: Container, first: dict[str, Any], second: dict[str, Any]
) -> None:
    """An upsert without ``created_at`` keeps the stored one, so its expiry is only known
    at decision time: a ttl that pushes it past the end is refused there, by validation."""
    container.service.write(TENANT, first, wait=True)
    second = {**second, "id": first["id"], "scope": first["scope"]}
    second.pop("created_at", None)
    before = container.log.last_position()
    try:
        written = container.service.write(TENANT, second, wait=True)
    except InvalidInput as e:
        assert (e.field, e.rule) == ("ttl", "expiry_range"), e.message
        assert appended_since(container, before) == []
        event("refused: expiry past the end")
        return
    assert written.record.created_at == container.service.get(TENANT, first["id"]).record.created_at
    event("updated")
