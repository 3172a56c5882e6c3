"""The change feed as MCP resources over stdio (the SDK's client launching ``ai-memory
mcp``): the template is listed, a read answers the scope's changes as NDJSON (never
content), a subscription is notified when the scope changes and not for other scopes."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import ResourceUpdatedNotification, TextResourceContents

from ai_memory.bootstrap import Container
from ai_memory.entrypoints.mcp.server import build_server
from tests.integration.test_mcp_stdio import ok, server_params

URI = "ai-memory://changes/team:ops"


def test_subscribe_to_a_scope_over_stdio(tmp_path: Path) -> None:
    errlog = tmp_path / "mcp-stderr.log"
    updated: list[str] = []
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, ResourceUpdatedNotification):
            updated.append(str(root.params.uri))
            notified.set()

    async def main() -> None:
        with errlog.open("w") as err:
            transport = stdio_client(server_params(tmp_path / "data"), errlog=err)
            async with Client(transport, message_handler=on_message, mode="legacy") as c:
                templates = (await c.list_resource_templates()).resource_templates
                assert [t.uri_template for t in templates] == ["ai-memory://changes/{scope}"]
                with warnings.catch_warnings():  # the 2025 protocol's subscription
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await c.subscribe_resource(URI)
                memory = {"type": "fact", "scope": "team:ops", "source_agent": "mcp-test"}
                elsewhere = memory | {"scope": "team:other", "content": "Not this scope."}
                ok(await c.call_tool("memory_write", elsewhere))
                ok(await c.call_tool("memory_write", memory | {"content": "Deploys on Tuesday."}))
                with anyio.fail_after(15):
                    await notified.wait()
                assert set(updated) == {URI}
                read = await c.read_resource(URI)
                [contents] = read.contents
                assert isinstance(contents, TextResourceContents)
                *entries, trailer = map(json.loads, contents.text.splitlines())
                assert [(e["kind"], e["scope"]) for e in entries] == [("written", "team:ops")]
                assert "Tuesday" not in contents.text and trailer["more"] is False
                again = await c.read_resource(f"{URI}?since={trailer['next']}")
                assert again.contents[0].text.count("\n") == 1  # only the trailer
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await c.unsubscribe_resource(URI)

    anyio.run(main)
    assert "Traceback" not in errlog.read_text()


def test_a_key_reads_the_changes_of_its_scopes_only(container: Container) -> None:
    """In process, as a stdio session of a key limited to ``user:alice``."""
    keys = container.services.keys
    assert keys is not None
    token = keys.create(tenant="acme", role="reader", scopes=["user:alice"], name="t").token
    server = build_server(container.services, session_caller=lambda: keys.authenticate(token))
    for memory_id, scope in (("a1", "user:alice"), ("b1", "user:bob")):
        body = {"id": memory_id, "type": "fact", "scope": scope, "source_agent": "a"}
        container.service.write("acme", {**body, "content": f"{memory_id} secret"}, wait=True)
        container.service.write("globex", {**body, "content": "other tenant"}, wait=True)

    async def main() -> None:
        async with Client(server) as c:
            read = await c.read_resource("ai-memory://changes/user:alice")
            text = read.contents[0].text  # type: ignore[union-attr]
            *entries, _ = map(json.loads, text.splitlines())
            assert [(e["id"], e["scope"]) for e in entries] == [("a1", "user:alice")]
            assert "secret" not in text and "other tenant" not in text
            with pytest.raises(MCPError, match="scope_forbidden"):
                await c.read_resource("ai-memory://changes/user:bob")
            with pytest.raises(MCPError):
                await c.read_resource("ai-memory://changes/Not A Scope")
            with pytest.raises(MCPError):
                await c.read_resource("ai-memory://elsewhere/user:alice")

    anyio.run(main)


def test_a_revoked_keys_subscription_ends_saying_why_and_notifies_nothing_after(
    container: Container,
) -> None:
    """In process, as a stdio session: a subscription of a key revoked mid-way hears of
    nothing written after the revocation and is told, within the bound, why it ended."""
    keys = container.services.keys
    assert keys is not None
    issued = keys.create(tenant="acme", role="reader", scopes=["*"], name="t")
    server = build_server(
        container.services, session_caller=lambda: keys.authenticate(issued.token)
    )
    updated: list[float] = []
    logged: list[tuple[str, str]] = []
    first, told = anyio.Event(), anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(getattr(message, "root", message), ResourceUpdatedNotification):
            updated.append(time.monotonic())
            first.set()

    async def on_log(params: Any) -> None:
        logged.append((params.level, str(params.data)))
        told.set()

    def write(n: int) -> None:
        body = {"type": "fact", "scope": "team:ops", "source_agent": "a", "content": f"{n}"}
        container.service.write("acme", body, wait=True)

    async def main() -> None:
        async with Client(
            server, message_handler=on_message, logging_callback=on_log, mode="legacy"
        ) as c:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await c.subscribe_resource(URI)
            # The follower starts from the head once running: write until it hears.
            with anyio.fail_after(15):
                while not first.is_set():
                    await anyio.to_thread.run_sync(write, 0)
                    with anyio.move_on_after(0.5):
                        await first.wait()
            await anyio.to_thread.run_sync(keys.revoke, issued.key.key_id)
            revoked = time.monotonic()
            for n in range(1, 4):
                await anyio.to_thread.run_sync(write, n)
            with anyio.fail_after(5):
                await told.wait()
            assert time.monotonic() - revoked < 5
            await anyio.sleep(1.5)  # a notification in flight would have come by now
            assert [t for t in updated if t > revoked] == []
            [(level, text)] = logged
            assert level == "warning" and "invalid_api_key" in text and URI in text

    anyio.run(main)
