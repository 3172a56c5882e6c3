"""Webhooks end to end: a real ``ai-memory serve`` delivering to a real HTTP receiver on
a loopback port (``AIMEM_WEBHOOK_ALLOW_PRIVATE=true``), through the worst moments.

200 changes across 20 memories are written while the receiver first takes deliveries
and dies before answering (it handled them; the server never heard), then is down, then
comes back — and the server itself is killed (SIGKILL) mid-stream and started again on
its data directory. After de-duplication by event id the receiver holds every change of
the feed exactly once, each memory's in order; nothing delivered after the restart lies
at or before the position the server had persisted; no body carries the content; every
body verifies with the SDK and a tampered or replayed one does not. A subscription whose
receiver is down is paused, visible, and resumed from where it stopped. Keys: a reader
gets 403, another tenant's admin 404."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from loadtest.cluster import free_port

from ai_memory.sdk.webhooks import WebhookVerificationError, verify_webhook
from tests.e2e.test_keys_server import create_key
from tests.e2e.test_server_and_cli import Server

CANARY = "canary-5b1e0d-content-never-leaves"
MEMORIES = 20
CHANGES = 200
FAST = {
    "AIMEM_WEBHOOK_ALLOW_PRIVATE": "true",
    "AIMEM_WEBHOOK_BACKOFF_BASE": "0.05",
    "AIMEM_WEBHOOK_BACKOFF_MAX": "0.5",
    "AIMEM_WEBHOOK_BATCH": "10",
}


class Receiver:
    """A webhook receiver on a fixed loopback port that can die and come back.

    ``mode`` ``up``: verify, record, 204. ``drop``: verify and record (it handled the
    delivery) but close the connection without an answer, as a receiver killed
    mid-request would."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.secret = ""
        self.mode = "up"
        self.received: list[tuple[float, dict[str, str], bytes]] = []
        self.invalid: list[str] = []  # why each refused delivery was refused
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if len(body) < length:
                    # The sender died mid-request (the server is SIGKILLed while
                    # deliveries are in flight): an incomplete request, which any HTTP
                    # framework drops before a handler sees it — not a bad signature.
                    self.close_connection = True
                    return
                headers = {k: v for k, v in self.headers.items()}
                try:
                    verify_webhook(receiver.secret, headers, body)
                except WebhookVerificationError as refused:
                    with receiver._lock:
                        receiver.invalid.append(refused.reason)
                    self.send_response(400)
                    self.end_headers()
                    return
                with receiver._lock:
                    receiver.received.append((time.monotonic(), headers, body))
                if receiver.mode == "drop":
                    self.close_connection = True
                    # No answer: the server cannot know it was handled.
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def events(self, after: float = 0.0) -> list[dict[str, Any]]:
        """Every event received (after a monotonic time), duplicates included."""
        with self._lock:
            bodies = [b for at, _, b in self.received if at >= after]
        return [e for b in bodies for e in json.loads(b)["events"]]

    def unique(self) -> list[dict[str, Any]]:
        seen: dict[str, dict[str, Any]] = {}
        for event in self.events():
            seen.setdefault(event["event_id"], event)
        return list(seen.values())


