"""Real Kafka and Cassandra for integration tests, started from ``deploy/local``.

Session fixtures reuse servers already listening (a developer's ``servers.sh start``),
otherwise start them once — under a file lock so parallel test runs don't race — and
stop only what this session started. Unique topics/keyspaces per test keep tests apart.
"""

from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "deploy" / "local" / "servers.sh"
KAFKA_PORT = int(os.environ.get("AIMEM_KAFKA_PORT", "9092"))
CASSANDRA_PORT = int(os.environ.get("AIMEM_CASSANDRA_PORT", "9042"))
CASSANDRA_JMX_PORT = int(os.environ.get("AIMEM_CASSANDRA_JMX_PORT", "7199"))
# Where servers.sh keeps the jars (AIMEM_LOCAL_CACHE) and the servers' data (AIMEM_LOCAL_RUN).
LOCAL_CACHE = Path(os.environ.get("AIMEM_LOCAL_CACHE", ROOT / "deploy" / "local" / ".cache"))
LOCAL_RUN = Path(os.environ.get("AIMEM_LOCAL_RUN", ROOT / "deploy" / "local" / "run"))


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _ensure(service: str, port: int) -> Iterator[str]:
    lock_path = ROOT / "deploy" / "local" / f".{service}.lock"
    started = False
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not port_open(port):
            started = True
            _start(service)
        # Otherwise a server someone else started (another checkout, a developer) is
        # listening: its pid file is not ours, so it is reused as it is.
        fcntl.flock(lock, fcntl.LOCK_UN)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        if started:
            subprocess.run([str(SERVERS), "stop", service], check=False)


def _servers(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(SERVERS), *args], capture_output=True, text=True, check=False)
    # Shown under "Captured stderr" of the first test that needed the server.
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done


def _start_once(service: str) -> subprocess.CompletedProcess[str] | None:
    """``servers.sh start`` then ``wait`` (a real protocol round trip, not only the port);
    the failed step's output, or None."""
    for step in ("start", "wait"):
        done = _servers(step, service)
        if done.returncode != 0:
            return done
    return None


def _start(service: str) -> None:
    """Start ``service``, once more after a stop if that fails (a start that lost a race
    with a process still letting go of a port). A failure names its reason on the first
    line of the error, the one a test summary shows, and carries the server's last log
    lines."""
    failed = _start_once(service)
    if failed is None:
        return
    _servers("stop", service)
    time.sleep(5)
    failed = _start_once(service)
    if failed is None:
        return
    _servers("stop", service)  # nothing half-started outlives the session
    lines = [line for line in failed.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[servers] error")]
    reason = (errors or lines or ["servers.sh printed nothing"])[-1]
    raise RuntimeError(
        f"{service} did not start: {reason}\n" + "\n".join(lines[-60:]) + f"\n{failed.stdout}"
    )


def nodetool(*args: str, timeout: float = 600.0) -> str:
    """``nodetool <args>`` against the local single Cassandra node, over its JMX port (which
    servers.sh binds to 127.0.0.1 only, without authentication). The distribution's
    ``bin/nodetool`` script is not in the Maven jars, so its main class runs directly with
    the server's classpath; ``java`` is servers.sh's (AIMEM_JAVA_HOME) or the one on PATH."""
    home = os.environ.get("AIMEM_JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else "java"
    command = [
        java,
        "-Xmx128m",
        # What the distribution's jvm17-clients.options opens for its tools: FileUtils
        # reaches the direct-buffer cleaner when NodeTool starts.
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-cp",
        str(LOCAL_CACHE / "cassandra" / "lib" / "*"),
        "org.apache.cassandra.tools.NodeTool",
        "-h",
        "127.0.0.1",
        "-p",
        str(CASSANDRA_JMX_PORT),
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        # stdout carries the client's own debug logging; the error is on stderr.
        raise RuntimeError(f"nodetool {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    yield from _ensure("kafka", KAFKA_PORT)


@pytest.fixture(scope="session")
def cassandra_contact() -> Iterator[str]:
    yield from _ensure("cassandra", CASSANDRA_PORT)
