"""``write_many`` through every client: ``MemoryClient`` against a real server process,
``InProcessClient`` against a container in this process (the same cases), the async
client, and what the SDK sends and retries (on a mock transport)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_memory.bootstrap import build
from ai_memory.sdk import (
    AsyncMemoryClient,
    BatchWriteOut,
    InvalidInputError,
    MemoryClient,
    MemoryIn,
    RetryPolicy,
)
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.settings import Settings
from tests.e2e.test_server_and_cli import Server


def item(content: str, scope: str, **kw: Any) -> dict[str, Any]:
    return {"type": "fact", "content": content, "scope": scope, "source_agent": "fleet", **kw}


def test_write_many_answers_every_item_and_raises_for_none(sdk_memory: MemoryClient) -> None:
    scope = f"team:batch-{type(sdk_memory).__name__.lower()}"
    typed = MemoryIn.model_validate(item("Typed record, no id.", scope))
    out = sdk_memory.write_many(
        [
            typed,
            item("First version.", scope, id=f"{scope}-dup"),
            item("Second version.", scope, id=f"{scope}-dup"),
            item("", scope),  # refused: empty content
            item("Elsewhere.", "Not A Scope"),  # refused: scope format
        ],
        wait=True,
    )
    assert isinstance(out, BatchWriteOut)
    assert [r.status for r in out.results] == [201, 201, 200, 422, 422]
    assert [r.ok for r in out.results] == [True, True, True, False, False]
    assert (out.written, out.unchanged, out.rejected) == (3, 0, 2)
    assert [r.version for r in out.results[1:3]] == [1, 2]
    empty = out.results[3].problem
    assert empty is not None and empty.field == "content" and empty.rule
    scope_problem = out.results[4].problem
    assert scope_problem is not None and scope_problem.field == "scope"
    first_id = out.results[0].id
    assert first_id is not None  # the client named it, so a retry is idempotent
    assert sdk_memory.get(first_id, min_position=out.position).content == "Typed record, no id."
    assert sdk_memory.get(f"{scope}-dup").version == 2
    # The same batch of distinct memories again writes nothing.
    again = sdk_memory.write_many([item("Only once.", scope, id=f"{scope}-once")], wait=True)
    repeat = sdk_memory.write_many([item("Only once.", scope, id=f"{scope}-once")], wait=True)
    assert again.written == 1 and (repeat.written, repeat.unchanged) == (0, 1)


def test_write_many_refuses_a_batch_over_the_limit_as_a_whole(sdk_memory: MemoryClient) -> None:
    items = [item(f"Memory {i}.", "team:too-many") for i in range(1001)]
    with pytest.raises(InvalidInputError) as e:
        sdk_memory.write_many(items)
    assert (e.value.field, e.value.code) == ("items", "batch_too_large")
    assert sdk_memory.write_many([]).results == []


def test_async_write_many(sdk_server: Server) -> None:
    async def scenario() -> BatchWriteOut:
        async with AsyncMemoryClient(sdk_server.url, timeout=30) as client:
            return await client.write_many(
                [item("Async one.", "team:async"), item("Async two.", "team:async")], wait=True
            )

    out = asyncio.run(scenario())
    assert [r.status for r in out.results] == [201, 201] and out.position > 0
    with MemoryClient(sdk_server.url) as sync:
        assert sync.get(str(out.results[1].id)).content == "Async two."


def _answer(items: list[Any]) -> dict[str, Any]:
    return {
        "results": [
            {
                "index": i,
                "status": 201,
                "id": x["id"],
                "version": 1,
                "changed": True,
                "position": i + 1,
            }
            for i, x in enumerate(items)
        ],
        "written": len(items),
        "unchanged": 0,
        "rejected": 0,
        "position": len(items),
    }


def test_the_sdk_names_every_item_and_retries_only_a_repeatable_batch() -> None:
    sent: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        if len(sent) % 2 == 1:  # every first attempt: a 503 after the write
            return httpx.Response(503, json={"code": "unavailable", "detail": "busy"})
        return httpx.Response(200, json=_answer(body["items"]))

    policy = RetryPolicy(max_retries=1, sleep=lambda _: None)
    with MemoryClient(transport=httpx.MockTransport(handler), retries=policy) as client:
        out = client.write_many(
            [item("A.", "team:x"), MemoryIn.model_validate(item("B.", "team:x", id="b"))],
            wait=True,
        )
        assert len(sent) == 2 and sent[0] == sent[1]  # retried with the very same ids
        ids = [x["id"] for x in sent[0]["items"]]
        assert ids[1] == "b" and ids[0] and ids[0] != "b"
        assert [r.id for r in out.results] == ids
        sent.clear()
        # One memory twice: two upserts in order, which a retry would repeat.
        with pytest.raises(Exception) as e:
            client.write_many([item("A.", "team:x", id="m"), item("B.", "team:x", id="m")])
        assert getattr(e.value, "status", None) == 503 and len(sent) == 1


def test_the_in_process_client_has_the_http_clients_method(tmp_path: Path) -> None:
    # Not a type check only: the in-process answer is the HTTP answer's model.
    c = build(Settings(data_dir=tmp_path / "data"))
    c.start()
    try:
        out = InProcessClient(c).write_many([item("Local.", "team:local", id="local")])
        body = out.model_dump(exclude_none=True)
        token = body["results"][0]["position"]  # the tenant's token of its log position
        assert body["results"] == [
            {
                "index": 0,
                "status": 201,
                "id": "local",
                "version": 1,
                "changed": True,
                "position": token,
            }
        ]
        assert c.services.positions.taken("default", token) == 1
    finally:
        c.close()
