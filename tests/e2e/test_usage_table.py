"""The usage table (a Faust agent, ``ai-memory project --projection usage``) counts every
tenant's live memories and bytes exactly, even when its worker is killed with SIGKILL in
the middle of folding a backlog, twice, and restarted: what the changelog kept and what
Kafka delivers again must add up to the same numbers, never double-counted.

Real Kafka, the real CLI worker in its own process, and the gateways' reader of the
table (``KafkaUsageReplica``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.kafka.config import parse_kafka_url
from ai_memory.adapters.kafka.event_log import KafkaEventLog, WriterConfig
from ai_memory.adapters.kafka.usage_replica import KafkaUsageReplica
from ai_memory.core.events import DomainEvent
from ai_memory.projector.usage_worker import changelog_topic
from ai_memory.serialization import AvroEventSerializer
from tests.factories import deleted, record, written

PARTITIONS = 4
CLI = [sys.executable, "-m", "ai_memory.entrypoints.cli", "project", "--projection", "usage"]


@pytest.fixture
def url(kafka_bootstrap: str) -> str:
    return f"kafka://{kafka_bootstrap}/aimem.usage.{uuid.uuid4().hex[:10]}?partitions={PARTITIONS}"


@pytest.fixture
def log(url: str) -> Iterator[KafkaEventLog]:
    opened = KafkaEventLog.from_url(url, AvroEventSerializer(), writer=WriterConfig())
    yield opened
    opened.close()


def backlog(log: KafkaEventLog) -> dict[str, tuple[int, int]]:
    """Writes, rewrites and forgets for two tenants; the expected (memories, bytes)."""
    sizes: dict[tuple[str, str], int] = {}
    batches: list[list[DomainEvent]] = []
    for tenant in ("acme", "globex"):
        for scope_n in range(8):
            scope = f"user:u{scope_n}"
            events: list[DomainEvent] = []
            for n in range(150):
                mid = f"{tenant}-{scope_n}-{n}"
                content = f"{mid} " + "é" * (n % 40)  # multi-byte: bytes are not chars
                events.append(written(record(mid, content, scope=scope), tenant=tenant))
                sizes[(tenant, mid)] = len(content.encode())
            for n in range(0, 150, 3):  # rewrites change the size
                mid = f"{tenant}-{scope_n}-{n}"
                content = f"{mid} rewritten " + "x" * n
                events.append(written(record(mid, content, scope=scope), version=2, tenant=tenant))
                sizes[(tenant, mid)] = len(content.encode())
            for n in range(1, 150, 5):  # forgets
                mid = f"{tenant}-{scope_n}-{n}"
                last = 2 if n % 3 == 0 else 1
                events.append(deleted(mid, scope=scope, tenant=tenant, version=last))
                sizes.pop((tenant, mid))
            batches.extend(events[i : i + 50] for i in range(0, len(events), 50))
    for batch in batches:
        log.append(batch)
    expected: dict[str, tuple[int, int]] = {}
    for (tenant, _), size in sizes.items():
        memories, total = expected.get(tenant, (0, 0))
        expected[tenant] = (memories + 1, total + size)
    return expected


def folded_to_head(replica: KafkaUsageReplica, log: KafkaEventLog) -> bool:
    """Whether the fold has reached the last event of every partition (the positions
    of its ``p|`` keys, as a gateway reads them)."""
    heads = {p: log.last_position(p) for p in log.partitions()}
    folded = replica.folded()
    return all(folded.get(p, 0) >= head for p, head in heads.items() if head)


def start(url: str, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AIMEM_EVENT_LOG": url, "AIMEM_ENCRYPTION": "off"}
    env["AIMEM_METRICS_PORT"] = "0"
    with out.open("ab") as sink:
        return subprocess.Popen(CLI, env=env, stdout=sink, stderr=subprocess.STDOUT)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_usage_is_exact_after_the_worker_is_killed_mid_fold_twice(
    url: str, log: KafkaEventLog, tmp_path: Path
) -> None:
    expected = backlog(log)
    tenants = sorted(expected)
    replica = KafkaUsageReplica(parse_kafka_url(url), changelog_topic(parse_kafka_url(url).topic))
    worker_log = tmp_path / "usage-worker.log"
    workers: list[subprocess.Popen[bytes]] = []

    def wait_for(done: Callable[[], bool], within: float, what: str) -> None:
        deadline = time.monotonic() + within
        while not done():
            worker = workers[-1]
            assert worker.poll() is None, f"the worker exited: {worker_log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"{what}: {worker_log.read_text()[-3000:]}"
            time.sleep(0.05)

    def progressed(before: int) -> bool:
        return sum(replica.folded().values()) > before

    try:
        for run in range(2):
            before = sum(replica.folded().values())
            workers.append(start(url, worker_log))
            # Killed once this run's fold is under way (most likely before it is done) —
            # or, when the run before folded everything before its kill (a quiet box),
            # once this one is up at the head: then it is a kill with nothing left to fold.
            # The bound is generous: a worker's start (Faust, the group's rebalance after
            # the previous worker vanished) is slow on a loaded box.
            wait_for(
                lambda before=before: progressed(before) or folded_to_head(replica, log),
                300,
                f"run {run} folds",
            )
            workers[-1].send_signal(signal.SIGKILL)
            workers[-1].wait()
        workers.append(start(url, worker_log))
        wait_for(lambda: folded_to_head(replica, log), 300, "the last run folds to the head")
        got = {t: (replica.usage(t).memories, replica.usage(t).bytes) for t in tenants}
        assert got == expected
        # Found at the head at once (the earlier runs folded it all): a worker still
        # starting dies of SIGTERM before its handler is in; the clean stop is checked
        # on a worker that is up.
        ready = f"[{workers[-1].pid}] [INFO] [^Worker]: Ready"
        wait_for(lambda: ready in worker_log.read_text(errors="replace"), 300, "ready")
        workers[-1].terminate()
        assert workers[-1].wait(60) == 0, worker_log.read_text()[-3000:]
    finally:
        for worker in workers:  # none outlives the test, whatever failed
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        replica.close()
