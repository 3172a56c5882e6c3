"""Acknowledged means durable, also for single writes that were group-committed: the real
server (``ai-memory serve``, embedded log, encryption on) takes ``PUT /v1/memories/{id}``
from 16 clients at once — so writes share groups (``service.single_writes``) — and is
killed with SIGKILL mid-stream. After a restart on the same data directory every write
that was answered 200/201 reads back with the content and version it was answered with,
and a write that was cut off either landed whole or not at all."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.e2e.test_server_and_cli import Server

CLIENTS = 16
KILL_AFTER = 300  # acknowledged writes before the kill


def body(i: int) -> dict[str, str]:
    return {
        "type": "fact",
        "content": f"crash fact {i}",
        "scope": f"user:u{i % 3}",
        "source_agent": "crash",
    }


def test_every_acknowledged_single_write_survives_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = Server(data_dir, AIMEM_ENCRYPTION="on")
    acked: dict[str, int] = {}  # memory id → the version its answer named
    lock = threading.Lock()
    stop = threading.Event()
    counter = iter(range(1_000_000))
    newest = [0]  # the highest position token answered: reads wait for it after the restart

    def client() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            while not stop.is_set():
                with lock:
                    i = next(counter)
                try:
                    r = http.put(f"/v1/memories/m{i}", json=body(i))
                except httpx.TransportError:  # the kill cut the connection
                    return
                assert r.status_code in (200, 201), r.text
                with lock:
                    acked[f"m{i}"] = r.json()["record"]["version"]
                    newest[0] = max(newest[0], r.json()["position"])

    try:
        with ThreadPoolExecutor(CLIENTS) as pool:
            for _ in range(CLIENTS):
                pool.submit(client)
            deadline = time.monotonic() + 120
            while len(acked) < KILL_AFTER and time.monotonic() < deadline:
                time.sleep(0.01)
            server.proc.kill()  # SIGKILL: no handler, no flush, no goodbye
            server.proc.wait()
            stop.set()
    finally:
        server.stop()
    assert len(acked) >= KILL_AFTER
    sent = next(counter)

    again = Server(data_dir, AIMEM_ENCRYPTION="on")
    try:
        with httpx.Client(base_url=again.url, timeout=30) as http:
            wait = {"min_position": newest[0]}  # the records view catches up after the restart
            for memory_id, version in acked.items():
                r = http.get(f"/v1/memories/{memory_id}", params=wait)
                assert r.status_code == 200, (memory_id, r.text)
                stored = r.json()
                assert stored["version"] == version
                assert stored["content"] == body(int(memory_id[1:]))["content"]
            # Cut off before its answer: there whole (version 1, its content) or absent.
            for i in range(sent):
                if f"m{i}" in acked:
                    continue
                r = http.get(f"/v1/memories/m{i}", params=wait)
                assert r.status_code in (200, 404), r.text
                if r.status_code == 200:
                    assert (r.json()["version"], r.json()["content"]) == (1, body(i)["content"])
    finally:
        again.stop()
