"""Browsing and conditional writes through every client: ``MemoryClient`` against a real
server process and ``InProcessClient`` against a container (the same cases), the async
client, and what the SDK sends (on a mock transport)."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from ai_memory.sdk import (
    AsyncMemoryClient,
    ConflictError,
    InvalidInputError,
    MemoryClient,
    PreconditionFailedError,
)
from tests.e2e.test_server_and_cli import Server


def test_list_and_iterate(sdk_memory: MemoryClient) -> None:
    scope = f"user:{uuid.uuid4().hex[:8]}"
    for i in range(7):
        sdk_memory.write(
            f"memory {i}", scope=scope, source_agent="a", id=f"{scope}-{i}", tags=[f"t{i % 2}"]
        )
    last = sdk_memory.write("memory 7", scope=scope, source_agent="a", id=f"{scope}-7", wait=True)
    page = sdk_memory.list_memories(scope=scope, limit=3, min_position=last.position)
    assert [m.id for m in page.items] == [f"{scope}-{i}" for i in range(3)]
    assert page.next_cursor is not None
    rest = sdk_memory.list_memories(scope=scope, cursor=page.next_cursor, limit=1000)
    assert [m.id for m in rest.items] == [f"{scope}-{i}" for i in range(3, 8)]
    assert rest.next_cursor is None
    assert [m.id for m in sdk_memory.iter_memories(scope=[scope], page_size=2)] == [
        f"{scope}-{i}" for i in range(8)
    ]
    odd = sdk_memory.iter_memories(scope=scope, tag="t1", type="fact", state=["active"])
    assert [m.id for m in odd] == [f"{scope}-{i}" for i in (1, 3, 5)]
    with pytest.raises(InvalidInputError) as bad:
        sdk_memory.list_memories(cursor="nope!")
    assert bad.value.field == "cursor"


def test_if_match_on_write_upsert_and_delete(sdk_memory: MemoryClient) -> None:
    memory_id = f"cond-{uuid.uuid4().hex[:8]}"
    first = sdk_memory.write("v1", scope="user:c", source_agent="a", id=memory_id, if_match=None)
    assert first.record.version == 1
    second = sdk_memory.write("v2", scope="user:c", source_agent="a", id=memory_id, if_match=1)
    assert second.record.version == 2
    with pytest.raises(PreconditionFailedError) as stale:
        sdk_memory.write("v3", scope="user:c", source_agent="a", id=memory_id, if_match=1)
    assert stale.value.status == 412 and stale.value.code == "precondition_failed"
    assert isinstance(stale.value, ConflictError)
    with pytest.raises(PreconditionFailedError):
        sdk_memory.delete(memory_id, if_match='"1"')
    assert not sdk_memory.delete(memory_id, if_match=2, wait=True).already_forgotten
    created = sdk_memory.write("new", scope="user:c", source_agent="a", id=f"{memory_id}-n")
    record = sdk_memory.get(created.record.id, min_position=created.position)
    assert record.version == 1
    with pytest.raises(PreconditionFailedError):
        sdk_memory.write("x", scope="user:c", source_agent="a", id=f"{memory_id}-m", if_match="*")


def test_async_client(sdk_server: Server) -> None:
    async def scenario() -> None:
        async with AsyncMemoryClient(sdk_server.url, timeout=30) as client:
            scope = f"user:{uuid.uuid4().hex[:8]}"
            out = await client.write("a", scope=scope, source_agent="a", id=f"{scope}-a")
            await client.write("b", scope=scope, source_agent="a", id=f"{scope}-b", wait=True)
            ids = [m.id async for m in client.iter_memories(scope=scope, page_size=1)]
            assert ids == [f"{scope}-a", f"{scope}-b"]
            with pytest.raises(PreconditionFailedError):
                await client.delete(out.record.id, if_match=7)
            await client.delete(out.record.id, if_match=out.record.version)

    asyncio.run(scenario())


def test_what_the_sdk_sends() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if request.method == "GET":
            return httpx.Response(200, json={"items": [], "next_cursor": None})
        return httpx.Response(412, json={"code": "precondition_failed", "detail": "stale"})

    with MemoryClient(transport=httpx.MockTransport(answer), retries=3) as client:
        client.list_memories(scope=["user:a", "public"], type="fact", tag="x", limit=7)
        with pytest.raises(PreconditionFailedError):
            client.write("c", scope="user:a", source_agent="a", id="m1", if_match=3)
        with pytest.raises(PreconditionFailedError):
            client.delete("m1", if_match="*")
    listing, put, delete = sent
    assert listing.url.params.get_list("scope") == ["user:a", "public"]
    assert listing.url.params["type"] == "fact" and listing.url.params["limit"] == "7"
    assert put.headers["if-match"] == '"3"'
    assert delete.headers["if-match"] == "*"
