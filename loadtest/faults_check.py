"""Checking every acknowledgement after a fault (fault suite).

The log is the system of record, so it is read first: for each memory, its versions in
log order. Then every acknowledged write is checked against it and against the views:

* **lost** — an acknowledged write whose event is not on the log at the acknowledged
  position with the acknowledged version (a write acknowledges its tenant's token of the
  position: ``check_log`` decodes it with the deployment's secret, as the server does),
  or whose memory reads back (GET through the gateway) older than that version.
* **duplicated** — a version appended twice, a memory exported twice, or a search
  returning one memory twice.
* **reordered** — versions of one memory out of log order (a later offset holding a lower
  version), or a view holding a version other than the log's last for that memory.
* **gaps** — version numbers skipped on the log (a version claimed, never appended: the
  orphan of a writer killed between claim and append). Not a loss of an acknowledged
  write by itself, reported because it is the symptom item 1 removes.
* **unsearchable** — memories whose last logged version is not found by a keyword search
  for its version token, through the gateway (its co-located index) and in the index
  worker's own view.
* **usage wrong** — the usage table (``ai-memory project --projection usage``, read as a
  gateway reads it: ``KafkaUsageReplica`` on its changelog, once it folded the log's last
  write) against the log: per tenant, the live memories (ids written and not deleted, any
  id, probes included) and the UTF-8 bytes of each one's newest content. Counted as how
  many memories it miscounts, and at least 1 when only the bytes differ or the table
  never reached the log's last write.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx

from ai_memory.adapters.embedders import make_embedder
from ai_memory.adapters.kafka.config import parse_kafka_url
from ai_memory.adapters.kafka.event_log import KafkaEventLog
from ai_memory.adapters.kafka.usage_replica import KafkaUsageReplica
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.core.events import MemoryDeleted, MemoryWritten
from ai_memory.core.keywords import query_terms
from ai_memory.core.ports import EventSerializer, IndexQuery
from ai_memory.projector.usage_worker import changelog_topic
from ai_memory.serialization import AvroEventSerializer
from loadtest.faults_load import Outcome, memory_id

_REVISION = re.compile(r"vq(\d+)x(\d+)z")


@dataclass(frozen=True)
class Logged:
    position: int
    version: int
    revision: int


@dataclass
class Verdict:
    acked: int = 0
    lost: int = 0
    duplicated: int = 0
    reordered: int = 0
    gaps: int = 0
    unsearchable: int = 0
    worker_index_missing: int = 0
    usage_wrong: int = 0
    details: list[str] = field(default_factory=list)
    _lost: set[tuple[int, int]] = field(default_factory=set)  # (n, version), counted once

    def lose(self, o: Outcome) -> None:
        self._lost.add((o.n, o.version))
        self.lost = len(self._lost)

    def note(self, text: str) -> None:
        if len(self.details) < 20:
            self.details.append(text)


@dataclass
class LogUsage:
    """What the usage table must count, read off the log: per tenant, each live memory's
    newest content size, and per partition the last event that writes or deletes one."""

    sizes: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    last: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))


def read_log(
    log_url: str,
    tmp: Path,
    serializer: EventSerializer | None = None,
    usage: LogUsage | None = None,
) -> dict[str, list[Logged]]:
    """Every ``MemoryWritten`` of the fault suite's memories, per id, in log order
    (``serializer``: the deployment's, whose vault opens the sealed content); ``usage``,
    when given, gets every memory of the log."""
    log = KafkaEventLog.from_url(log_url, serializer or AvroEventSerializer())
    found: dict[str, list[Logged]] = defaultdict(list)
    try:
        for p in log.partitions():
            after = 0
            while True:
                page = log.read(after=after, limit=5000, partition=p)
                if not page:
                    break
                after = page[-1].position
                for logged in page:
                    e = logged.event
                    if isinstance(e, MemoryWritten) and e.record.id.startswith("f-"):
                        m = _REVISION.search(e.record.content)
                        revision = int(m.group(2)) if m else -1
                        found[e.record.id].append(Logged(logged.position, e.version, revision))
                    if usage is not None and isinstance(e, MemoryWritten | MemoryDeleted):
                        tenant = e.header.tenant
                        usage.last[tenant][p] = logged.position
                        if isinstance(e, MemoryDeleted):
                            usage.sizes[tenant].pop(e.memory_id, None)
                        elif not e.sealed:  # sealed: its key destroyed, a forget follows
                            usage.sizes[tenant][e.record.id] = len(e.record.content.encode())
    finally:
        log.close()
    return found


def check_log(
    acked: list[Outcome],
    logged: dict[str, list[Logged]],
    v: Verdict,
    position_of: Callable[[int], int],
) -> None:
    """``position_of``: the log position of an acknowledged token (``Cluster.log_positions``
    of the writers' tenant)."""
    v.acked = len(acked)
    at = {(mid, x.position): x for mid, xs in logged.items() for x in xs}
    for o in acked:
        position = position_of(o.position)
        hit = at.get((memory_id(o.n), position))
        if hit is None or hit.version != o.version:
            v.lose(o)
            v.note(
                f"{memory_id(o.n)} v{o.version} acked as {o.position} (position {position}):"
                " not on the log"
            )
    for mid, xs in logged.items():
        versions = [x.version for x in xs]
        v.duplicated += len(versions) - len(set(versions))
        drops = sum(1 for a, b in pairwise(versions) if b < a)
        if drops:
            v.reordered += drops
            v.note(f"{mid}: versions in log order {versions}")
        expected = set(range(1, max(versions) + 1))
        missing = sorted(expected - set(versions))
        if missing:
            v.gaps += len(missing)
            v.note(f"{mid}: versions {missing} never on the log")


def check_gateway(
    url: str,
    headers: dict[str, str],
    acked: list[Outcome],
    logged: dict[str, list[Logged]],
    v: Verdict,
) -> None:
    """GET and search every acknowledged memory; export once for duplicates."""
    newest_acked: dict[str, int] = {}
    for o in acked:
        mid = memory_id(o.n)
        newest_acked[mid] = max(newest_acked.get(mid, 0), o.version)
    with httpx.Client(base_url=url, headers=headers, timeout=30) as http:
        for mid, version in sorted(newest_acked.items()):
            last = logged[mid][-1] if logged.get(mid) else None
            r = http.get(f"/v1/memories/{mid}")
            got = r.json()["version"] if r.status_code == 200 else 0
            if got < version:
                for o in acked:
                    if memory_id(o.n) == mid and o.version > got:
                        v.lose(o)
                v.note(f"{mid}: reads v{got} (HTTP {r.status_code}), v{version} was acked")
            elif last is not None and got != max(x.version for x in logged[mid]):
                v.reordered += 1
                v.note(f"{mid}: reads v{got}, the log's newest is another version")
            if last is None:
                continue
            token = f"vq{mid[2:].lstrip('0') or '0'}x{last.revision}z"
            hits = http.post(
                "/v1/memories/search", json={"query": token, "mode": "keyword", "top_k": 3}
            ).json()["results"]
            ids = [h["record"]["id"] for h in hits]
            if mid not in ids:
                v.unsearchable += 1
                v.note(f"{mid}: gateway search for {token} finds {ids}")
            v.duplicated += max(0, ids.count(mid) - 1)
        exported = [line for line in http.get("/v1/export").text.splitlines() if '"f-' in line]
    ids = [x for line in exported for x in re.findall(r'"id": ?"(f-\d+)"', line)[:1]]
    v.duplicated += len(ids) - len(set(ids))


def check_worker_index(index_dir: Path, logged: dict[str, list[Logged]], v: Verdict) -> None:
    """The index worker's own Edge index (opened after the worker stopped)."""
    embedder = make_embedder("static")
    index = QdrantEdgeIndex(index_dir / embedder.name, dim=embedder.dim, model_name=embedder.name)
    try:
        for mid, xs in sorted(logged.items()):
            token = f"vq{mid[2:].lstrip('0') or '0'}x{xs[-1].revision}z"
            q = IndexQuery(
                "default", None, query_terms(token), now=datetime.now(UTC), mode="keyword"
            )
            ids = [h.memory_id for h in index.search(q)]
            if mid not in ids:
                v.worker_index_missing += 1
                v.note(f"{mid}: index worker's view lacks {token}")
            v.duplicated += max(0, ids.count(mid) - 1)
    finally:
        index.close()


def usage_counting(log_url: str, timeout: float) -> bool:
    """Whether the usage table counts memories within ``timeout`` (a usage worker is up
    and folding: on a loaded box it may take longer to start than the warm-up)."""
    config = parse_kafka_url(log_url)
    replica = KafkaUsageReplica(config, changelog_topic(config.topic))
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if replica.tenants():
                return True
            time.sleep(0.5)
        return False
    finally:
        replica.close()


def check_usage(log_url: str, expected: LogUsage, v: Verdict, timeout: float = 120) -> None:
    """The usage table, as every gateway reads it, once it folded the log's last write."""
    config = parse_kafka_url(log_url)
    replica = KafkaUsageReplica(config, changelog_topic(config.topic))
    try:
        if not replica.wait_ready(timeout):
            v.usage_wrong += 1
            v.note(f"usage: changelog {replica.changelog} not read within {timeout} s")
            return
        tenants = sorted(set(expected.last) | set(replica.tenants()))
        deadline = time.monotonic() + timeout
        last = expected.last
        while time.monotonic() < deadline:
            at = {t: replica.usage(t).positions for t in last}
            if all(at[t].get(p, 0) >= q for t in last for p, q in last[t].items()):
                break
            time.sleep(0.5)
        for t in tenants:
            got = replica.usage(t)
            sizes = expected.sizes.get(t, {})
            want = (len(sizes), sum(sizes.values()))
            behind = {
                p: (got.positions.get(p, 0), q)
                for p, q in expected.last.get(t, {}).items()
                if got.positions.get(p, 0) < q
            }
            if (got.memories, got.bytes) != want or behind:
                v.usage_wrong += max(1, abs(got.memories - want[0]))
                v.note(
                    f"usage of {t!r}: {got.memories} memories / {got.bytes} B, the log has "
                    f"{want[0]} / {want[1]} B"
                    + (f"; behind (folded, last write) per partition {behind}" if behind else "")
                )
    finally:
        replica.close()


def wait_caught_up(
    url: str, timeout: float, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """Until the gateway reports lag 0 for every projection it knows (``headers``: an
    operator key of every tenant, when keys are in force — ``/healthz`` shows positions
    and lag only to it; a tenant's admin key sees none, and this would time out)."""
    deadline = time.monotonic() + timeout
    health: dict[str, Any] = {}
    while time.monotonic() < deadline:
        try:
            health = httpx.get(f"{url}/healthz", timeout=10, headers=headers).json()
            if health.get("lag") and all(n == 0 for n in health["lag"].values()):
                return health
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.5)
    raise TimeoutError(f"projections did not catch up: {health}")


def worker_positions(metrics_port: int) -> dict[int, int]:
    """``aimem_projection_position`` per partition from a worker's metrics endpoint."""
    text = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).text
    out: dict[int, int] = {}
    for m in re.finditer(r"aimem_projection_position\{([^}]*)\} (\S+)", text):
        partition = re.search(r'partition="(\d+)"', m.group(1))
        if partition:
            out[int(partition.group(1))] = int(float(m.group(2)))
    return out
