"""How fast, and at what memory cost, a real ``ai-memory serve`` refuses huge inputs.

Starts the server as its own process on a fresh data directory, then, over raw sockets
(so the client never buffers anything): a 200 MB body to ``/v1/import`` and to
``/v1/memories`` (write), once with a declared ``Content-Length`` and once chunked;
a request head that never ends (one header of the same size); and a client that sends its
headers one byte every second (slowloris). For each: the time from the first byte sent to
the status line (or to the connection being closed), how much the client managed to send,
and the server's resident memory — its baseline, and the peak sampled every 10 ms while
the request ran.

    python -m loadtest.bench_refusal [--size-mb 200]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

CHUNK = 64 * 1024


@dataclass
class Outcome:
    case: str
    status: str
    seconds: float
    sent_mb: float
    baseline_rss_mb: float
    peak_rss_mb: float


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class PeakSampler:
    """The server's highest resident set size while a request runs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.01)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def race(port: int, head: bytes, frames: Iterator[tuple[bytes, int]]) -> tuple[str, float, float]:
    """Send ``head``, then ``(bytes, payload size)`` frames from another thread while this
    one reads the answer; → (status line, seconds to it, MB of payload sent by then)."""
    sock = socket.create_connection(("127.0.0.1", port))
    sent = 0
    done = threading.Event()

    def pump() -> None:
        nonlocal sent
        try:
            for frame, payload in frames:
                if done.is_set():
                    return
                sock.sendall(frame)
                sent += payload
        except OSError:
            pass  # the server answered and closed: exactly what is measured

    started = time.perf_counter()
    sock.sendall(head)
    writer = threading.Thread(target=pump, daemon=True)
    writer.start()
    answer = b""
    while b"\r\n" not in answer:
        data = sock.recv(4096)
        if not data:
            break
        answer += data
    took = time.perf_counter() - started
    done.set()
    sock.close()
    writer.join(timeout=10)
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "(closed)"
    return status, took, sent / 1e6


def send_huge(
    port: int, path: str, content_type: str, size: int, chunked: bool
) -> tuple[str, float, float]:
    """Send ``size`` bytes of body while reading the answer; → (status line, s, MB sent)."""
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n"
        f"{framing}\r\n\r\n"
    ).encode()
    # Lines of 1 KiB: an import sees lines to split (each refused as not JSON), a write
    # sees one JSON document that never ends.
    block = (b"x" * 1023 + b"\n") * (CHUNK // 1024)

    def frames() -> Iterator[tuple[bytes, int]]:
        for offset in range(0, size, CHUNK):
            piece = block[: min(CHUNK, size - offset)]
            yield (
                (f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece),
                len(piece),
            )
        if chunked:
            yield b"0\r\n\r\n", 0

    return race(port, head, frames())


def huge_head(port: int, size: int) -> tuple[str, float, float]:
    """One header of ``size`` bytes, sent while reading the answer; → (status, s, MB)."""
    head = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Big: ".encode()
    block = b"h" * CHUNK
    return race(port, head, ((block, CHUNK) for _ in range(0, size, CHUNK)))


def slowloris(port: int, budget: float) -> tuple[str, float, float]:
    """Headers one byte a second: how long until the server hangs up."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(budget)
    head = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode() + b"a" * 1000
    started = time.perf_counter()
    sent = 0
    try:
        for byte in head:
            sock.sendall(bytes([byte]))
            sent += 1
            time.sleep(1.0)
            if time.perf_counter() - started > budget:
                return "still open", time.perf_counter() - started, sent / 1e6
    except OSError:
        pass
    finally:
        sock.close()
    return "closed by the server", time.perf_counter() - started, sent / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    args = parser.parse_args()
    size = args.size_mb * 1_000_000
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="aimem-refusal-"))
    env = {**os.environ, "AIMEM_DATA_DIR": str(data), "AIMEM_PORT": str(port)}
    env["AIMEM_GOVERN_INTERVAL"] = "0"
    serve = Path(sys.executable).with_name("ai-memory")
    server = subprocess.Popen(
        [str(serve), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    outcomes: list[Outcome] = []
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.2)
        cases = [
            ("import, Content-Length", "/v1/import", "application/x-ndjson", False),
            ("import, chunked", "/v1/import", "application/x-ndjson", True),
            ("write, Content-Length", "/v1/memories", "application/json", False),
            ("write, chunked", "/v1/memories", "application/json", True),
        ]
        for name, path, content_type, chunked in cases:
            baseline = rss_mb(server.pid)
            with PeakSampler(server.pid) as sampler:
                status, took, sent = send_huge(port, path, content_type, size, chunked)
                time.sleep(0.2)  # let a late allocation show up in the peak
            outcomes.append(Outcome(name, status, took, sent, baseline, sampler.peak))
        baseline = rss_mb(server.pid)
        with PeakSampler(server.pid) as sampler:
            status, took, sent = huge_head(port, size)
            time.sleep(0.2)
        outcomes.append(Outcome("one endless header", status, took, sent, baseline, sampler.peak))
        baseline = rss_mb(server.pid)
        with PeakSampler(server.pid) as sampler:
            status, took, sent = slowloris(port, budget=60)
        outcomes.append(
            Outcome("slow headers (1 byte/s)", status, took, sent, baseline, sampler.peak)
        )
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(
        f"body {args.size_mb} MB; limits (defaults): import 64 MiB, JSON 1 MiB, "
        "request head 64 KiB, headers 10 s"
    )
    print("| case | answer | time to answer | sent by then | server RSS before → peak |")
    print("| --- | --- | ---: | ---: | ---: |")
    for o in outcomes:
        print(
            f"| {o.case} | {o.status} | {o.seconds * 1000:,.0f} ms | {o.sent_mb:,.1f} MB | "
            f"{o.baseline_rss_mb:,.0f} → {o.peak_rss_mb:,.0f} MB |"
        )


if __name__ == "__main__":
    main()
