"""``GET /v1/changes`` on the real app over an embedded container: entries in log order,
never content, only the scopes a key may read; NDJSON long-poll and SSE over real HTTP
(uvicorn), and a subscriber cut off mid-stream resumes from its cursor with no gap and
no duplicate (``since`` and ``Last-Event-ID``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from tests.integration.test_api_keys_http import auth, key, memory, refused
from tests.isolation_probe import LiveServer

SECRET = "prefers green tea"  # in every memory's content: must never show in the feed


def feed(client: TestClient | httpx.Client, token: str | None, **params: Any) -> list[Any]:
    headers = auth(token) if token else {}
    r = client.get("/v1/changes", params=params, headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    assert SECRET not in r.text
    return [json.loads(line) for line in r.text.splitlines()]


def everything(client: TestClient | httpx.Client, token: str | None, **params: Any) -> list[Any]:
    """Every entry, following the trailers' ``next`` until ``more`` is false."""
    entries: list[Any] = []
    since: str | None = None
    while True:
        *page, trailer = feed(client, token, **params, **({"since": since} if since else {}))
        entries += page
        since = trailer["next"]
        if not trailer["more"]:
            return entries


def put(client: TestClient | httpx.Client, token: str | None, memory_id: str, scope: str) -> None:
    headers = auth(token) if token else {}
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=memory(scope), headers=headers)
    assert r.status_code in (200, 201), r.text


def test_the_feed_lists_writes_states_and_forgets_in_order_without_content(
    client: TestClient, container: Container
) -> None:
    admin = key(container, "acme", "admin")
    put(client, admin, "a1", "user:alice")
    put(client, admin, "a2", "team:x")
    update = {**memory("user:alice"), "content": "now prefers green tea and coffee"}
    assert client.put("/v1/memories/a1?wait=true", json=update, headers=auth(admin)).is_success
    assert client.delete("/v1/memories/a2?wait=true", headers=auth(admin)).status_code == 200

    entries = everything(client, admin, limit=1)  # one entry a page: the cursor at work
    seen = [(e["kind"], e["id"], e["scope"], e["version"], e["state"]) for e in entries]
    assert seen == [
        ("written", "a1", "user:alice", 1, "active"),
        ("written", "a2", "team:x", 1, "active"),
        ("written", "a1", "user:alice", 2, "active"),
        ("forgotten", "a2", "team:x", 1, None),
    ]
    assert all(
        set(e) == {"cursor", "kind", "id", "scope", "version", "state", "at", "actor", "position"}
        for e in entries
    )
    assert {e["actor"] for e in entries} == {f"key:{admin.split('_')[1]}"}
    # Each entry's cursor resumes right after it.
    rest = everything(client, admin, since=entries[1]["cursor"])
    assert [e["cursor"] for e in rest] == [e["cursor"] for e in entries[2:]]


def test_a_scoped_key_sees_only_its_scopes_and_another_tenant_nothing(
    client: TestClient, container: Container
) -> None:
    admin = key(container, "acme", "admin")
    alice = key(container, "acme", "reader", "user:alice")
    other = key(container, "globex", "admin")
    put(client, admin, "a1", "user:alice")
    put(client, admin, "b1", "user:bob")
    put(client, admin, "p1", "public")
    put(client, other, "g1", "user:alice")

    assert [e["id"] for e in everything(client, alice)] == ["a1", "p1"]
    assert [e["id"] for e in everything(client, alice, scope="user:alice")] == ["a1"]
    assert [e["id"] for e in everything(client, admin, scope="user:bob")] == ["b1"]
    assert [e["id"] for e in everything(client, other)] == ["g1"]
    refused(
        client.get("/v1/changes", params={"scope": "user:bob"}, headers=auth(alice)),
        403,
        "scope_forbidden",
    )


