"""End to end: the real server process (``ai-memory serve``) over real HTTP, driven by
the ``ai-memory`` CLI exactly as a person would in the README tour."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loadtest.cluster import free_port

CLI = [sys.executable, "-m", "ai_memory.entrypoints.cli"]


class Server:
    def __init__(self, data_dir: Path, **extra_env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "AIMEM_PORT": str(self.port), "AIMEM_DATA_DIR": str(data_dir)}
        env.update(extra_env)
        # A log file, not a pipe: nobody reads a pipe while tests run, and a full pipe
        # would block the server.
        self.log_path = data_dir.parent / f"server-{self.port}.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [*CLI, "serve"], env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
            if self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"server did not start:\n{self.log_path.read_text()}")

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "AIMEM_URL": self.url}
        result = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=120)
        if check:
            assert result.returncode == 0, result.stderr + result.stdout
        return result

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data")
    yield s
    s.stop()


def test_readme_tour(server: Server, tmp_path: Path) -> None:
    memories = [
        ("preference", "user:alice", "Alice prefers answers as short bullet lists, no tables."),
        ("fact", "user:alice", "Alice lives in Tokyo and works in the JST timezone."),
        (
            "task",
            "team:data-platform",
            "Migrate the nightly billing job to Airflow; blocked on credentials.",
        ),
        (
            "skill",
            "team:data-platform",
            "When Kafka consumers lag, check max.poll.records before adding partitions.",
        ),
        ("interaction", "agent:planner", "The planner agent summarised the Q3 roadmap meeting."),
    ]
    ids = []
    for type_, scope, content in memories:
        out = json.loads(server.cli("write", content, "--scope", scope, "--type", type_).stdout)
        ids.append(out["record"]["id"])

    by_meaning = json.loads(
        server.cli("search", "how should replies be formatted", "--scope", "user:alice").stdout
    )
    assert by_meaning["results"][0]["record"]["id"] == ids[0]
    by_keyword = json.loads(server.cli("search", "max.poll.records", "--mode", "keyword").stdout)
    assert by_keyword["results"][0]["record"]["id"] == ids[3]

    server.cli("delete", ids[1])
    gone = server.cli("get", ids[1], check=False)
    assert gone.returncode == 1 and "410" in gone.stderr

    bundle = tmp_path / "alice.ndjson"
    server.cli("export", "--scope", "user:alice", "-o", str(bundle))
    kinds = [json.loads(line)["kind"] for line in bundle.read_text().splitlines()]
    assert kinds == ["header", "record", "tombstone", "trailer"]

    fresh = Server(tmp_path / "fresh")
    try:
        first = json.loads(fresh.cli("import", str(bundle)).stdout)
        assert first["written"] == 1 and first["tombstones_applied"] == 1
        assert json.loads(fresh.cli("get", ids[0]).stdout)["content"] == memories[0][2]
        assert "410" in fresh.cli("get", ids[1], check=False).stderr
        second = json.loads(fresh.cli("import", str(bundle)).stdout)
        assert second["written"] == 0
    finally:
        fresh.stop()

    metrics = httpx.get(f"{server.url}/metrics").text
    assert (
        'aimem_http_requests_total{method="POST",route="/v1/memories",status="201"} 5.0' in metrics
    )


# The HTTP server's own edge (slow_headers): what reaches the app never got here by
# holding a connection open or by streaming an endless request head.


@pytest.fixture
def impatient(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data", AIMEM_HEADER_TIMEOUT="1")
    yield s
    s.stop()


def _response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Read one response up to the server's close (every refusal here closes)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


def test_a_client_trickling_its_headers_is_cut_off_and_others_are_served(
    impatient: Server,
) -> None:
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as slow:
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        started, closed = time.monotonic(), False
        while time.monotonic() - started < 8:
            assert httpx.get(f"{impatient.url}/healthz", timeout=5).status_code == 200
            try:
                slow.sendall(b"a")  # one byte every 0.2 s: never a whole header
                slow.settimeout(0.2)
                if slow.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:  # reset by the server's close
                closed = True
                break
        assert closed, "a connection trickling header bytes was held for 8 s"
        assert time.monotonic() - started < 4  # the 1 s deadline, with scheduling slack


def test_a_request_head_over_64_kib_is_a_431_problem_and_the_server_stays_up(
    server: Server,
) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as c:
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        # 8 MiB of one header, sent without pause: the server answers once 64 KiB are
        # in, drains the rest and closes; the answer must survive the draining.
        c.sendall(b"X-Big: " + b"b" * (8 * 1024 * 1024))
        status, headers, body = _response(c)
    assert status == 431
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert (problem["code"], problem["field"], problem["status"]) == (
        "headers_too_large",
        "headers",
        431,
    )
    # Just under the bound is an ordinary request.
    near = httpx.get(f"{server.url}/healthz", headers={"x-big": "b" * 60_000}, timeout=10)
    assert near.status_code == 200


def test_a_malformed_request_is_a_400_problem(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as c:
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Line\r\n\r\n")
        status, headers, body = _response(c)
    assert status == 400
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["code"] == "malformed_request"
    assert httpx.get(f"{server.url}/healthz", timeout=5).status_code == 200


def test_a_body_arriving_with_its_head_is_not_counted_as_head(server: Server) -> None:
    """Head and a ≈ 900 kB body in one send, then two pipelined requests in one send:
    the bound counts the head only, and each request is answered in order."""
    content = "Long note. " * 1_400  # ≈ 15 kB, under the 16 KiB content limit
    items = [
        {
            "id": f"big-{i}",
            "type": "fact",
            "content": f"{i} {content}",
            "scope": "user:big",
            "source_agent": "test",
        }
        for i in range(60)
    ]
    body = json.dumps({"items": items}).encode()
    assert 800_000 < len(body) < 1_000_000
    head = (
        f"POST /v1/memories:batch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as c:
        c.sendall(head + body)
        status, _, answer = _response(c)
    assert status == 200, answer
    report = json.loads(answer)
    assert (report["written"], report["rejected"]) == (60, 0), answer[:300]
    get = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    last = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as c:
        c.sendall(get + last)
        data = b""
        while chunk := c.recv(65536):
            data += chunk
    assert data.count(b"HTTP/1.1 200 OK") == 2, data[:300]


def test_a_second_server_on_the_same_data_dir_is_refused_and_the_first_keeps_serving(
    server: Server, tmp_path: Path
) -> None:
    """Two processes on one embedded data directory corrupted the index (the first
    server's projection went degraded and ``wait=true`` writes answered 503). The second
    one is refused at once, naming the holder; the first never notices."""
    import threading

    statuses: list[int] = []
    stop = threading.Event()

    def write() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            n = 0
            while not stop.is_set():
                n += 1
                body = {
                    "type": "fact",
                    "content": f"note {n}",
                    "scope": "user:a",
                    "source_agent": "t",
                }
                r = http.put(f"/v1/memories/n{n}", params={"wait": "true"}, json=body)
                statuses.append(r.status_code)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        env = {
            **os.environ,
            "AIMEM_PORT": str(free_port()),
            "AIMEM_DATA_DIR": str(tmp_path / "data"),
        }
        for command in (["serve"], ["mcp"], ["replay", "--projection", "index"], ["optimize"]):
            started = time.monotonic()
            second = subprocess.run(
                [*CLI, *command], env=env, capture_output=True, text=True, timeout=60
            )
            assert second.returncode == 75, (command, second.stderr)
            assert f"in use by pid {server.proc.pid}" in second.stderr, second.stderr
            assert "Traceback" not in second.stderr
            assert time.monotonic() - started < 30
        time.sleep(2)  # writes go on after the refusals
    finally:
        stop.set()
        writer.join()
    assert len(statuses) > 10 and set(statuses) == {201}, sorted(set(statuses))
    health = httpx.get(f"{server.url}/healthz", timeout=5).json()
    assert health["status"] == "ok", health


def test_insecure_open_beyond_loopback_is_said_at_start_and_in_healthz_until_a_key_exists(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    s = Server(data, AIMEM_HOST="0.0.0.0", AIMEM_INSECURE_OPEN="true")
    try:
        health = httpx.get(f"{s.url}/healthz", timeout=5).json()
        assert any("open development mode on 0.0.0.0" in w for w in health["warnings"])
        assert "open development mode on 0.0.0.0" in s.log_path.read_text()
        env = {**os.environ, "AIMEM_DATA_DIR": str(data)}
        created = subprocess.run(
            [
                *CLI,
                "keys",
                "create",
                "--tenant",
                "t",
                "--role",
                "admin",
                "--scopes",
                "*",
                "--name",
                "ops",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert created.returncode == 0, created.stderr
        deadline = time.monotonic() + 30
        while "warnings" in httpx.get(f"{s.url}/healthz", timeout=5).json():
            assert time.monotonic() < deadline, "the warning outlived the first key"
            time.sleep(0.2)
    finally:
        s.stop()
    loopback = Server(tmp_path / "other", AIMEM_INSECURE_OPEN="true")
    try:  # on loopback the flag changes nothing: nothing to warn about
        assert "warnings" not in httpx.get(f"{loopback.url}/healthz", timeout=5).json()
    finally:
        loopback.stop()


def test_the_access_log_names_paths_never_query_values(server: Server) -> None:
    """Note topics, a forget's reason, search words: user data in a query string would
    outlive forgetting in the server's log file."""
    canary = "canary-topic-7f3a"
    r = httpx.get(f"{server.url}/v1/notes", params={"agent": "neo", "topic": canary})
    assert r.status_code == 200, r.text
    gone = httpx.delete(f"{server.url}/v1/memories/m1", params={"reason": canary})
    assert gone.status_code in (200, 404)
    deadline = time.monotonic() + 10
    while "/v1/memories/m1" not in (text := server.log_path.read_text()):
        assert time.monotonic() < deadline, text[-2000:]
        time.sleep(0.1)
    assert canary not in text
    assert '"GET /v1/notes?… HTTP/1.1" 200' in text


def test_a_server_started_under_a_lax_umask_creates_nothing_others_can_read(
    tmp_path: Path,
) -> None:
    """``umask 022`` (the usual default): the data directory, and every file and
    directory the server, its stores and its index create, are the owner's alone."""
    data = tmp_path / "data"
    old = os.umask(0o022)
    try:
        server = Server(data)
    finally:
        os.umask(old)
    try:
        body = {"type": "fact", "scope": "user:a", "source_agent": "t", "content": "umask"}
        r = httpx.put(f"{server.url}/v1/memories/m1?wait=true", json=body, timeout=30)
        assert r.status_code == 201, r.text
    finally:
        server.stop()
    opened = [
        (str(p.relative_to(data)), oct(p.stat().st_mode & 0o777))
        for p in [data, *data.rglob("*")]
        if not p.is_symlink() and p.stat().st_mode & 0o077
    ]
    assert opened == [], opened
    assert (data.stat().st_mode & 0o777) == 0o700


def _metric(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def test_a_restarted_server_freezes_its_warm_heap_out_of_full_collections(
    tmp_path: Path,
) -> None:
    """``docs/design/HEAP.md``: once the loaded index has read its points into memory the
    heap is frozen (one full collection first), and collections are counted."""
    data = tmp_path / "data"
    first = Server(data)
    try:
        for i in range(20):
            body: dict[str, object] = {"type": "interaction", "content": f"turn {i}"}
            body |= {"scope": "user:a", "source_agent": "a", "meta": {"session_id": "s1"}}
            r = httpx.put(f"{first.url}/v1/memories/t{i}?wait=true", json=body)
            assert r.status_code == 201, r.text
    finally:
        first.stop()
    again = Server(data)  # its index loads, then warms conversation context
    try:
        deadline = time.monotonic() + 30
        while True:
            text = httpx.get(f"{again.url}/metrics").text
            frozen = _metric(text, "aimem_heap_frozen_objects")
            if frozen and _metric(text, "aimem_index_context_warming") == 0.0:
                break
            assert time.monotonic() < deadline, text[-3000:]
            time.sleep(0.2)
        assert frozen > 10_000  # the modules and the app at least
        full = _metric(text, 'aimem_gc_pause_seconds_count{generation="2"}')
        assert full is not None and full >= 1  # the one before the freeze, at least
    finally:
        again.stop()
