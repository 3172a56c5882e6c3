"""A2A over JSON-RPC: the real server process (``ai-memory serve``) publishes its agent
card and answers skills at ``/a2a``; the official ``a2a-sdk`` client drives them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, create_client
from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.types import ListTasksRequest, Message, Part, Role, SendMessageRequest

from tests.e2e import test_server_and_cli as e2e

SKILLS = {
    "memory.write",
    "memory.search",
    "memory.forget",
    "notes.save",
    "notes.recall",
    "memory.changes",
}
Reply = tuple[dict[str, Any], str, dict[str, Any]]


async def ask(client: Client, *parts: Part) -> Reply:
    """Send one user message; the reply's data part, text part and metadata."""
    message = Message(role=Role.ROLE_USER, message_id=f"m-{id(parts)}", parts=list(parts))
    events = [e async for e in client.send_message(SendMessageRequest(message=message))]
    assert len(events) == 1 and events[0].HasField("message"), events
    reply = events[0].message
    assert reply.role == Role.ROLE_AGENT
    [data] = get_data_parts(reply.parts)
    [text] = get_text_parts(reply.parts)
    assert "Traceback" not in text
    return data, text, dict(reply.metadata.items())


async def run(client: Client, **arguments: Any) -> Reply:
    """Ask for a skill with a structured data part."""
    return await ask(client, new_data_part(arguments))


def ok(reply: Reply) -> dict[str, Any]:
    data, text, meta = reply
    assert "error" not in meta, text
    return data


def error_code(reply: Reply) -> str:
    """The stable code of a failed request (its text reads ``Error <code>: ...``)."""
    data, text, meta = reply
    code = str(data["error"]["code"])
    assert meta["error"] == code and text.startswith(f"Error {code}: ")
    return code


async def memories(client: Client, base_url: str) -> None:
    """Write, search (data and text), guarded forget, secret refusal, unknown skill."""
    content = "Alice prefers answers as short bullet lists, no tables."
    memory = {"type": "preference", "content": content, "scope": "user:alice"}
    written = ok(await run(client, skill="memory.write", source_agent="a2a-test", **memory))
    memory_id = written["id"]
    assert written["status"] == "created"

    query = {"query": "how should replies be formatted", "scope": "user:alice", "top_k": 3}
    found = ok(await run(client, skill="memory.search", **query))
    assert found["results"][0]["id"] == memory_id
    data, text, meta = await ask(client, new_text_part("search: reply formatting preferences"))
    assert meta["skill"] == "memory.search" and data["results"][0]["id"] == memory_id
    assert content in text

    async with httpx.AsyncClient(base_url=base_url, timeout=10) as rest:
        refused = await run(client, skill="memory.forget", id=memory_id)
        assert error_code(refused) == "confirmation_required"
        assert "nothing was deleted" in refused[1] and content in refused[1]
        as_text = await run(client, skill="memory.forget", id=memory_id, confirm="true")
        assert error_code(as_text) == "invalid_input"
        assert (await rest.get(f"/v1/memories/{memory_id}")).status_code == 200

        forgotten = ok(await run(client, skill="memory.forget", id=memory_id, confirm=True))
        assert forgotten["forgotten"] is True and forgotten["already_forgotten"] is False
        assert (await rest.get(f"/v1/memories/{memory_id}")).status_code == 410
        again = ok(await run(client, skill="memory.forget", id=memory_id, confirm=True))
        assert again["already_forgotten"] is True

        leaked = "The deploy key is AKIAIOSFODNN7EXAMPLE for the billing bucket."
        secret = memory | {"content": leaked, "source_agent": "a2a-test", "id": "leak-1"}
        refusal = await run(client, skill="memory.write", **secret)
        assert error_code(refusal) == "secret_detected" and "nothing was stored" in refusal[1]
        assert (await rest.get("/v1/memories/leak-1")).status_code == 404

    assert error_code(await run(client, skill="memory.drop_all")) == "unknown_skill"
    assert error_code(await ask(client, new_text_part("hello"))) == "invalid_input"
    too_big = await run(client, skill="memory.search", query="x", top_k=0)
    assert error_code(too_big) == "invalid_input"


async def notes(client: Client) -> None:
    """Save a note, recall it three times (read counts 0, 1, 2); a secret is refused."""
    note = {"agent": "neo", "topic": "jobs, billing", "note": "Neo owes Alice a plain answer."}
    saved = ok(await run(client, skill="notes.save", **note))
    assert saved["status"] == "created" and saved["topic"] == ["jobs", "billing"]
    counts = []
    for _ in range(3):
        # The arguments may also be nested under "arguments".
        page = ok(
            await run(client, skill="notes.recall", arguments={"agent": "neo", "topic": "jobs"})
        )
        assert page["topic_notes"][0]["note"] == note["note"]
        counts.append(page["topic_notes"][0]["read_count"])
    assert counts == [0, 1, 2]
    secret = note | {"note": "login with password=hunter2"}
    assert error_code(await run(client, skill="notes.save", **secret)) == "secret_detected"
    page = ok(await run(client, skill="notes.recall", agent="neo", topic="jobs"))
    assert page["topic_notes"][0]["note"] == note["note"]


def test_skills_over_a2a(tmp_path: Path) -> None:
    server = e2e.Server(tmp_path / "data")
    try:

        async def main() -> None:
            async with httpx.AsyncClient(timeout=60) as http:
                card = await A2ACardResolver(http, server.url).get_agent_card()
                assert card.name == "ai-memory"
                assert {s.id for s in card.skills} == SKILLS
                assert all(s.description and s.examples for s in card.skills)
                [interface] = card.supported_interfaces
                assert interface.url == f"{server.url}/a2a"
                assert interface.protocol_binding == "JSONRPC"

                client = await create_client(card, ClientConfig(httpx_client=http))
                async with client:
                    await memories(client, server.url)
                    await notes(client)
                    # Replies are messages: no task (and no memory content) is kept.
                    listed = await client.list_tasks(ListTasksRequest())
                    assert list(listed.tasks) == []

        anyio.run(main)
    finally:
        server.stop()
    assert "Traceback" not in server.log_path.read_text()
