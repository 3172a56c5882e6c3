"""End to end: the real server process (``ai-memory serve``) over real HTTP, driven by
the ``ai-memory`` CLI exactly as a person would in the README tour."""

from __future__ import annotations

import json
import os
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