def wait_for(done: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def kill(server: Server) -> None:
    server.proc.kill()  # SIGKILL: no lifespan shutdown, nothing flushed on purpose
    server.proc.wait()
    server._log.close()


def feed(url: str, key: str, since: str) -> list[dict[str, Any]]:
    """Every entry of the change feed after ``since`` (what must be delivered)."""
    entries: list[dict[str, Any]] = []
    while True:
        r = httpx.get(
            f"{url}/v1/changes",
            params={"since": since, "limit": 1000},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        r.raise_for_status()
        *lines, trailer = [json.loads(line) for line in r.text.splitlines()]
        entries += lines
        since = trailer["next"]
        if not trailer["more"]:
            return entries


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, str]:
    data = tmp_path / "data"
    return {
        "admin": create_key(data, "--tenant", "acme", "--role", "admin"),
        "reader": create_key(data, "--tenant", "acme", "--role", "reader", "--scopes", "*"),
        "stranger": create_key(data, "--tenant", "globex", "--role", "admin"),
    }


def test_deliveries_survive_a_dying_receiver_and_a_killed_server(
    tmp_path: Path, keys: dict[str, str]
) -> None:
    data = tmp_path / "data"
    receiver = Receiver()
    receiver.start()
    server = Server(data, **FAST, AIMEM_WEBHOOK_MAX_FAILURES="1000")
    admin = {"Authorization": f"Bearer {keys['admin']}"}
    try:
        http = httpx.Client(base_url=server.url, headers=admin, timeout=30)
        created = http.post("/v1/webhooks", json={"url": receiver.url, "scopes": ["*"]})
        assert created.status_code == 201, created.text
        hook = created.json()
        receiver.secret = hook["secret"]
        _refusals(server.url, keys, hook["id"])
        assert "secret" not in http.get(f"/v1/webhooks/{hook['id']}").json()

        persisted_position = 0
        restarted_at = 0.0
        for n in range(CHANGES):
            if n == 40:
                receiver.mode = "drop"  # handles deliveries, dies before answering
            if n == 55:
                receiver.stop()  # down: connections refused
                receiver.mode = "up"
            if n == 85:
                receiver.start()
            if n == 120:
                # The worst moment for the server: mid-stream, deliveries in flight.
                state = http.get(f"/v1/webhooks/{hook['id']}").json()
                persisted_position = state["positions"][0]["position"]
                assert persisted_position > 0 and state["delivered"] > 0
                http.close()
                kill(server)
                server = Server(data, **FAST, AIMEM_WEBHOOK_MAX_FAILURES="3")
                restarted_at = time.monotonic()
                http = httpx.Client(base_url=server.url, headers=admin, timeout=30)
            memory = f"m{n % MEMORIES:02d}"
            written = http.put(
                f"/v1/memories/{memory}",
                json={
                    "type": "fact",
                    "scope": f"team:t{n % MEMORIES % 3}",
                    "source_agent": "e2e",
                    "content": f"{CANARY} {memory} version {n // MEMORIES + 1}",
                },
            )
            assert written.status_code in (200, 201), written.text
        for memory in ("m03", "m17"):
            assert http.delete(f"/v1/memories/{memory}").status_code == 200

        _paused_and_resumed(http)  # one more change, for both subscriptions

        expected = feed(server.url, keys["admin"], hook["cursor"])
        assert len(expected) == CHANGES + 3
        wait_for(lambda: len(receiver.unique()) >= len(expected), 90, "every change")
        url = f"/v1/webhooks/{hook['id']}"
        wait_for(lambda: http.get(url).json()["delivered"] >= len(expected), 30, "the last ack")
        state = http.get(url).json()
        assert state["status"] == "active" and state["failures"] == 0
        assert state["positions"][0]["position"] == expected[-1]["position"]
        http.close()
    finally:
        server.stop()
        receiver.stop()

    unique = receiver.unique()
    fields = ("id", "kind", "version", "position")
    assert [tuple(e[f] for f in fields) for e in unique] == [
        tuple(e[f] for f in fields) for e in expected
    ]  # every change exactly once (after de-duplication), in feed order
    for memory in {e["id"] for e in unique}:
        versions = [e["version"] for e in unique if e["id"] == memory and e["kind"] == "written"]
        assert versions == sorted(versions) and len(set(versions)) == len(versions)
    # Some events did arrive twice (the dropped answers, the kill): the ids made them one.
    assert len(receiver.events()) > len(unique)
    # Resumed from the persisted cursor, not from the start. Positions are the tenant's
    # tokens (not ordered): compared by their place in the feed.
    order = {e["position"]: i for i, e in enumerate(expected)}
    after_restart = receiver.events(after=restarted_at)
    assert after_restart and persisted_position in order
    assert min(order[e["position"]] for e in after_restart) > order[persisted_position]
    assert receiver.invalid == []
    for _, _, body in receiver.received:
        assert CANARY.encode() not in body
    _tampered_and_replayed_are_refused(receiver)
    assert "Traceback" not in server.log_path.read_text()


def _refusals(url: str, keys: dict[str, str], webhook_id: str) -> None:
    reader = {"Authorization": f"Bearer {keys['reader']}"}
    stranger = {"Authorization": f"Bearer {keys['stranger']}"}
    body = {"url": "http://127.0.0.1:9/x", "scopes": ["*"]}
    refused = httpx.post(f"{url}/v1/webhooks", json=body, headers=reader, timeout=10)
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert httpx.get(f"{url}/v1/webhooks", headers=reader, timeout=10).status_code == 403
    one = f"{url}/v1/webhooks/{webhook_id}"
    assert httpx.get(one, headers=reader, timeout=10).status_code == 403
    assert httpx.get(one, headers=stranger, timeout=10).status_code == 404
    assert httpx.delete(one, headers=stranger, timeout=10).status_code == 404
    assert httpx.post(f"{one}:resume", headers=stranger, timeout=10).status_code == 404
    listed = httpx.get(f"{url}/v1/webhooks", headers=stranger, timeout=10).json()
    assert listed == {"webhooks": []}


def _paused_and_resumed(http: httpx.Client) -> None:
    """A receiver that is down: paused after 3 failures (AIMEM_WEBHOOK_MAX_FAILURES),
    shown as such, and resumed once it is back — from where it stopped."""
    down = Receiver()
    created = http.post(
        "/v1/webhooks", json={"url": down.url, "scopes": ["team:t1"], "kinds": ["written"]}
    ).json()
    down.secret = created["secret"]
    written = http.put(
        "/v1/memories/paused-1",
        json={"type": "fact", "scope": "team:t1", "source_agent": "e2e", "content": "p1"},
    )
    assert written.status_code == 201
    url = f"/v1/webhooks/{created['id']}"
    wait_for(lambda: http.get(url).json()["status"] == "paused", 30, "the pause")
    paused = http.get(url).json()
    assert paused["failures"] == 3 and paused["last_error"] and paused["delivered"] == 0
    assert paused["paused_reason"] and paused["cursor"] == created["cursor"]
    down.start()
    try:
        time.sleep(0.5)
        assert down.events() == []  # paused: not tried while it is
        resumed = http.post(f"{url}:resume")
        assert resumed.status_code == 200 and resumed.json()["status"] == "active"
        wait_for(lambda: http.get(url).json()["delivered"] == 1, 30, "the resumed delivery")
        assert [e["id"] for e in down.unique()] == ["paused-1"]
    finally:
        down.stop()
    assert http.delete(url).status_code == 204
    assert http.get(url).status_code == 404


def _tampered_and_replayed_are_refused(receiver: Receiver) -> None:
    _, headers, body = receiver.received[-1]
    verify_webhook(receiver.secret, headers, body, tolerance_s=3600)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(receiver.secret, headers, body.replace(b'"written"', b'"forgotten"'))
    signed_at = int(headers["X-AIMemory-Signature"].split(",")[0][2:])
    with pytest.raises(WebhookVerificationError):
        verify_webhook(receiver.secret, headers, body, now=signed_at + 301)
