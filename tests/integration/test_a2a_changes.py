"""``memory.changes`` over A2A: the change feed streamed to the official ``a2a-sdk`` client
(``message/stream``: a task whose artifacts are the entries) and paged over
``message/send``, against the real server process with API keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, create_client
from a2a.helpers import get_data_parts, new_data_part
from a2a.types import ListTasksRequest, Message, Role, SendMessageRequest, TaskState

from tests.e2e.test_keys_server import create_key
from tests.e2e.test_server_and_cli import Server
from tests.integration.test_a2a import ask, error_code, ok

Entries = list[dict[str, Any]]


async def follow(client: Client, **arguments: Any) -> tuple[Entries, dict[str, Any]]:
    """Stream ``memory.changes``: the entries in the order they came, and the trailer."""
    part = new_data_part({"skill": "memory.changes", **arguments})
    message = Message(role=Role.ROLE_USER, message_id=f"f-{id(part)}", parts=[part])
    entries: Entries = []
    trailer: dict[str, Any] = {}
    kinds = []
    async for event in client.send_message(SendMessageRequest(message=message)):
        kind = event.WhichOneof("payload")
        kinds.append(kind)
        if kind == "artifact_update":
            artifact = event.artifact_update.artifact
            [entry] = get_data_parts(artifact.parts)
            assert artifact.metadata["cursor"] == entry["cursor"]
            entries.append(entry)
        elif kind == "status_update" and event.status_update.status.state in (
            TaskState.TASK_STATE_COMPLETED,
        ):
            [trailer] = get_data_parts(event.status_update.status.message.parts)
    assert kinds[0] == "task" and kinds[-1] == "status_update", kinds
    return entries, trailer


def test_changes_stream_over_a2a(tmp_path: Path) -> None:
    data = tmp_path / "data"
    admin = create_key(data, "--tenant", "acme", "--role", "admin")
    other = create_key(data, "--tenant", "acme", "--role", "reader", "--scopes", "team:other")
    server = Server(data)

    async def client_for(http: httpx.AsyncClient, streaming: bool = True) -> Client:
        card = await A2ACardResolver(http, server.url).get_agent_card()
        assert card.capabilities.streaming
        assert "memory.changes" in {s.id for s in card.skills}
        return await create_client(card, ClientConfig(httpx_client=http, streaming=streaming))

    async def main() -> None:
        bearer = {"Authorization": f"Bearer {admin}"}
        async with httpx.AsyncClient(headers=bearer, timeout=60) as http:
            client = await client_for(http)
            written = []
            for n in range(3):
                memory = {"type": "fact", "scope": "user:alice", "source_agent": "a2a-test"}
                content = f"Alice's secret garden number {n}."
                reply = ok(
                    await ask(
                        client,
                        new_data_part({"skill": "memory.write", **memory, "content": content}),
                    )
                )
                written.append(reply["id"])
            bob = {"type": "fact", "scope": "user:bob", "source_agent": "a2a-test"}
            await ask(client, new_data_part({"skill": "memory.write", **bob, "content": "Bob."}))
            forget = {"skill": "memory.forget", "id": written[0], "confirm": True}
            ok(await ask(client, new_data_part(forget)))

            # In order, only the scope, never content; bounded by the timeout.
            entries, trailer = await follow(client, scope="user:alice", timeout=0.5)
            assert [(e["kind"], e["id"]) for e in entries] == [
                *(("written", i) for i in written),
                ("forgotten", written[0]),
            ]
            assert all(e["scope"] == "user:alice" and "content" not in e for e in entries)
            assert "garden" not in json.dumps(entries)
            assert trailer["count"] == 4 and trailer["more"] is False

            # Resuming from a mid-stream cursor: no gap, no duplicate.
            rest, _ = await follow(
                client, scope="user:alice", since=entries[1]["cursor"], timeout=0
            )
            assert rest == entries[2:]
            # A limit cuts the stream; its trailer resumes where it stopped.
            first, cut = await follow(client, scope="user:alice", limit=2)
            assert first == entries[:2] and cut["more"] is True
            assert cut["next"] == entries[1]["cursor"]
            after, _ = await follow(client, scope="user:alice", since=cut["next"], timeout=0)
            assert after == entries[2:]

            # A live follower from now sees the next write as it happens.
            async def write_later() -> None:
                await anyio.sleep(0.5)
                memory = {"type": "fact", "scope": "user:alice", "source_agent": "a2a-test"}
                await ask(
                    client,
                    new_data_part(
                        {"skill": "memory.write", **memory, "content": "Alice plants tulips."}
                    ),
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(write_later)
                with anyio.fail_after(20):
                    live, end = await follow(
                        client, scope="user:alice", since="now", limit=1, timeout=15
                    )
            assert [e["kind"] for e in live] == ["written"] and end["count"] == 1

            # message/send: one page.
            paged = await client_for(http, streaming=False)
            page = ok(
                await ask(
                    paged,
                    new_data_part(
                        {
                            "skill": "memory.changes",
                            "scope": "user:alice",
                            "since": entries[0]["cursor"],
                        }
                    ),
                )
            )
            assert page["changes"][:3] == entries[1:] and page["count"] == 4
            # A streamed task is gone once its stream ended.
            listed = await client.list_tasks(ListTasksRequest())
            assert list(listed.tasks) == []

        # A key limited to another scope is refused, streamed or not, before any task.
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {other}"}) as http:
            for streaming in (True, False):
                client = await client_for(http, streaming)
                refused = await ask(
                    client,
                    new_data_part({"skill": "memory.changes", "scope": "user:alice", "timeout": 0}),
                )
                assert error_code(refused) == "scope_forbidden"
                assert "Alice" not in json.dumps(refused)

    try:
        anyio.run(main)
    finally:
        server.stop()
    assert "Traceback" not in server.log_path.read_text()
