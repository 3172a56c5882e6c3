"""A key revoked while its streams are open: every stream ends within the bound of a new
request (5 s) and says why, and nothing written after the revocation reaches it.

Against the real server process (key cache at its default, 2 s) with the revocation done
as an operator does it — ``ai-memory keys revoke`` in another process, so the server
learns of it only through its key cache, the slowest path. Open at once with the same
reader key: an SSE change feed on the scope being written to, a long-poll waiting on a
quiet scope (it must not sit out its 30 s), and an A2A ``message/stream`` of the feed;
an admin key keeps writing before, during and after the revocation.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.helpers import get_data_parts, new_data_part
from a2a.types import Message, Role, SendMessageRequest, TaskState

from tests.e2e.test_keys_server import create_key
from tests.e2e.test_server_and_cli import CLI, Server

BOUND = 5.0  # seconds: a revoked key's new request is refused within the cache TTL (2 s)
SCOPE = "user:alice"


class Writes:
    """An admin key writing one memory every 0.1 s; when each write was acknowledged."""

    def __init__(self, url: str, token: str) -> None:
        self.acked: dict[str, float] = {}
        self._stop = threading.Event()
        self._http = httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            memory_id = f"w{n:04d}"
            body = {"type": "fact", "scope": SCOPE, "source_agent": "w", "content": f"n {n}"}
            r = self._http.put(f"/v1/memories/{memory_id}", json=body)
            assert r.status_code == 201, r.text
            self.acked[memory_id] = time.monotonic()
            n += 1
            time.sleep(0.1)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self._http.close()


def sse(url: str, token: str, out: dict[str, Any]) -> None:
    """Follow the feed over SSE until the server ends the stream."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    entries: list[tuple[str, float]] = []
    events: list[dict[str, str]] = []
    with httpx.Client(base_url=url, timeout=60) as http:
        params = {"scope": SCOPE, "since": "now", "timeout": 30}
        with http.stream("GET", "/v1/changes", headers=headers, params=params) as r:
            out["status"] = r.status_code
            event: dict[str, str] = {}
            for line in r.iter_lines():
                if line.startswith(":"):
                    continue
                if line:
                    name, _, value = line.partition(":")
                    event[name] = value.removeprefix(" ")
                    continue
                if "data" in event:
                    events.append(event)
                    if event.get("event") != "error":
                        entries.append((json.loads(event["data"])["id"], time.monotonic()))
                event = {}
    out["entries"], out["events"], out["ended"] = entries, events, time.monotonic()


def long_poll(url: str, token: str, out: dict[str, Any]) -> None:
    """A long-poll on a scope nobody writes to: it waits, unless its key stops holding."""
    with httpx.Client(base_url=url, timeout=60) as http:
        r = http.get(
            "/v1/changes",
            params={"scope": "team:quiet", "since": "now", "timeout": 30},
            headers={"Authorization": f"Bearer {token}"},
        )
    out["response"], out["ended"] = r, time.monotonic()


def a2a_stream(url: str, token: str, out: dict[str, Any]) -> None:
    async def main() -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(headers=headers, timeout=60) as http:
            card = await A2ACardResolver(http, url).get_agent_card()
            client = await create_client(card, ClientConfig(httpx_client=http, streaming=True))
            ask = {"skill": "memory.changes", "scope": SCOPE, "since": "now", "timeout": 60}
            message = Message(role=Role.ROLE_USER, message_id="follow", parts=[new_data_part(ask)])
            entries: list[tuple[str, float]] = []
            final: Any = None
            async for event in client.send_message(SendMessageRequest(message=message)):
                kind = event.WhichOneof("payload")
                if kind == "artifact_update":
                    [entry] = get_data_parts(event.artifact_update.artifact.parts)
                    entries.append((entry["id"], time.monotonic()))
                elif kind == "status_update":
                    final = event.status_update.status
            out["entries"], out["final"], out["ended"] = entries, final, time.monotonic()

    anyio.run(main)


def test_a_revoked_keys_open_streams_end_within_the_bound_and_receive_nothing_after(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    admin = create_key(data, "--tenant", "acme", "--role", "admin")
    reader = create_key(data, "--tenant", "acme", "--role", "reader")
    server = Server(data)
    writes = Writes(server.url, admin)
    got: dict[str, dict[str, Any]] = {"sse": {}, "poll": {}, "a2a": {}}
    streams = [
        threading.Thread(target=follow, args=(server.url, reader, got[name]), daemon=True)
        for name, follow in (("sse", sse), ("poll", long_poll), ("a2a", a2a_stream))
    ]
    try:
        for t in streams:
            t.start()
        time.sleep(3)  # every stream open and delivering
        revoking = time.monotonic()
        subprocess.run(
            [*CLI, "keys", "revoke", reader.split("_")[1], "--data-dir", str(data)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        revoked = time.monotonic()
        for t in streams:
            t.join(revoked + BOUND + 10 - time.monotonic())
        time.sleep(max(0.0, revoked + BOUND + 1 - time.monotonic()))  # writes went on
        # And a new request with the key is refused too.
        again = httpx.get(f"{server.url}/v1/changes", headers={"Authorization": f"Bearer {reader}"})
    finally:
        writes.stop()
        server.stop()
    assert not any(t.is_alive() for t in streams), got
    late = {i for i, at in writes.acked.items() if at > revoked + BOUND}
    assert late, "the writer must have kept writing past the bound"
    early = {i for i, at in writes.acked.items() if at < revoking}

    # SSE: entries before the revocation, then an error event naming why; nothing late.
    s = got["sse"]
    assert s["status"] == 200
    received = {i for i, _ in s["entries"]}
    assert received & early and not received & late
    assert s["ended"] - revoked < BOUND, s["ended"] - revoked
    last = s["events"][-1]
    assert last["event"] == "error", last
    assert json.loads(last["data"])["code"] == "invalid_api_key"

    # The long-poll on a quiet scope: a 401 problem within the bound, not after 30 s.
    p = got["poll"]
    assert p["response"].status_code == 401, p["response"].text
    assert p["response"].json()["code"] == "invalid_api_key"
    assert p["ended"] - revoked < BOUND

    # A2A: entries before, then the task failed with the reason; nothing late.
    a = got["a2a"]
    received = {i for i, _ in a["entries"]}
    assert received & early and not received & late
    assert a["ended"] - revoked < BOUND
    assert a["final"].state == TaskState.TASK_STATE_FAILED
    assert "invalid_api_key" in json.dumps(get_data_parts(a["final"].message.parts))
    assert again.status_code == 401
