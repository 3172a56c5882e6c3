"""The HTTP edge under hostile input: every failure is problem+json with a request id,
browsers cannot change state cross-origin, bodies and waits are bounded, and imports
report every line whatever one line does."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import tracemalloc
from collections.abc import AsyncIterator, Iterator, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.entrypoints.http.ndjson_lines import numbered_lines
from ai_memory.service.transfer import OversizedLine
from ai_memory.settings import VARIABLES, Settings, SettingsError, variable_names
from tests.factories import FixedClock

NDJSON = {"content-type": "application/x-ndjson"}
PROBLEM = "application/problem+json"
EVIL = "http://evil.example"


def memory(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "fact",
        "content": "Alice prefers tea.",
        "scope": "user:alice",
        "source_agent": "test",
    }
    return base | kw


def record_line(**kw: Any) -> str:
    return json.dumps({"kind": "record", "record": memory(**kw)})


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    assert response.headers["x-request-id"]
    return body


@pytest.fixture
def small(tmp_path: Path, clock: FixedClock) -> Iterator[tuple[Container, TestClient]]:
    """A server with small limits, so the refusals are cheap to provoke."""
    settings = Settings(
        data_dir=tmp_path / "small",
        max_body_bytes=4096,
        max_import_bytes=64 * 1024,
        max_line_bytes=2048,
        max_query_chars=100,
        body_timeout=0.3,
        wait_timeout=2.0,
    )
    container = build(settings, clock=clock)
    container.start()
    try:
        with TestClient(create_app(container.services)) as client:
            yield container, client
    finally:
        container.close()


# --- every failure is problem+json --------------------------------------------------------
def test_an_unexpected_error_is_a_500_problem_with_a_request_id_and_a_logged_trace(
    client: TestClient,
    container: Container,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(container.service, "get", explode)
    with caplog.at_level(logging.ERROR):
        r = client.get("/v1/memories/m1", headers={"x-request-id": "trace-42"})
    body = assert_problem(r, 500, "internal_error")
    assert body["request_id"] == "trace-42" == r.headers["x-request-id"]
    assert "disk on fire" not in r.text  # the trace goes to the log, not the client
    assert any("trace-42" in rec.getMessage() and rec.exc_info for rec in caplog.records)


def test_every_response_has_a_request_id_and_an_insane_one_is_replaced(
    client: TestClient,
) -> None:
    assert client.get("/healthz").headers["x-request-id"]
    r = client.get("/healthz", headers={"x-request-id": "bad id\twith spaces" * 20})
    assert r.headers["x-request-id"] != "bad id" and " " not in r.headers["x-request-id"]
    assert_problem(client.get("/no/such/route"), 404, "route_not_found")
    assert_problem(client.request("PATCH", "/v1/memories/x"), 405)


def test_an_error_inside_a_streaming_export_is_logged_and_never_a_whole_bundle(
    client: TestClient,
    container: Container,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client.post("/v1/memories?wait=true", json=memory(id="a"))

    def broken(*_: object, **__: object) -> Iterator[object]:
        raise RuntimeError("store went away")
        yield  # pragma: no cover

    monkeypatch.setattr(container.store, "scan_records", broken)
    with caplog.at_level(logging.ERROR):
        r = client.get("/v1/export")
    # The status was sent with the header line; the bundle breaks off without its trailer
    # (so no importer takes it for whole), and the log says why.
    assert '"trailer"' not in r.text
    assert any("/v1/export" in rec.getMessage() and rec.exc_info for rec in caplog.records)


def test_one_bad_line_never_aborts_an_import_and_every_line_is_reported(
    client: TestClient, container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ai_memory.service.transfer as transfer

    original = transfer.parse_record  # type: ignore[attr-defined]

    def fragile(raw: Any, **kw: Any) -> Any:
        if raw.get("content") == "explodes":
            raise ZeroDivisionError("a bug nobody foresaw")
        return original(raw, **kw)

    monkeypatch.setattr(transfer, "parse_record", fragile)
    lines = [
        record_line(id="ok-1"),
        record_line(id="surrogate", content="half \ud800 a character"),
        record_line(id="boom", content="explodes"),
        record_line(id="far", created_at="9999-12-31T23:00:00-05:00"),
        record_line(id="ok-2", content="Bob prefers coffee."),
    ]
    body = "\n".join(lines).encode("utf-8", "surrogatepass")
    r = client.post("/v1/import?wait=true", content=body, headers=NDJSON)
    assert r.status_code == 200, r.text
    report = r.json()
    assert (report["received"], report["written"], report["rejected"]) == (5, 2, 3)
    assert sorted(e["line"] for e in report["errors"]) == [2, 3, 4]
    assert client.get("/v1/memories/ok-1").status_code == 200
    assert client.get("/v1/memories/ok-2").status_code == 200


# --- browser protections ------------------------------------------------------------------
def test_a_cross_origin_simple_request_cannot_change_state(client: TestClient) -> None:
    client.post("/v1/memories?wait=true", json=memory(id="a"))
    forget = json.dumps({"kind": "tombstone", "id": "a", "scope": "user:alice"})
    # What a hostile page can send without a preflight: text/plain, form posts.
    for headers in (
        {"origin": EVIL, "content-type": "text/plain"},
        {"origin": "null", "content-type": "text/plain"},
        {"sec-fetch-site": "cross-site", "content-type": "text/plain"},
        {"origin": EVIL, **NDJSON},
    ):
        assert_problem(
            client.post("/v1/import", content=forget, headers=headers), 403, "cross_origin_refused"
        )
    assert_problem(
        client.delete("/v1/memories/a", headers={"origin": EVIL}), 403, "cross_origin_refused"
    )
    assert_problem(
        client.post(
            "/v1/memories",
            content=json.dumps(memory(id="b")),
            headers={"origin": EVIL, "content-type": "text/plain"},
        ),
        403,
    )
    # Without a browser's headers the import still needs its media type.
    body = assert_problem(
        client.post("/v1/import", content=forget, headers={"content-type": "text/plain"}), 415
    )
    assert body["code"] == "unsupported_media_type"
    assert client.get("/v1/memories/a").status_code == 200  # nothing was forgotten
    assert client.get("/v1/memories/b").status_code == 404
    # Reads are refused too: the browser would hide the answer, but a read can append
    # (a search is recorded as a read) — see the next test.
    assert_problem(
        client.get("/v1/memories/a", headers={"origin": EVIL}), 403, "cross_origin_refused"
    )
    # The server's own origin may write.
    same = client.delete("/v1/memories/a", headers={"origin": "http://testserver"})
    assert same.status_code == 200


def test_a_cross_site_read_appends_nothing(client: TestClient, container: Container) -> None:
    """``GET /v1/notes`` searches, and a search appends a read (``MemoriesRecalled``):
    an ``<img src>`` on any page could feed the governance score. Every cross-site API
    request is refused before it runs; the log does not move."""
    saved = client.put("/v1/notes", json={"agent": "neo", "topic": "tea", "note": "Oolong at 4."})
    assert saved.status_code == 201, saved.text
    container.service.wait_for(
        container.services.positions.taken("default", saved.json()["position"])
    )
    container.service.recalls.flush()
    head = container.log.last_position()
    for headers in ({"sec-fetch-site": "cross-site"}, {"origin": EVIL}, {"origin": "null"}):
        for path in (
            "/v1/notes?agent=neo&topic=tea",
            "/v1/memories",
            "/v1/changes",
            "/a2a",
            "/mcp",
        ):
            r = client.get(path, headers=headers)
            assert_problem(r, 403, "cross_origin_refused")
    container.service.recalls.flush()
    assert container.log.last_position() == head
    # Not a browser, or the same site: served (and the read counted, as it should be).
    for headers in ({}, {"sec-fetch-site": "same-origin"}, {"origin": "http://testserver"}):
        assert client.get("/v1/notes?agent=neo&topic=tea", headers=headers).status_code == 200
    container.service.recalls.flush()
    assert container.log.last_position() > head
    assert client.get("/healthz", headers={"sec-fetch-site": "cross-site"}).status_code == 200


def test_configured_origins_get_cors_and_may_write(tmp_path: Path, clock: FixedClock) -> None:
    app_origin = "https://app.example"
    container = build(Settings(data_dir=tmp_path / "cors", cors_origins=(app_origin,)), clock=clock)
    container.start()
    try:
        with TestClient(create_app(container.services)) as client:
            preflight = client.options(
                "/v1/memories",
                headers={
                    "origin": app_origin,
                    "access-control-request-method": "POST",
                    "access-control-request-headers": "content-type",
                },
            )
            assert preflight.status_code == 200
            assert preflight.headers["access-control-allow-origin"] == app_origin
            r = client.post("/v1/memories", json=memory(), headers={"origin": app_origin})
            assert r.status_code == 201 and r.headers["access-control-allow-origin"] == app_origin
            assert_problem(
                client.post("/v1/memories", json=memory(), headers={"origin": EVIL}), 403
            )
    finally:
        container.close()


def test_an_untrusted_host_is_refused_everywhere_including_mcp(client: TestClient) -> None:
    for path in ("/healthz", "/v1/memories/a", "/mcp"):
        body = assert_problem(client.get(path, headers={"host": "rebound.evil.example"}), 400)
        assert body["code"] == "untrusted_host"
    for host in ("localhost:8080", "127.0.0.1:8080", "[::1]:8080"):
        assert client.get("/healthz", headers={"host": host}).status_code == 200


MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def test_mcp_validates_origin_and_survives_hostile_bodies(client: TestClient) -> None:
    ok = client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert ok.status_code == 200, ok.text
    assert_problem(
        client.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "origin": EVIL}), 403
    )
    # The SDK's own DNS-rebinding check is on too (behind ours): a local origin passes.
    local = client.post(
        "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "origin": "http://testserver"}
    )
    assert local.status_code == 200, local.text
    hostile = [
        b"{",
        b"[]",
        b"null",
        b"[" * 50_000 + b"]" * 50_000,
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": 7}).encode(),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "memory_write", "arguments": {"content": "\ud800"}},
            }
        ).encode(),
    ]
    for body in hostile:
        r = client.post("/mcp", content=body, headers=MCP_HEADERS)
        assert r.status_code < 500, (body[:40], r.status_code, r.text[:200])
        assert "json" in r.headers.get("content-type", ""), (body[:40], r.headers)
    text_body = client.post("/mcp", content=b"hi", headers={"content-type": "text/plain"})
    assert text_body.status_code < 500 and "json" in text_body.headers["content-type"]


def test_a2a_survives_hostile_bodies(client: TestClient) -> None:
    for body in (b"{", b"[]", b"[" * 50_000 + b"]" * 50_000, b'{"jsonrpc": "2.0", "id": 1}'):
        r = client.post("/a2a", content=body, headers={"content-type": "application/json"})
        assert r.status_code < 500, (body[:40], r.status_code, r.text[:200])
        assert "json" in r.headers.get("content-type", "")
    assert_problem(client.post("/a2a", content=b"{}", headers={"origin": EVIL}), 403)


# --- bounded everything -------------------------------------------------------------------
def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(
    small: tuple[Container, TestClient],
) -> None:
    _, client = small
    big = {"content-length": str(10**9), "content-type": "application/json"}
    r = client.post("/v1/memories", content=b"{}", headers=big)
    assert "4096" in assert_problem(r, 413, "body_too_large")["detail"]
    r = client.post("/v1/import", content=b"", headers={**NDJSON, "content-length": str(10**9)})
    assert_problem(r, 413, "body_too_large")
    assert_problem(client.post("/mcp", content=b"{}", headers=big), 413)


def test_a_streamed_body_over_the_limit_is_refused_while_it_streams(
    small: tuple[Container, TestClient],
) -> None:
    container, client = small
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(10_000):  # 10 MB if it were all read
            sent += 1
            yield b"x" * 1024

    r = client.post("/v1/memories", content=chunks(), headers={"content-type": "application/json"})
    assert_problem(r, 413, "body_too_large")
    line = (record_line() + "\n").encode()

    def bundle() -> Iterator[bytes]:
        for n in range(100_000):
            yield line.replace(b'"content": "', f'"id": "m{n}", "content": "'.encode())

    async def upload() -> httpx.Response:
        async def chunked() -> AsyncIterator[bytes]:
            for chunk in bundle():
                yield chunk

        transport = httpx.ASGITransport(app=create_app(container.services))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            return await http.post("/v1/import?wait=true", content=chunked(), headers=NDJSON)

    streamed = asyncio.run(upload())
    assert "content-length" not in streamed.request.headers  # streamed, so found out on the way
    report = assert_problem(streamed, 413, "body_too_large")["report"]  # what landed first
    assert report["written"] > 0 and report["rejected"] == 0
    last = client.get(
        f"/v1/memories/m{report['written'] - 1}", params={"min_position": report["position"]}
    )
    assert last.status_code == 200


def test_an_import_line_over_the_limit_is_a_413_naming_it_and_what_came_before_lands(
    small: tuple[Container, TestClient],
) -> None:
    _, client = small
    lines = [record_line(id="first"), "x" * 10_000, record_line(id="after", content="Late.")]
    r = client.post("/v1/import?wait=true", content="\n".join(lines), headers=NDJSON)
    body = assert_problem(r, 413, "line_too_long")
    assert (body["line"], body["field"], body["max_bytes"]) == (2, "line", 2048)
    assert "line 2" in body["detail"]
    assert (body["report"]["written"], body["report"]["rejected"]) == (1, 0), body
    assert client.get("/v1/memories/first").status_code == 200
    assert client.get("/v1/memories/after").status_code == 404  # never read


def test_a_50_mb_import_line_is_refused_in_bounded_memory(
    tmp_path: Path, clock: FixedClock
) -> None:
    """The line streams in 64 KiB chunks; neither the splitter nor anything in front of it
    may hold the line: the peak of Python allocations stays a small fraction of it."""
    container = build(Settings(data_dir=tmp_path / "big"), clock=clock)
    container.start()
    chunk = b"y" * (64 * 1024)
    total = 50 * 1024 * 1024

    async def upload() -> AsyncIterator[bytes]:
        yield (record_line(id="before") + "\n").encode()
        for _ in range(total // len(chunk)):
            yield chunk
        yield b"\n" + record_line(id="after").encode()

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(container.services))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            return await http.post("/v1/import?wait=true", content=upload(), headers=NDJSON)

    try:
        tracemalloc.start()
        try:
            r = asyncio.run(run())
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        body = assert_problem(r, 413, "line_too_long")
        assert body["line"] == 2 and body["report"]["written"] == 1
        assert peak < 16 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB for a 50 MiB line"
        assert container.service.get("default", "before") is not None
    finally:
        container.close()


async def _collect(chunks: list[bytes], limit: int) -> list[tuple[int, Any]]:
    async def source() -> Any:
        for chunk in chunks:
            yield chunk

    return [pair async for pair in numbered_lines(source(), limit)]


def test_ndjson_lines_are_split_in_linear_time_whatever_the_chunking() -> None:
    got = asyncio.run(_collect([b"a\nb", b"c\n", b"", b"\xff\n", b"d"], 10))
    assert got == [(1, "a"), (2, "bc"), (3, b"\xff"), (4, "d")]
    got = asyncio.run(_collect([b"12345", b"678901", b"2\nok\n", b"x" * 20], 10))
    assert got[0] == (1, OversizedLine(10)) and got[1] == (2, "ok") and got[2][0] == 3
    # One-byte chunks of a 2 MB body: quadratic re-splitting would take minutes.
    body = (b"y" * 999 + b"\n") * 2000
    started = time.perf_counter()
    lines = asyncio.run(_collect([body[i : i + 1] for i in range(len(body))], 4096))
    assert len(lines) == 2000 and time.perf_counter() - started < 20


def test_a_query_over_the_limit_is_refused(small: tuple[Container, TestClient]) -> None:
    _, client = small
    r = client.post("/v1/memories/search", json={"query": "tea " * 100})
    assert assert_problem(r, 422, "query_too_long")["field"] == "query"


def test_a_stalled_body_is_cut_off(small: tuple[Container, TestClient]) -> None:
    container, _ = small
    app = create_app(container.services)
    sent: list[MutableMapping[str, Any]] = []

    async def scenario() -> None:
        first = True

        async def receive() -> dict[str, Any]:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"{", "more_body": True}
            await asyncio.sleep(30)  # the client stops sending
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/memories",
            "raw_path": b"/v1/memories",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"testserver"), (b"content-type", b"application/json")],
            "client": ("127.0.0.1", 1),
            "server": ("testserver", 80),
        }
        await asyncio.wait_for(app(scope, receive, send), timeout=10)

    started = time.perf_counter()
    asyncio.run(scenario())
    assert time.perf_counter() - started < 5
    assert sent[0]["status"] == 408
    assert json.loads(sent[1]["body"])["code"] == "body_timeout"


def test_a_wait_beyond_the_head_answers_immediately(client: TestClient) -> None:
    head = client.post("/v1/memories?wait=true", json=memory(id="a")).json()["position"]
    beyond = {"min_position": head + 1000}
    for method, path, params, payload in (
        ("GET", "/v1/memories/a", beyond, None),
        ("POST", "/v1/memories/search", beyond, {"query": "tea"}),
        ("GET", "/v1/notes", {**beyond, "agent": "bot"}, None),
    ):
        started = time.perf_counter()
        r = client.request(method, path, params=params, json=payload)
        assert time.perf_counter() - started < 1.0
        body = assert_problem(r, 422, "position_beyond_head")
        assert body["field"] == "min_position"
    assert client.get("/v1/memories/a", params={"min_position": head}).status_code == 200


def test_waiting_requests_hold_no_worker_thread(tmp_path: Path, clock: FixedClock) -> None:
    """Sixty reads waiting for a stalled projection leave /healthz answering meanwhile.

    Judged by order, not by time: the waits only end when the projections restart, which
    happens after /healthz answered. Were each wait holding a worker thread, /healthz would
    queue behind them until their 30 s timeout and find them finished."""
    container = build(Settings(data_dir=tmp_path / "w", wait_timeout=30.0), clock=clock)
    container.start()
    try:
        container.projections.stop()  # projections stall: writes land on the log only
        app = create_app(container.services)

        async def scenario() -> tuple[bool, list[int]]:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as h:
                written = await h.post("/v1/memories", json=memory(id="w"))
                position = written.json()["position"]
                waiting = [
                    asyncio.create_task(h.get("/v1/memories/w", params={"min_position": position}))
                    for _ in range(60)
                ]
                await asyncio.sleep(0.3)  # let all sixty reach their wait
                health = await h.get("/healthz")
                assert health.status_code == 200
                all_still_waiting = not any(task.done() for task in waiting)
                container.projections.start()  # now the waits can end
                statuses = [r.status_code for r in await asyncio.gather(*waiting)]
                return all_still_waiting, statuses

        all_still_waiting, statuses = asyncio.run(scenario())
        assert all_still_waiting
        assert statuses == [200] * 60
    finally:
        container.close()


def test_a_bad_setting_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMEM_WAIT_TIMEOUT", "10s")
    with pytest.raises(SettingsError, match="AIMEM_WAIT_TIMEOUT"):
        Settings.from_env()
    monkeypatch.setenv("AIMEM_WAIT_TIMEOUT", "2.5")
    monkeypatch.setenv("AIMEM_CORS_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("HOST", "not-ours")  # only AIMEM_* variables are read
    settings = Settings.from_env()
    assert settings.wait_timeout == 2.5 and settings.host == "127.0.0.1"
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert Settings(data_dir=Path("x")).wait_timeout == 10.0  # the constructor ignores env
    assert set(variable_names()) == set(VARIABLES)  # the spelled-out list is the truth
