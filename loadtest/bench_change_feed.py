"""How soon a write shows up in a change-feed subscriber: p50 and p95 from one run.

    python -m loadtest.bench_change_feed [--writes 300] [--interval 0.02] [--two-instances]

Instance A is the real server (``ai-memory serve``, embedded log) in its own process on
a fresh data dir. Agent 2 subscribes to A's feed over Server-Sent Events
(``GET /v1/changes?since=now``, ``Accept: text/event-stream``) in a thread of this
process; agent 1 writes memories to A over HTTP (``PUT``, no ``wait``) one every
``--interval`` seconds. The latency of a write is from just before its request is sent
to the moment its ``written`` entry is parsed from the stream: the HTTP write, the
append, the feed's wake-up on the log and the SSE frame.

``--two-instances``: two agents on two instances. Instance B runs too, ``ai-memory sync
--from A --to B --scope team:bench --follow`` (the real command, its own process)
replicates A's changes to B, and the subscriber follows **B's** feed: the latency adds
A's feed long-poll, the reads on both and the import on B.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

WORK = Path(__file__).parent / ".work" / "change_feed"
SCOPE = "team:bench"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Instance:
    """``ai-memory serve`` on a fresh data dir, in its own process."""

    def __init__(self, name: str) -> None:
        data = WORK / name
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True)
        self.url = f"http://127.0.0.1:{free_port()}"
        env = {**os.environ, "AIMEM_PORT": self.url.rsplit(":", 1)[1], "AIMEM_DATA_DIR": str(data)}
        self._log = (WORK / f"{name}.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ai_memory.entrypoints.cli", "serve"],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"instance {name} did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()


def subscribe(
    url: str, arrived: dict[str, float], ready: threading.Event, done: threading.Event
) -> None:
    headers = {"Accept": "text/event-stream"}
    params = {"since": "now", "scope": SCOPE, "timeout": "1"}
    with (
        httpx.Client(base_url=url, timeout=60) as http,
        http.stream("GET", "/v1/changes", headers=headers, params=params) as response,
    ):
        for line in response.iter_lines():
            if not ready.is_set():
                ready.set()  # the stream is open: its cursor is "now"
            if line.startswith("data: "):
                entry = json.loads(line[6:])
                if entry["kind"] == "written":
                    arrived.setdefault(entry["id"], time.perf_counter())
            if done.is_set():
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--two-instances", action="store_true")
    args = parser.parse_args()
    a = Instance("a")
    b = Instance("b") if args.two_instances else None
    sync: subprocess.Popen[bytes] | None = None
    if b is not None:
        (WORK / "sync.json").unlink(missing_ok=True)
        state = ["--state", str(WORK / "sync.json")]
        command = ["sync", "--from", a.url, "--to", b.url, "--scope", SCOPE, "--follow", *state]
        sync = subprocess.Popen(
            [sys.executable, "-m", "ai_memory.entrypoints.cli", *command],
            stdout=subprocess.DEVNULL,
            stderr=(WORK / "sync.log").open("wb"),
        )
    watched = a if b is None else b
    try:
        arrived: dict[str, float] = {}
        ready, done = threading.Event(), threading.Event()
        subscriber = threading.Thread(
            target=subscribe, args=(watched.url, arrived, ready, done), daemon=True
        )
        subscriber.start()
        if not ready.wait(30):
            raise RuntimeError("the subscriber did not connect")
        sent: dict[str, float] = {}
        with httpx.Client(base_url=a.url, timeout=30) as agent1:
            for i in range(args.writes):
                memory_id = f"bench-{i:05d}"
                body = {
                    "type": "fact",
                    "content": f"Benchmark fact number {i} about the deploy calendar.",
                    "scope": SCOPE,
                    "source_agent": "agent-1",
                }
                sent[memory_id] = time.perf_counter()
                agent1.put(f"/v1/memories/{memory_id}", json=body).raise_for_status()
                time.sleep(args.interval)
        deadline = time.monotonic() + 30
        while len(arrived) < len(sent) and time.monotonic() < deadline:
            time.sleep(0.05)
        done.set()
        lost = sorted(set(sent) - set(arrived))
        if lost:  # why: is the memory on the watched instance at all?
            with httpx.Client(base_url=watched.url, timeout=30) as check:
                there = {m: check.get(f"/v1/memories/{m}").status_code for m in lost}
            print(f"not seen in the feed: {there}")
        latencies = [(arrived[m] - t) * 1000 for m, t in sent.items() if m in arrived]
        missing = len(sent) - len(latencies)
        where = "B's feed (synced from A)" if b is not None else "A's feed"
        print(f"writes: {len(sent)}, seen in {where}: {len(latencies)}, missing: {missing}")
        print(
            f"write → feed subscriber, ms: p50 {percentile(latencies, 0.5):.1f}"
            f" / p95 {percentile(latencies, 0.95):.1f} / max {max(latencies):.1f}"
        )
    finally:
        if sync is not None:
            sync.terminate()
            sync.wait(15)
        for instance in (a, b):
            if instance is not None:
                instance.stop()


if __name__ == "__main__":
    main()