def test_bad_parameters_are_problems_naming_the_field(
    client: TestClient, container: Container
) -> None:
    admin = key(container, "acme", "admin")
    for params, field in [
        ({"since": "not-a-cursor"}, "since"),
        ({"since": "YTE6MA"}, "since"),  # an audit cursor is no feed cursor
        ({"limit": 0}, "limit"),
        ({"limit": 100000}, "limit"),
        ({"timeout": 3600}, "timeout"),
        ({"timeout": -1}, "timeout"),
        ({"scope": "Not A Scope"}, "scope"),
    ]:
        r = client.get("/v1/changes", params=params, headers=auth(admin))
        assert r.status_code == 422, (params, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
        assert field in json.dumps(r.json()), (params, r.json())
    r = client.get(
        "/v1/changes",
        headers={**auth(admin), "Accept": "text/event-stream", "Last-Event-ID": "garbage"},
    )
    assert r.status_code == 422 and r.json()["field"] == "Last-Event-ID", r.text


def test_since_now_skips_history(client: TestClient, container: Container) -> None:
    put(client, None, "old", "user:alice")
    *_, trailer = feed(client, None, since="now")
    put(client, None, "new", "user:alice")
    assert [e["id"] for e in everything(client, None, since=trailer["next"])] == ["new"]


# --- over real HTTP: long-poll and SSE --------------------------------------------------------


@pytest.fixture
def server(container: Container) -> Iterator[LiveServer]:
    live = LiveServer(container)
    yield live
    live.stop()


def later(seconds: float, action: Any) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(seconds), action()), daemon=True)
    thread.start()
    return thread


def test_a_long_poll_waits_for_the_next_write_and_returns_it_at_once(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        *_, start = feed(http, None, since="now")

        def write() -> None:
            with httpx.Client(base_url=server.url, timeout=30) as other:
                put(other, None, "m1", "public")

        writer = later(0.3, write)
        began = time.monotonic()
        *entries, trailer = feed(http, None, since=start["next"], timeout=10)
        waited = time.monotonic() - began
        writer.join()
        assert [e["id"] for e in entries] == ["m1"] and 0.2 < waited < 5
        # Nothing new: the poll returns empty after its timeout, with the same position.
        began = time.monotonic()
        assert feed(http, None, since=trailer["next"], timeout=0.5) == [trailer]
        assert 0.4 < time.monotonic() - began < 5


def sse_events(response: httpx.Response) -> Iterator[dict[str, str]]:
    """Parsed SSE events (comments come through as {"comment": ...})."""
    event: dict[str, str] = {}
    for line in response.iter_lines():
        if not line:
            if event:
                yield event
            event = {}
        elif line.startswith(":"):
            yield {"comment": line[1:].strip()}
        else:
            name, _, value = line.partition(":")
            event[name] = value.removeprefix(" ")


def test_sse_resumes_with_last_event_id_without_gap_or_duplicate(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for i in range(6):
            put(http, None, f"m{i}", "public")
        sse = {"Accept": "text/event-stream"}
        received: list[dict[str, Any]] = []
        last_id = ""
        with http.stream("GET", "/v1/changes", headers=sse, params={"limit": 2}) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for event in sse_events(r):
                if "data" in event:
                    received.append(json.loads(event["data"]))
                    last_id = event["id"]
                    assert last_id == received[-1]["cursor"]
                if len(received) == 3:
                    break  # the subscriber is killed mid-stream
        for i in range(6, 9):
            put(http, None, f"m{i}", "public")
        headers = {**sse, "Last-Event-ID": last_id}
        # ``since`` is ignored on a resume: the EventSource re-sends its original URL.
        with http.stream("GET", "/v1/changes", headers=headers, params={"timeout": 0.2}) as r:
            beats = 0
            for event in sse_events(r):
                if "data" in event:
                    received.append(json.loads(event["data"]))
                elif event.get("comment") == "heartbeat":
                    beats += 1
                    break  # everything was sent: the stream is idle
        ids = [e["id"] for e in received]
        assert ids == [f"m{i}" for i in range(9)], ids
        assert beats == 1


def test_a_subscriber_killed_while_writes_flow_resumes_with_no_gap_and_no_duplicate(
    server: LiveServer,
) -> None:
    """Writes keep landing while the subscriber is cut off twice at random points."""
    total = 60
    stop = threading.Event()

    def writes() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as w:
            for i in range(total):
                put(w, None, f"w{i:03d}", "public")
        stop.set()

    writer = threading.Thread(target=writes, daemon=True)
    writer.start()
    seen: list[str] = []
    cursor = ""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for cut_after in (7, 23, None):
            params: dict[str, Any] = {"timeout": 0.3, "limit": 5}
            if cursor:
                params["since"] = cursor
            with http.stream(
                "GET", "/v1/changes", headers={"Accept": "text/event-stream"}, params=params
            ) as r:
                for event in sse_events(r):
                    if "data" in event:
                        seen.append(json.loads(event["data"])["id"])
                        cursor = event["id"]
                        if cut_after is not None and len(seen) >= cut_after:
                            break
                    elif stop.is_set() and len(seen) >= total:
                        break
    writer.join()
    assert seen == [f"w{i:03d}" for i in range(total)]
