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
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "deploy" / "local" / "servers.sh"
KAFKA_PORT = int(os.environ.get("AIMEM_KAFKA_PORT", "9092"))
CASSANDRA_PORT = int(os.environ.get("AIMEM_CASSANDRA_PORT", "9042"))


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
            subprocess.run([str(SERVERS), "start", service], check=True)
            started = True
            # `wait` checks a real protocol round trip, not only the port.
            subprocess.run([str(SERVERS), "wait", service], check=True)
        # Otherwise a server someone else started (another checkout, a developer) is
        # listening: its pid file is not ours, so it is reused as it is.
        fcntl.flock(lock, fcntl.LOCK_UN)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        if started:
            subprocess.run([str(SERVERS), "stop", service], check=False)


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    yield from _ensure("kafka", KAFKA_PORT)


@pytest.fixture(scope="session")
def cassandra_contact() -> Iterator[str]:
    yield from _ensure("cassandra", CASSANDRA_PORT)
