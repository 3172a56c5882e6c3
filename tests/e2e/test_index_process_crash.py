"""The live server's index in a process of its own (``AIMEM_INDEX_PROCESS=on``,
``adapters/index_process.py``).
Killed with SIGKILL while writes and searches go on, it is restarted, and every write
that was acknowledged is found by search afterwards — the projection re-read the log from
where the new process reopened. Killed with its server, it leaves with it, and the next
server opens the same index."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.e2e.test_server_and_cli import Server

CLIENTS = 4
KILL_AFTER = 150  # acknowledged writes before the index process is killed
MORE_AFTER = 150  # and after


def index_child(server_pid: int) -> int:
    """The pid of the server's index process."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == server_pid and b"ai_memory.adapters.index_process" in cmdline:
            return int(entry.name)
    raise AssertionError(f"no index process under pid {server_pid}")


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def body(i: int) -> dict[str, str]:
    # A word no other memory has, so a keyword search for it finds exactly this one.
    return {
        "type": "fact",
        "content": f"canary{i}x note written while the index process was killed",
        "scope": "user:crash",
        "source_agent": "crash",
    }


def found(http: httpx.Client, i: int, position: int) -> bool:
    r = http.post(
        "/v1/memories/search",
        params={"min_position": position},
        json={"query": f"canary{i}x", "mode": "keyword", "top_k": 3, "scope": "user:crash"},
    )
    assert r.status_code == 200, r.text
    return f"m{i}" in [hit["record"]["id"] for hit in r.json()["results"]]


def test_a_killed_index_process_loses_no_acknowledged_write(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", AIMEM_ENCRYPTION="on", AIMEM_INDEX_PROCESS="on")
    acked: dict[int, int] = {}  # write number → its position token
    answers: list[int] = []  # status of every search sent meanwhile
    lock = threading.Lock()
    stop = threading.Event()
    counter = iter(range(1_000_000))

    def writer() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            while not stop.is_set():
                with lock:
                    i = next(counter)
                r = http.put(f"/v1/memories/m{i}", json=body(i))
                assert r.status_code in (200, 201), r.text
                with lock:
                    acked[i] = r.json()["position"]

    def searcher() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            while not stop.is_set():
                r = http.post("/v1/memories/search", json={"query": "note", "top_k": 5})
                answers.append(r.status_code)
                if r.status_code != 200:  # a problem document, never a bare 500
                    assert r.headers["content-type"].startswith("application/problem+json")

    try:
        child = index_child(server.proc.pid)
        with ThreadPoolExecutor(CLIENTS + 1) as pool:
            futures = [pool.submit(writer) for _ in range(CLIENTS)] + [pool.submit(searcher)]
            deadline = time.monotonic() + 120
            while len(acked) < KILL_AFTER and time.monotonic() < deadline:
                time.sleep(0.01)
            os.kill(child, signal.SIGKILL)
            while len(acked) < KILL_AFTER + MORE_AFTER and time.monotonic() < deadline:
                time.sleep(0.01)
            stop.set()
            for f in futures:
                f.result()
        assert len(acked) >= KILL_AFTER + MORE_AFTER
        assert set(answers) <= {200, 503}, sorted(set(answers))
        assert not alive(child)
        # The writes do not wait for the index: the replacement may still be starting.
        replacement = child
        deadline = time.monotonic() + 60
        while replacement == child and time.monotonic() < deadline:
            try:
                replacement = index_child(server.proc.pid)
            except AssertionError:
                time.sleep(0.1)
        assert replacement != child
        with httpx.Client(base_url=server.url, timeout=30) as http:
            # Position tokens are opaque (not ordered): the newest is a write made after
            # every other was answered, waited for until every projection applied it.
            last = http.put("/v1/memories/last", json=body(-1), params={"wait": "true"})
            assert last.status_code == 201, last.text
            newest = last.json()["position"]
            missing = [i for i in sorted(acked) if not found(http, i, newest)]
            assert missing == []
            health = http.get("/healthz").json()
            assert health["status"] == "ok", health
    finally:
        server.stop()


def test_the_index_process_leaves_with_a_killed_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = Server(data_dir, AIMEM_INDEX_PROCESS="on")
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            r = http.put("/v1/memories/m1", json=body(1), params={"wait": "true"})
            assert r.status_code == 201, r.text
            position = r.json()["position"]
        child = index_child(server.proc.pid)
        server.proc.kill()
        server.proc.wait()
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child)
    finally:
        server.stop()
    again = Server(data_dir, AIMEM_INDEX_PROCESS="on")
    try:
        with httpx.Client(base_url=again.url, timeout=30) as http:
            assert found(http, 1, position)
    finally:
        again.stop()
