"""``ChangeFeed`` over the embedded SQLite log (scope filter inside the query) and over
the in-memory log (filtered after decoding) gives the same entries; cursors resume after
each entry; bad cursors name the field; ``LogWatch`` wakes a waiter on an append."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.bootstrap import Container, build
from ai_memory.core.errors import InvalidInput
from ai_memory.settings import Settings
from tests.factories import FixedClock


@pytest.fixture(params=["sqlite", "memory"])
def built(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Container]:
    extra = {}
    if request.param == "memory":
        extra = {"event_log_url": "memory://", "record_store_url": "memory://"}
    container = build(Settings(data_dir=tmp_path / "data", **extra), clock=FixedClock())
    container.start()
    yield container
    container.close()


def write(c: Container, tenant: str, memory_id: str, scope: str, content: str = "x") -> None:
    body = {"id": memory_id, "type": "fact", "scope": scope, "source_agent": "a"}
    c.service.write(tenant, {**body, "content": f"{memory_id} {content}"}, wait=True)


def test_entries_scopes_and_cursors(built: Container) -> None:
    feed = built.services.changes
    assert feed is not None
    write(built, "acme", "a1", "user:alice")
    write(built, "acme", "b1", "user:bob")
    write(built, "globex", "g1", "user:alice")
    write(built, "acme", "a1", "user:alice", "changed")
    built.service.delete("acme", "b1", actor="test", reason="r")
    everything = feed.page("acme", None)
    assert [(c.kind, c.id, c.version) for c in everything.changes] == [
        ("written", "a1", 1),
        ("written", "b1", 1),
        ("written", "a1", 2),
        ("forgotten", "b1", 1),
    ]
    assert not everything.more
    alice = feed.page("acme", ["user:alice"], limit=1)
    assert [c.id for c in alice.changes] == ["a1"] and alice.more
    rest = feed.page("acme", ["user:alice"], since=alice.changes[0].cursor)
    assert [(c.id, c.version) for c in rest.changes] == [("a1", 2)]
    assert feed.page("acme", [], since=None).changes == []
    assert feed.page("acme", ["user:alice"], since=rest.next).changes == []


def test_bad_cursors_name_their_field(built: Container) -> None:
    feed = built.services.changes
    assert feed is not None
    write(built, "globex", "g1", "user:alice")
    globex = feed.page("globex", None)
    assert globex.changes
    audit = built.services.audit
    assert audit is not None
    for bad in (
        "",
        "!!",
        "YTF8MDow",
        "YzF8MDow",  # a plain cursor of old: "c1|0:0", now forgeable no more
        feed.cursor("acme", {7: 1}),  # a partition this log does not have
        globex.next,  # another tenant's cursor
        globex.changes[0].cursor,
        audit.page("acme").next,  # the audit trail's cursor
    ):
        with pytest.raises(InvalidInput) as e:
            feed.page("acme", None, since=bad or "x", field="Last-Event-ID")
        assert e.value.field == "Last-Event-ID"
        assert e.value.message == "Last-Event-ID must be a cursor returned by GET /v1/changes"
    with pytest.raises(InvalidInput) as e:
        feed.page("acme", None, limit=0)
    assert e.value.field == "limit"


def test_a_waiter_wakes_on_an_append(built: Container) -> None:
    feed = built.services.changes
    assert feed is not None
    start = feed.start("acme")

    async def wait() -> tuple[bool, float]:
        began = time.monotonic()
        woke = await feed.wait("acme", start, 10)
        return woke, time.monotonic() - began

    threading.Timer(0.2, lambda: write(built, "acme", "late", "public")).start()
    woke, waited = asyncio.run(wait())
    assert woke and waited < 5
    assert not asyncio.run(feed.wait("acme", feed.start("acme"), 0.2))  # nothing new
    assert feed.wait_blocking("acme", start, 0.1)
