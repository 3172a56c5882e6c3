"""Cost per memory: CPU time summed over every process of the stack, phase by phase.

    python -m loadtest.bench_cost                                # own Kafka and Cassandra
    python -m loadtest.bench_cost --embedded --json cost.json    # and the embedded server
    python -m loadtest.bench_cost --batch-memories 600 --put-memories 160 \\
        --get-requests 300 --search-requests 100                 # a small run, minutes
    AIMEM_LOCAL_RUN=deploy/local/run python -m loadtest.bench_cost \\
        --kafka 127.0.0.1:9092 --cassandra 127.0.0.1:9042        # servers already running

Throughput measured on a shared 2-core box says as much about the box as about the code.
CPU milliseconds per memory, summed over every process a write goes through, is a ratio
that holds on any machine of similar per-core speed, however busy: it is the yardstick for
what a memory costs and where that cost goes.

**The stack.** Unless ``--kafka``/``--cassandra`` name running servers, Kafka and
Cassandra are started with ``deploy/local/servers.sh`` in a run directory of their own
(``--run-dir``) on ports of their own (``PORTS``), never the servers others share on
9092/9042 (``loadtest.faults``'s ``profile`` and ``Servers``), and stopped at the end
(``--keep-servers`` leaves them running; servers already running in ``--run-dir`` are
used and left running: a second run has JVMs the first warmed up). On that stack, as real processes
(``loadtest.cluster``): the gateway (``ai-memory serve``, with its co-located Qdrant Edge
index), one records, one index and one usage worker (``ai-memory project``), on a fresh
topic of 4 partitions and a fresh keyspace, with encryption (the default: a root key is
set) and keys in force (the clients send an admin key; the harness reads ``/healthz``
positions with an operator key of every tenant, made with ``ai-memory keys create
--tenant '*'``, and decodes the tokens writes acknowledge with the deployment's secret,
``loadtest.positions``), as in production.

**Phases.** A warm-up of ``--warmup`` memories in batches, a fifth as many PUTs, half as
many GETs and a tenth as many searches (not measured: start-up, Faust joining its
groups, JIT compilation of every path) and ``--settle-seconds`` of nothing (fresh JVMs
compile what the warm-up ran, after it); with ``--warm-jvms`` the warm-up is repeated
until the Kafka and Cassandra JVMs' JIT compilers spend under 5 % of their CPU in a round
(a young JVM compiles for minutes: start-up, not what a long-running node spends per
memory), then ``idle`` (``--idle-seconds`` of nothing:
the background every process burns — polling, heartbeats — in CPU ms per second),
``batch`` (``POST /v1/memories:batch``, ``--batch-size`` items per request from
``--batch-clients`` clients), ``put`` (single ``PUT /v1/memories/{id}`` from
``--put-clients`` clients), ``get`` (``GET /v1/memories/{id}`` of memories the batch
phase wrote) and ``search`` (``POST /v1/memories/search``, hybrid, one scope), the reads
from ``--read-clients`` clients. Memories are spread over ``--scopes`` scopes (20: a few
hundred memories each at the default sizes; 100 and ``--batch-memories 100000``: issue
27's scope of 1,000 memories in a 100,000-memory deployment), and searches ask them in
turn, with the corpus's ten queries (``--search-queries repeat``: each query–scope pair
comes back every 10 × scopes searches, which flatters every cache) or a question of
their own each (``distinct``); last, unless ``--no-replay``, ``replay records`` and
``replay index``: the serving processes stopped, ``ai-memory replay --projection <view>``
rebuilds the view in place from offset 0 (the fleet's "rebuild the index" job), CPU per
event from the command's own figure (its start-up left out) plus Kafka and Cassandra.
The write and read phases write new memories (no no-op upserts) and end only when every
view caught up with the log's last event as read from Kafka once the load stopped: the
records and index workers' ``aimem_projection_position`` (their
metrics endpoints), the usage table's folded point (its changelog, read here as a
gateway reads it), then the gateway's ``/healthz`` positions (its co-located index; the
records checkpoints); when each view got there is reported. A read phase first waits out
the gateway's recall batching (``RECALL_FLUSH_S``): the ``MemoriesRecalled`` events
reads append, and their projection, are part of what a read costs.

**CPU.** For each phase, user + system CPU of every process (all threads, from
``/proc/<pid>/stat``, ``loadtest.proc_cpu``; its child processes included, which is where
the gateway and the index worker optimise their Qdrant Edge segments) from the first
request until caught up:
gateway, each worker, the Kafka and Cassandra JVMs (pid files of ``servers.sh``'s run
directory; with ``--kafka``/``--cassandra`` they are measured only when ``--run-dir`` or
``AIMEM_LOCAL_RUN`` names the servers' run directory, else reported as not measured).
The stack's total is their sum. This process (the clients, and the log and usage-table
readers that decide when a phase is done) is reported apart, as is the rest of the box.
Waiting for catch-up polls the workers' metrics, then ``/healthz``, every ``POLL_S``: a
few ms of CPU per poll, included. Per phase: CPU ms per memory (per request for the
reads, per second for ``idle``) per process and in total; the total net of idle (less
what the idle rates would have cost over the phase's wall time: the marginal cost, where
the gross total also carries the background of however long the phase took); memories
(requests) per second acknowledged and fully projected; request latency p50/p95/p99.
``/proc`` counts in clock ticks (10 ms): small phases are coarse.

**What Cassandra was asked.** Distributed, on one Cassandra node, each phase also prints
the partitions the node wrote and read per memory (per request), by table, from the
node's own counters (``loadtest.cassandra_census``): rows of one partition in one batch
count once, as the node applies them.

``--embedded`` measures the same phases against an embedded server as well (``ai-memory
serve`` with its defaults: SQLite log and records, Qdrant Edge index, all in one process,
``AIMEM_DATA_DIR`` in a temporary directory; encryption on, keys in force); done means
every in-process projection reached the last acknowledged position with lag 0.
``--only-embedded`` runs it alone, without servers. Output: a Markdown table per
deployment on stdout; ``--json PATH`` writes every number. ``--threads`` starts the
gateway with its OS threads named after its Python threads (cut at 15 characters) and
prints its CPU per unit by thread for every phase: the HTTP loop is "event loop", the
handlers "AnyIO worker th", Qdrant Edge's search pool "edge-search", the Cassandra
driver's reactor "event_loop", the co-located index "projector-index", the Kafka loops
"kafka-event-log" and the like. It prints the Kafka and Cassandra JVMs' CPU by thread
pool as well ("MutationStage", "C2 CompilerThre", "GC Thread#"...): how much of a JVM's
share is the work asked of it and how much its own compiler and collector.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import httpx

from ai_memory.core.access import generate_token
from loadtest import cassandra_census
from loadtest.bench_distributed import (
    JSON,
    RETRIES,
    batch_bodies,
    note,
    renamed,
    retrying,
    timed_put,
)
from loadtest.bench_embedded import percentile
from loadtest.cluster import CLI, Cluster, Proc, free_port, operator_key
from loadtest.corpus import QUERIES, TYPES, sentence
from loadtest.faults import Servers, profile
from loadtest.faults_check import worker_positions
from loadtest.positions import Acked, log_positions
from loadtest.proc_cpu import CpuWindow, server_pids, thread_cpu

#: The servers' ports when this benchmark starts its own: neither the shared 9092/9042
#: nor the fault suite's (29092/29042), so it can run while they do.
PORTS = {
    "AIMEM_KAFKA_PORT": "39092",  # its KRaft controller takes the next port
    "AIMEM_CASSANDRA_PORT": "39042",
    "AIMEM_CASSANDRA_STORAGE_PORT": "37000",  # and 37001 for SSL storage
    "AIMEM_CASSANDRA_JMX_PORT": "37199",
}
POLL_S = 0.25  # catch-up polling: often enough for the rates, rare enough to cost little
RECALL_FLUSH_S = 1.5  # the gateway appends batched recall events every 1 s (service/recalls.py)
#: What a process of the stack is not: the load's client and the rest of the machine.
NOT_STACK = ("bench", "rest of the box", "box busy")
#: Variables that would make ``serve`` distributed (or clash with the embedded server's own).
DISTRIBUTED_ENV = (
    "AIMEM_EVENT_LOG",
    "AIMEM_RECORD_STORE",
    "AIMEM_INDEX",
    "AIMEM_DATA_DIR",
    "AIMEM_PORT",
    "AIMEM_METRICS_PORT",
    "AIMEM_ADMIN_KEY",
)


@dataclass
class Options:
    warmup: int = 1_000
    idle_seconds: int = 10
    settle_seconds: float = 10.0  # after the warm-up, before the idle phase
    batch_memories: int = 4_000
    # The batch phase again and again, each round a row: what a memory costs as the
    # deployment grows (the index's compactions rebuild segments that grow with it).
    batch_rounds: int = 1
    batch_size: int = 200
    batch_clients: int = 4
    put_memories: int = 800
    put_clients: int = 16
    get_requests: int = 1_000
    search_requests: int = 200
    read_clients: int = 4
    # Memories are spread over this many scopes (``user:u0`` …), searches ask them in turn.
    scopes: int = 20
    # The search phase's queries: "repeat" cycles the corpus's ten (each query–scope pair
    # comes back every 10 × scopes searches: what caches love), "distinct" asks each
    # search a question of its own.
    search_queries: str = "repeat"
    # Seconds of nothing before the read phases: a big batch phase leaves the indexes'
    # compactions running (child processes), which are the writes' cost, not the reads'.
    pause_before_reads: float = 0.0
    timeout: float = 900.0  # per phase, for every view to catch up
    replay: bool = True  # then rebuild every view from offset 0 (``ai-memory replay``)
    threads: bool = False  # the gateway's and the JVMs' CPU by thread too (``--threads``)
    warm_jvms: bool = False  # warm up until the JVMs' compilers settle (``--warm-jvms``)
    index_worker: bool = True  # distributed: an index worker too (``--no-index-worker``)


@dataclass
class Phase:
    name: str
    unit: str  # what the CPU is divided by: "memory", "request" or "second"
    count: int
    acked_s: float  # wall time from the first request to the last answer
    done_s: float  # ... until every view caught up
    cpu_s: dict[str, float]  # per process (and the rest of the box)
    latency_ms: dict[str, float] = field(default_factory=dict)
    retried_503: dict[str, int] = field(default_factory=dict)
    caught_up_s: dict[str, float] = field(default_factory=dict)  # per view, from the start
    idle_cpu_per_s: dict[str, float] = field(default_factory=dict)  # the idle phase's
    # Log transactions the gateway's partition writers committed, and the events in them
    # (distributed only): how well concurrent appends share a transaction.
    transactions: int = 0
    transaction_events: int = 0
    # With ``--threads``: CPU ms per unit by thread name (digits dropped, so a pool's
    # threads add up) of the gateway and of each Kafka and Cassandra JVM, by process.
    threads_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    # Distributed, one Cassandra node: the partitions it wrote and read per unit, by table
    # (``loadtest.cassandra_census``): what the node was asked, in its own units.
    cassandra: dict[str, float] = field(default_factory=dict)

    def net_ms_per_unit(self) -> dict[str, float]:
        """CPU ms per unit above the idle background: what the phase's ``done_s`` of
        wall time would have cost anyway is taken off (empty without an idle phase)."""
        idle = self.idle_cpu_per_s
        return {
            n: 1000 * (s - idle[n] * self.done_s) / self.count
            for n, s in self.cpu_s.items()
            if n in idle and n not in NOT_STACK
        }

    def jit_ms(self) -> float | None:
        """CPU ms per unit the JVMs' JIT compilers spent in this phase (``--threads``
        only): part of the Kafka and Cassandra columns, start-up rather than the work asked
        of them while the JVMs are young."""
        jvms = [ms for n, ms in self.threads_ms.items() if is_jvm(n)]
        if not jvms:
            return None
        return sum(v for ms in jvms for n, v in ms.items() if COMPILER in n)

    def ms_per_unit(self) -> dict[str, float]:
        return {name: 1000 * s / self.count for name, s in self.cpu_s.items()}

    def stack_ms(self) -> float:
        return sum(v for n, v in self.ms_per_unit().items() if n not in NOT_STACK)

    def summary(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["cpu_ms_per_unit"] = {n: round(v, 3) for n, v in self.ms_per_unit().items()}
        out["stack_cpu_ms_per_unit"] = round(self.stack_ms(), 3)
        if self.idle_cpu_per_s and self.unit != "second":
            net = self.net_ms_per_unit()
            out["net_of_idle_cpu_ms_per_unit"] = {n: round(v, 3) for n, v in net.items()}
            out["stack_net_of_idle_cpu_ms_per_unit"] = round(sum(net.values()), 3)
        jit = self.jit_ms()
        if jit is not None:
            out["jvm_jit_cpu_ms_per_unit"] = round(jit, 3)
        if self.unit != "second":
            out["acked_per_s"] = self.count / self.acked_s
            out["done_per_s"] = self.count / self.done_s
        return out


class Deployment(Protocol):
    name: str
    url: str
    headers: dict[str, str]
    not_measured: list[str]  # processes of the stack whose CPU cannot be read
    # /healthz as the deployment's operator (of every tenant): positions and writers, which
    # a tenant's admin key, the clients', is not shown.
    http: httpx.Client

    def pids(self) -> dict[str, int]: ...
    def position_of(self, token: int) -> int: ...
    def wait_done(self, needed: dict[int, int], timeout: float) -> dict[str, float]: ...
    def replay_env(self) -> dict[str, str]: ...
    def stop_serving(self) -> None: ...
    def census(self) -> dict[str, int]: ...


def alive(procs: dict[str, Proc]) -> None:
    """A process that exited fails the run at once: it would never catch up."""
    for name, p in procs.items():
        if p.proc.poll() is not None:
            tail = p.log_path.read_text(errors="replace")[-4000:]
            raise AssertionError(f"{name} exited with {p.proc.returncode}:\n{tail}")


def health(http: httpx.Client) -> dict[str, Any] | None:
    try:
        body: dict[str, Any] = http.get("/healthz", timeout=10).json()
        return body
    except (httpx.HTTPError, ValueError):  # a loaded box: ask again
        return None


def writer_counts(http: httpx.Client) -> tuple[int, int]:
    """(transactions, events) the gateway's partition writers committed so far; (0, 0) on
    a log without writers (embedded). ``http`` must be the operator's client: a tenant's
    admin is not shown the writers, and every count read 0."""
    for _ in range(10):
        body = health(http)
        if body is not None:
            parts = body.get("writers", {}).get("partitions", [])
            return sum(p["transactions"] for p in parts), sum(p["events"] for p in parts)
    return 0, 0


class Distributed:
    """The gateway and one worker per view, on a fresh topic and keyspace."""

    name = "distributed"

    def __init__(
        self, tmp: Path, kafka: str, cassandra: str, run: Path | None, *, index_worker: bool = True
    ) -> None:
        self.cluster = Cluster(tmp, kafka, cassandra, keyed=True)
        # The gateway searches its co-located Qdrant Edge index, so an index worker here
        # keeps a copy nobody reads (where the index is a Qdrant server, the worker feeds
        # it and the gateway tails nothing): ``--no-index-worker`` measures the deployment
        # as docs/design/WRITE_PATH.md sizes it.
        self.projections = ("records", "index", "usage") if index_worker else ("records", "usage")
        self.url = self.cluster.url
        self.headers = self.cluster.headers
        self.run = run
        self.procs: dict[str, Proc] = {}
        servers = server_pids(run) if run else {}
        self.not_measured = [s for s in ("kafka", "cassandra") if not _has(servers, s)]
        self.log: Any = None
        self.replica: Any = None
        # /healthz details (positions, writers): the deployment's operator key of every
        # tenant, made when the gateway first starts (a tenant's admin key sees none).
        self.http = httpx.Client(base_url=self.url)
        self._positions: Callable[[int], int] | None = None
        self._census: Any = None  # a CassandraSession for ``census``, made at its first call

    def census(self) -> dict[str, int]:
        """The keyspace's partition writes and reads so far (``cassandra_census``); empty
        with several nodes, whose counters are each their own."""
        from ai_memory.adapters.cassandra import CassandraSession, parse_url

        if len(parse_url(self.cluster.store_url).hosts) != 1:
            return {}
        if self._census is None:
            self._census = CassandraSession.from_url(self.cluster.store_url)
        return cassandra_census.counts(self._census.session, self._census.keyspace)

    def start(self) -> None:
        from ai_memory.adapters.kafka.config import parse_kafka_url
        from ai_memory.adapters.kafka.event_log import KafkaEventLog
        from ai_memory.adapters.kafka.usage_replica import KafkaUsageReplica, changelog_topic
        from ai_memory.serialization import AvroEventSerializer

        c = self.cluster
        for attempt in range(1, 4):
            # Servers that just said ready can still time out a first connection on a
            # busy box (Cassandra creating its system tables, both JVMs compiling).
            try:
                c.start_gateway()
                break
            except AssertionError as e:
                if c.gateway is not None:
                    c.gateway.stop()
                if attempt == 3:
                    raise
                print(f"[cost] the gateway did not start ({str(e)[-200:]!r})", file=sys.stderr)
                time.sleep(10)
        assert c.gateway is not None
        self.http.headers.update(c.operator_headers)
        self.procs["gateway"] = c.gateway
        for projection in self.projections:
            self.procs[f"{projection} worker"] = c.start_worker(1, projection=projection)
        # Where the log ends (read-only: no writer joins) and how far the usage table
        # folded it, as a gateway reads it: the usage worker has no position metric.
        self.log = KafkaEventLog.from_url(c.log_url, AvroEventSerializer())
        config = parse_kafka_url(c.log_url)
        self.replica = KafkaUsageReplica(config, changelog_topic(config.topic))

    def pids(self) -> dict[str, int]:
        servers = server_pids(self.run) if self.run else {}
        return {n: p.proc.pid for n, p in self.procs.items()} | servers

    def position_of(self, token: int) -> int:
        """The log position of a token the gateway acknowledged a write with."""
        if self._positions is None:
            self._positions = self.cluster.log_positions()
        return self._positions(token)

    def wait_done(self, needed: dict[int, int], timeout: float) -> dict[str, float]:
        """Until every view reached the log's last event of every partition; when each
        did (``time.perf_counter()``). The workers' views are polled together; the
        gateway's once they are all there: its /healthz reads Kafka's end offsets and
        the records checkpoints, the dearest poll, and would weigh on its CPU."""
        heads = {p: max(self.log.last_position(p), needed.get(p, 0)) for p in self.log.partitions()}
        heads = {p: h for p, h in heads.items() if h}
        deadline = time.monotonic() + timeout
        reached: dict[str, float] = {}
        workers = tuple(f"{p} worker" for p in self.projections)
        for views in (workers, ("gateway",)):
            pending = list(views)
            while True:
                for view in list(pending):
                    if self._reached(view, heads):
                        reached[view] = time.perf_counter()
                        pending.remove(view)
                if not pending:
                    break
                alive(self.procs)
                if time.monotonic() > deadline:
                    raise AssertionError(f"{pending} did not reach {heads} in {timeout} s")
                time.sleep(POLL_S)
        return reached

    def _reached(self, view: str, heads: dict[int, int]) -> bool:
        at: dict[int, int]
        if view == "usage worker":
            at = self.replica.folded()
        elif view == "gateway":
            h = health(self.http)
            if h is None:
                return False
            return all(st["position"] >= heads.get(st["partition"], 0) for st in h["projections"])
        else:
            try:
                at = worker_positions(self.procs[view].metrics_port)
            except httpx.HTTPError:  # not serving yet, or busy
                return False
        return all(at.get(p, 0) >= h for p, h in heads.items())

    def replay_env(self) -> dict[str, str]:
        return self.cluster.env  # the gateway's log, store, vault and co-located index

    def stop_serving(self) -> None:
        for proc in self.procs.values():
            proc.stop()
        self.procs.clear()

    def stop(self) -> None:
        self.http.close()
        if self._census is not None:
            self._census.close()
        if self.replica is not None:
            self.replica.close()
        if self.log is not None:
            self.log.close()
        self.cluster.stop()


class Embedded:
    """``ai-memory serve`` with its embedded defaults, in a data directory of its own."""

    name = "embedded"

    def __init__(self, tmp: Path) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        self.tmp = tmp
        port = free_port()
        token = generate_token()
        self.url = f"http://127.0.0.1:{port}"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.not_measured: list[str] = []
        self.env = {k: v for k, v in os.environ.items() if k not in DISTRIBUTED_ENV}
        self.env |= {
            "AIMEM_DATA_DIR": str(tmp / "data"),
            "AIMEM_PORT": str(port),
            "AIMEM_ADMIN_KEY": token,  # keys in force, as in the distributed deployment
        }
        self.server: Proc | None = None
        self.named_threads = False  # ``--threads``: the server's OS threads named
        # /healthz details (positions, writers) need an operator key of every tenant with
        # keys in force (a tenant's admin key sees none); made before the server starts.
        self.http = httpx.Client(base_url=self.url)
        self._positions: Callable[[int], int] | None = None

    def start(self) -> None:
        self.http.headers.update(operator_key(self.env))
        self.server = Proc(
            ["serve"], self.env, self.tmp / "embedded.log", named_threads=self.named_threads
        )
        deadline = time.monotonic() + 180
        while health(self.http) is None:
            alive({"embedded server": self.server})
            if time.monotonic() > deadline:
                raise AssertionError("the embedded server did not start")
            time.sleep(0.2)

    def pids(self) -> dict[str, int]:
        return {} if self.server is None else {"server": self.server.proc.pid}

    def census(self) -> dict[str, int]:
        return {}  # no Cassandra

    def position_of(self, token: int) -> int:
        """The log position of a token the server acknowledged a write with (its key
        files exist once it started)."""
        if self._positions is None:
            self._positions = log_positions(self.env)
        return self._positions(token)

    def wait_done(self, needed: dict[int, int], timeout: float) -> dict[str, float]:
        assert self.server is not None
        deadline = time.monotonic() + timeout
        while True:
            h = health(self.http)
            if h is not None and all(
                st["lag"] == 0 and st["position"] >= needed.get(st["partition"], 0)
                for st in h["projections"]
            ):
                return {"server": time.perf_counter()}
            alive({"embedded server": self.server})
            if time.monotonic() > deadline:
                raise AssertionError(f"the embedded projections did not catch up: {h}")
            time.sleep(POLL_S)

    def replay_env(self) -> dict[str, str]:
        return self.env

    def stop_serving(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def stop(self) -> None:
        self.http.close()
        if self.server is not None:
            self.server.stop()


def _has(servers: dict[str, int], kind: str) -> bool:
    return any(name.rstrip("123") == kind for name in servers)


# ------------------------------------------------------------------------------- phases

Load = Callable[[httpx.Client, dict[int, int]], list[float]]


def measure(
    dep: Deployment,
    http: httpx.Client,
    name: str,
    unit: str,
    count: int,
    load: Load,
    opt: Options,
) -> Phase:
    """Run ``load`` (which returns its requests' latencies and notes the positions it
    was acknowledged at), then wait until every view caught up; CPU over both."""
    needed = Acked(dep.position_of)
    RETRIES.clear()
    print(f"[cost] {dep.name} {name}: started", file=sys.stderr)  # a mark for profilers
    before = writer_counts(dep.http)
    asked = dep.census()
    traced = by_threads_of(dep.pids()) if opt.threads else {}
    threads_before = {name: thread_cpu(pid) for name, pid in traced.items()}
    cpu = stack_window(dep)
    t0 = time.perf_counter()
    latencies = load(http, needed)
    acked = time.perf_counter() - t0
    if unit == "request":  # the reads' recall events, appended on the gateway's timer
        time.sleep(RECALL_FLUSH_S)
    reached = dep.wait_done(needed, opt.timeout)
    done = time.perf_counter() - t0
    used, children = cpu.seconds_and_children()
    views = {view: round(at - t0, 2) for view, at in reached.items()}
    lat = {
        f"p{round(q * 100)}": round(percentile(latencies, q) * 1000, 2) for q in (0.5, 0.95, 0.99)
    }
    phase = Phase(name, unit, count, acked, done, used, lat, dict(RETRIES), views)
    after = writer_counts(dep.http)
    phase.transactions, phase.transaction_events = after[0] - before[0], after[1] - before[1]
    print(f"[cost] {dep.name} {name}: {brief(phase)}", file=sys.stderr)
    phase.cassandra = cassandra_census.per_unit(asked, dep.census(), count)
    if phase.cassandra:
        said = cassandra_census.line(phase.cassandra, unit)
        print(f"[cost] {dep.name} {name}: cassandra {said}", file=sys.stderr)
    for process, pid in traced.items():
        try:
            ms = by_thread(
                threads_before[process],
                thread_cpu(pid),
                count,
                used.get(process),
                children.get(process, 0.0),
            )
        except OSError:  # it exited meanwhile
            continue
        phase.threads_ms[process] = ms
        shares = ", ".join(f"{n} {v:.2f}" for n, v in ms.items())
        print(f"[cost] {dep.name} {name}: {process} CPU ms per {unit}: {shares}", file=sys.stderr)
    return phase


def by_threads_of(pids: dict[str, int]) -> dict[str, int]:
    """The processes whose threads ``--threads`` reports: the gateway (threads named
    after its Python threads), the embedded server (and its child processes) and the
    JVMs, whose thread names say which of their stages spends the CPU
    (``MutationStage``, ``CompilerThread``, ``GC Thread``...)."""
    return {n: pid for n, pid in pids.items() if n in ("gateway", "server") or is_jvm(n)}


def is_jvm(process: str) -> bool:
    """A Kafka broker or Cassandra node (``kafka``, ``cassandra2``...)."""
    return process.rstrip("123") in ("kafka", "cassandra")  # as ``_has`` names them


#: What the JVMs' JIT compiler threads are called (``C1 CompilerThread0``, cut at 15).
COMPILER = "CompilerThre"


def by_thread(
    before: dict[tuple[str, str], float],
    after: dict[tuple[str, str], float],
    count: int,
    process_s: float | None = None,
    children_s: float = 0.0,
) -> dict[str, float]:
    """CPU ms per unit of each thread name (a pool's numbered threads summed), largest
    first, those under 0.01 left out.

    A thread is followed by its id, and its CPU goes to the name it has at the end:
    Cassandra's shared request pool renames a worker after the stage it serves at the
    moment (``Native-Transport-Requests``, ``MutationStage``, ``ReadStage``), so those
    three are one pool, reported as such. With ``process_s`` (the process's own CPU over
    the same window, its children's included) what threads that ended meanwhile used is
    reported too, and ``children_s`` of it as "child processes" (the index's optimiser)."""
    per = pool_seconds(before, after)
    if children_s > 0:
        per["child processes"] = children_s
    if process_s is not None:
        per["threads that ended"] = max(0.0, process_s - sum(per.values()))
    ms = {n: 1000 * v / max(count, 1) for n, v in per.items()}
    return {n: round(v, 2) for n, v in sorted(ms.items(), key=lambda kv: -kv[1]) if v >= 0.01}


def pool_seconds(
    before: dict[tuple[str, str], float], after: dict[tuple[str, str], float]
) -> dict[str, float]:
    """CPU seconds between two ``thread_cpu`` snapshots, by pool: a thread followed by its
    id, its numbers dropped from its name, Cassandra's shared request workers as one."""
    was = {tid: seconds for (tid, _), seconds in before.items()}
    per: dict[str, float] = {}
    for (tid, thread), seconds in after.items():
        name = re.sub(r"[-_ ]?\d+$", "", thread) or thread
        if name.startswith(SHARED_REQUEST_POOL):
            name = "request stages (shared pool)"
        per[name] = per.get(name, 0.0) + seconds - was.get(tid, 0.0)
    return per


#: Thread-name prefixes of Cassandra's ``SharedExecutorPool`` workers (``SEPWorker``),
#: which take the name of whichever stage they run a task for.
SHARED_REQUEST_POOL = (
    "Native-Transpor",
    "MutationStage",
    "ReadStage",
    "CounterMutation",
    "ViewMutationSta",
    "SharedPool-Work",
)


#: The views ``ai-memory replay`` rebuilds, in the order an operator would run them.
REPLAYED = ("records", "index")


def replay(dep: Deployment, projection: str, opt: Options) -> Phase:
    """The fleet's "rebuild the view" job: ``ai-memory replay --projection <view>`` from
    offset 0, in place, with whatever serves the view stopped first (as the command asks;
    ``stop_serving``). CPU: the replay process (its own rusage, exact to its exit), Kafka
    and Cassandra; per event replayed, as the command counts them."""
    print(f"[cost] {dep.name} replay {projection}: started", file=sys.stderr)
    cpu = stack_window(dep)  # the servers, if any, by now
    t0 = time.perf_counter()
    done = subprocess.run(
        [*CLI, "replay", "--projection", projection],
        env=dep.replay_env(),
        capture_output=True,
        text=True,
        timeout=opt.timeout,
        check=False,
    )
    elapsed = time.perf_counter() - t0
    used = cpu.seconds()
    found = re.search(
        rf"{projection}: (\d+) events in ([\d.]+)s .*?([\d.]+) ms of CPU per event", done.stderr
    )
    if done.returncode != 0 or found is None:
        raise AssertionError(f"replay {projection} failed ({done.returncode}):\n{done.stderr}")
    events = int(found.group(1))
    # The command's own figure: its CPU while replaying, its start-up (interpreter, model,
    # connections: seconds, whatever the log's length) left out. The window's "rest of
    # the box" held all of the process, start-up included.
    used["replay"] = float(found.group(3)) * events / 1000
    used["rest of the box"] = max(used.get("rest of the box", 0.0) - used["replay"], 0.0)
    took = float(found.group(2))  # the replay's own wall time: the rate is events / took
    phase = Phase(f"replay {projection}", "event", events, took, took, used)
    print(f"[cost] {dep.name} replay {projection}: {elapsed:.1f} s with start-up", file=sys.stderr)
    print(f"[cost] {dep.name} replay {projection}: {brief(phase)}", file=sys.stderr)
    return phase


def stack_window(dep: Deployment) -> CpuWindow:
    """Every process of the stack with its children, and this one (the clients) without
    them: its children are the stack."""
    return CpuWindow(dep.pids() | {"bench": os.getpid()}, alone=frozenset({"bench"}))


def idle(dep: Deployment, seconds: int) -> Phase:
    cpu = stack_window(dep)
    time.sleep(seconds)
    used = cpu.seconds()
    return Phase("idle", "second", seconds, seconds, seconds, used)


def in_pool(clients: int, send: Callable[[Any], float], work: list[Any]) -> list[float]:
    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(send, work))


def batch_load(count: int, size: int, clients: int, prefix: str, scopes: int = 20) -> Load:
    bodies = batch_bodies(count, size, prefix, scopes)  # encoded before the clock runs
    lock = threading.Lock()

    def load(http: httpx.Client, needed: dict[int, int]) -> list[float]:
        def send(body: tuple[int, bytes]) -> float:
            t = time.perf_counter()
            r = retrying(lambda: http.post("/v1/memories:batch", content=body[1], headers=JSON))
            took = time.perf_counter() - t
            r.raise_for_status()
            report = r.json()
            # after a retry, items the failed attempt did commit come back unchanged
            assert report["written"] + report["unchanged"] == body[0], str(report)[:600]
            with lock:
                for item in report["results"]:
                    note(needed, item.get("position"))
            return took

        return in_pool(clients, send, bodies)

    return load


def put_load(count: int, clients: int, prefix: str = "put", scopes: int = 20) -> Load:
    items = list(renamed(count, prefix, scopes))
    lock = threading.Lock()

    def load(http: httpx.Client, needed: dict[int, int]) -> list[float]:
        def put(item: dict[str, Any]) -> float:
            took, position = timed_put(http, item)
            with lock:
                note(needed, position)
            return took

        return in_pool(clients, put, items)

    return load


def get_load(count: int, clients: int, written: int, prefix: str = "batch") -> Load:
    rng = random.Random(11)
    ids = [f"{prefix}-{rng.randrange(written)}" for _ in range(count)]

    def load(http: httpx.Client, needed: dict[int, int]) -> list[float]:
        def get(memory_id: str) -> float:
            t = time.perf_counter()
            r = retrying(lambda: http.get(f"/v1/memories/{memory_id}"))
            took = time.perf_counter() - t
            assert r.status_code == 200, r.text[:600]
            return took

        return in_pool(clients, get, ids)

    return load


def distinct_queries(count: int, seed: int = 23) -> list[str]:
    """Questions each asked once: sentences of the corpus's vocabulary (another seed than
    the memories', numbered past them), in its five kinds."""
    rng = random.Random(seed)
    return [sentence(rng, TYPES[n % len(TYPES)], 10_000_000 + n) for n in range(count)]


def search_load(count: int, clients: int, scopes: int = 20, queries: str = "repeat") -> Load:
    asked = distinct_queries(count) if queries == "distinct" else QUERIES
    bodies = [
        {"query": asked[i % len(asked)], "scope": f"user:u{i % scopes}"} for i in range(count)
    ]

    def load(http: httpx.Client, needed: dict[int, int]) -> list[float]:
        def search(body: dict[str, Any]) -> float:
            t = time.perf_counter()
            r = retrying(lambda: http.post("/v1/memories/search", json=body))
            took = time.perf_counter() - t
            assert r.status_code == 200, r.text[:600]
            return took

        return in_pool(clients, search, bodies)

    return load


def warm_up(dep: Deployment, http: httpx.Client, opt: Options) -> None:
    """One round of every phase's requests, until every view caught up."""
    needed = Acked(dep.position_of)
    batch_load(opt.warmup, opt.batch_size, opt.batch_clients, "warm", opt.scopes)(http, needed)
    dep.wait_done(needed, max(opt.timeout, 600))  # the workers' start-up is in here
    put_load(opt.warmup // 5, opt.put_clients, "warm-put", opt.scopes)(http, needed)
    get_load(opt.warmup // 2, opt.read_clients, opt.warmup, "warm")(http, needed)
    search_load(opt.warmup // 10, opt.read_clients, opt.scopes)(http, needed)
    time.sleep(RECALL_FLUSH_S)
    dep.wait_done(needed, max(opt.timeout, 600))


#: ``--warm-jvms`` stops once the JVMs' JIT compilers spent less than this share of the
#: JVMs' CPU over a round of the warm-up, or after ``WARM_ROUNDS`` rounds.
SETTLED_COMPILE_SHARE = 0.05
WARM_ROUNDS = 15


def warm_jvms(dep: Deployment, http: httpx.Client, opt: Options) -> None:
    """More rounds of the warm-up until the JVMs stop compiling: a young JVM spends much
    of its CPU in its JIT compilers (``C1``/``C2 CompilerThread``) for minutes, which is
    start-up, not what a long-running broker or node spends per memory. A round's share
    is the compiler threads' CPU over the JVMs' whole CPU during the round."""
    jvms = {n: p for n, p in dep.pids().items() if is_jvm(n)}
    if not jvms:
        print(f"[cost] {dep.name}: no JVM measured, nothing to warm", file=sys.stderr)
        return
    for round_ in range(1, WARM_ROUNDS + 1):
        before = {n: thread_cpu(p) for n, p in jvms.items()}
        warm_up(dep, http, opt)
        compiled = total = 0.0
        for n, p in jvms.items():
            for pool, seconds in pool_seconds(before[n], thread_cpu(p)).items():
                total += seconds
                compiled += seconds if COMPILER in pool else 0.0
        share = compiled / total if total else 0.0
        print(
            f"[cost] {dep.name}: JVM warm-up round {round_}: compilers {compiled:.2f} s "
            f"of the JVMs' {total:.2f} s ({100 * share:.0f} %)",
            file=sys.stderr,
        )
        if share < SETTLED_COMPILE_SHARE:
            return
    print(f"[cost] {dep.name}: the JVMs still compile after {WARM_ROUNDS} rounds", file=sys.stderr)


def run_phases(dep: Deployment, opt: Options) -> list[Phase]:
    with httpx.Client(
        base_url=dep.url,
        headers=dep.headers,
        timeout=300,
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
    ) as http:
        # The warm-up: every process started, joined its group, opened its views and ran
        # every phase's requests (fresh JVMs compile each path as it gets hot: measured
        # in loadtest/RESULTS.md, it is much of a small run's cost); start-up is not what
        # a memory costs.
        print(f"[cost] {dep.name}: warm-up ({opt.warmup} memories)", file=sys.stderr)
        warm_up(dep, http, opt)
        if opt.warm_jvms:
            warm_jvms(dep, http, opt)
        # Fresh JVMs compile what the warm-up ran for seconds after it (and the servers
        # flush what it wrote): that is start-up, not the idle background.
        time.sleep(opt.settle_seconds)
        phases = [idle(dep, opt.idle_seconds)] if opt.idle_seconds > 0 else []
        steps: list[tuple[str, str, int, Load]] = [
            (
                name,
                "memory",
                opt.batch_memories,
                batch_load(opt.batch_memories, opt.batch_size, opt.batch_clients, name, opt.scopes),
            )
            for name in batch_rounds(opt.batch_rounds)
        ]
        steps += [
            (
                "put",
                "memory",
                opt.put_memories,
                put_load(opt.put_memories, opt.put_clients, scopes=opt.scopes),
            ),
            (
                "get",
                "request",
                opt.get_requests,
                get_load(opt.get_requests, opt.read_clients, opt.batch_memories),
            ),
            (
                "search",
                "request",
                opt.search_requests,
                search_load(opt.search_requests, opt.read_clients, opt.scopes, opt.search_queries),
            ),
        ]
        for name, unit, count, load in steps:
            if name == "get" and opt.pause_before_reads > 0:
                time.sleep(opt.pause_before_reads)
            if count > 0:
                phases.append(measure(dep, http, name, unit, count, load, opt))
    if phases and phases[0].unit == "second":
        rate = {n: v / phases[0].count for n, v in phases[0].cpu_s.items()}
        for phase in phases[1:]:
            phase.idle_cpu_per_s = rate
    if opt.replay:
        # Last: a replay rebuilds the views in place, with the serving processes stopped
        # (the idle row's rates were those of processes that no longer run: no "net").
        dep.stop_serving()
        phases += [replay(dep, view, opt) for view in REPLAYED]
    return phases


def batch_rounds(rounds: int) -> list[str]:
    """The batch phases' names, which are also their memory ids' prefixes: "batch" (the
    memories the get phase reads), then "batch2", "batch3"..."""
    return ["batch", *(f"batch{k}" for k in range(2, rounds + 1))]


# ------------------------------------------------------------------------------- output


def stack_columns(phases: list[Phase]) -> list[str]:
    names: list[str] = []
    for p in phases:
        names += [n for n in p.cpu_s if n not in NOT_STACK and n not in names]
    return names


def plural(p: Phase) -> str:
    return {"memory": "memories"}.get(p.unit, p.unit + "s")


def brief(p: Phase) -> str:
    ms = ", ".join(f"{n} {v:.2f}" for n, v in p.ms_per_unit().items() if n != "box busy")
    txn = (
        f"; {p.transaction_events / p.transactions:.1f} events per log transaction"
        if p.transactions
        else ""
    )
    return f"{p.count} {plural(p)} in {p.done_s:.1f} s; CPU ms per {p.unit}: {ms}{txn}"


def row(p: Phase, columns: list[str], not_measured: list[str], jit: bool) -> str:
    ms = p.ms_per_unit()
    cells = [p.name, f"{p.count:,} {plural(p)}"]
    # A blank: the process did not run in this phase (a replay's, or the replay itself).
    cells += [f"{ms[c]:.2f}" if c in ms else "n/m" if c in not_measured else "" for c in columns]
    at_least = "≥ " if not_measured else ""  # a server not measured
    cells.append(f"**{at_least}{p.stack_ms():.2f}**")
    net = p.net_ms_per_unit()
    cells.append(f"{at_least}{sum(net.values()):.2f}" if net else "")
    if jit:
        jit_ms = p.jit_ms()
        cells.append("" if jit_ms is None else f"{jit_ms:.2f}")
    cells.append(f"{ms['bench']:.2f}")
    cells.append(f"{ms['rest of the box']:.2f}")
    if p.unit == "second":
        cells += ["", "", "", ""]
    elif p.unit == "event":  # a replay: events applied per second, no requests
        cells += ["", f"{p.count / p.done_s:,.1f}", "", ""]
    else:
        cells += [
            f"{p.count / p.acked_s:,.1f}",
            # a read is done when answered; its wait covers the recall events' projection
            f"{p.count / p.done_s:,.1f}" if p.unit == "memory" else "",
            f"{p.latency_ms['p50']:.1f}",
            f"{p.latency_ms['p95']:.1f}",
        ]
    return "| " + " | ".join(cells) + " |"


def table(name: str, phases: list[Phase], not_measured: list[str]) -> str:
    columns = stack_columns(phases) + not_measured
    head = ["phase", "n", *columns, "stack total", "stack net of idle"]
    jit = any(p.jit_ms() is not None for p in phases)
    head += ["of which JVM JIT"] if jit else []
    head += ["client (bench)", "rest of the box"]
    head += ["acked /s", "fully projected /s", "p50 ms", "p95 ms"]
    lines = [
        f"{name}: CPU ms per memory (per request for get/search, per second for idle, per"
        " event for replay)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *(row(p, columns, not_measured, jit) for p in phases),
    ]
    caught = [
        f"{p.name}: " + ", ".join(f"{v} {t:.1f}" for v, t in p.caught_up_s.items())
        for p in phases
        if p.caught_up_s
    ]
    lines.append("\nEvery view caught up, s from the phase's first request: " + "; ".join(caught))
    if not_measured:
        lines.append(
            f"\nn/m: not measured ({', '.join(not_measured)}: no run directory with their pid"
            " files, --run-dir or AIMEM_LOCAL_RUN); the stack total (≥) leaves them out."
        )
    lines.append(
        "\nNet of idle: the stack total less what the idle row's rates would have cost over"
        " the phase's wall time (until fully projected). p50/p95: per request (a batch"
        " request carries --batch-size memories)."
    )
    if jit:
        lines.append(
            "\nOf which JVM JIT: what the Kafka and Cassandra JVMs' compiler threads (C1, C2)"
            " spent in the phase, part of their columns and of the totals."
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------- main


def own_servers(run: Path) -> Servers:
    """Single-node Kafka and Cassandra of this benchmark: the fault suite's profile on
    this benchmark's ports and run directory."""
    p = profile("single", run)
    env = {**p.env, **PORTS, "AIMEM_WAIT_TIMEOUT": "300"}  # a busy box starts slowly
    return Servers(
        dataclasses.replace(
            p,
            env=env,
            kafka=f"127.0.0.1:{PORTS['AIMEM_KAFKA_PORT']}",
            cassandra=f"127.0.0.1:{PORTS['AIMEM_CASSANDRA_PORT']}",
        )
    )


def run_distributed(args: argparse.Namespace, opt: Options, tmp: Path) -> dict[str, Any]:
    servers: Servers | None = None
    started = False
    if args.kafka or args.cassandra:
        assert args.kafka and args.cassandra, "--kafka and --cassandra go together"
        kafka, cassandra = args.kafka, args.cassandra
        env_run = os.environ.get("AIMEM_LOCAL_RUN")
        run = args.run_dir or (Path(env_run) if env_run else None)
    else:
        run = args.run_dir or Path(tempfile.gettempdir()) / "aimem-cost"
        servers = own_servers(run)
        kafka, cassandra = servers.p.kafka, servers.p.cassandra
        before = server_pids(run)
        started = not (_has(before, "kafka") and _has(before, "cassandra"))
        print(f"[cost] servers in {run} ({kafka}, {cassandra})", file=sys.stderr)
        servers.start_all()  # leaves a server already running there alone
    dep = Distributed(tmp / "distributed", kafka, cassandra, run, index_worker=opt.index_worker)
    dep.cluster.named_threads = opt.threads
    try:
        dep.start()
        phases = run_phases(dep, opt)
    finally:
        dep.stop()
        if servers is not None and started and not args.keep_servers:
            servers.stop_all()
    return {
        "kafka": kafka,
        "cassandra": cassandra,
        "run_dir": str(run) if run else None,
        "not_measured": dep.not_measured,
        "phases": phases,
    }


def run_embedded(opt: Options, tmp: Path) -> dict[str, Any]:
    dep = Embedded(tmp / "embedded")
    dep.named_threads = opt.threads
    try:
        dep.start()
        phases = run_phases(dep, opt)
    finally:
        dep.stop()
    return {"not_measured": [], "phases": phases}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--warmup", type=int, default=1_000, help="memories, not measured")
    parser.add_argument("--idle-seconds", type=int, default=10, help="0: no idle phase")
    parser.add_argument("--settle-seconds", type=float, default=10.0, help="before idle")
    parser.add_argument("--batch-memories", type=int, default=4_000)
    parser.add_argument(
        "--batch-rounds",
        type=int,
        default=1,
        help="the batch phase this many times in a row, a row each: the cost as the "
        "deployment grows by --batch-memories a round",
    )
    parser.add_argument("--batch-size", type=int, default=200, help="items per batch request")
    parser.add_argument("--batch-clients", type=int, default=4)
    parser.add_argument("--put-memories", type=int, default=800)
    parser.add_argument("--put-clients", type=int, default=16)
    parser.add_argument("--get-requests", type=int, default=1_000)
    parser.add_argument("--search-requests", type=int, default=200)
    parser.add_argument("--read-clients", type=int, default=4, help="get and search clients")
    parser.add_argument(
        "--scopes", type=int, default=20, help="memories spread over this many scopes"
    )
    parser.add_argument(
        "--search-queries",
        choices=["repeat", "distinct"],
        default="repeat",
        help="repeat: the corpus's ten queries in turn; distinct: a question per search",
    )
    parser.add_argument(
        "--pause-before-reads",
        type=float,
        default=0.0,
        help="seconds of nothing before the get and search phases (a big batch phase's "
        "index compactions finish: they are the writes' cost)",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="per phase, s")
    parser.add_argument("--kafka", help="host:port of a running Kafka (then no servers start)")
    parser.add_argument("--cassandra", help="host:port of a running Cassandra")
    parser.add_argument(
        "--run-dir",
        type=Path,
        help="servers.sh run directory: of the servers started here (default "
        "$TMPDIR/aimem-cost), or of the running ones (pid files, default AIMEM_LOCAL_RUN)",
    )
    parser.add_argument("--keep-servers", action="store_true", help="leave them running")
    parser.add_argument("--embedded", action="store_true", help="the embedded server too")
    parser.add_argument("--only-embedded", action="store_true", help="the embedded server only")
    parser.add_argument(
        "--no-replay", dest="replay", action="store_false", help="skip the replay phases"
    )
    parser.add_argument(
        "--threads",
        action="store_true",
        help="the gateway (the embedded server) started with its threads named, and its "
        "CPU by thread printed for every phase, its child processes' too, and the Kafka and "
        "Cassandra JVMs' by thread pool",
    )
    parser.add_argument(
        "--warm-jvms",
        action="store_true",
        help="distributed: repeat the warm-up until the JVMs' JIT compilers spend under "
        f"{SETTLED_COMPILE_SHARE * 100:.0f}%% of the JVMs' CPU in a round (at most {WARM_ROUNDS})",
    )
    parser.add_argument(
        "--no-index-worker",
        dest="index_worker",
        action="store_false",
        help="distributed: no index worker, the deployment WRITE_PATH.md sizes (the gateway "
        "searches its co-located index; the worker's own copy is read by nothing here)",
    )
    parser.add_argument("--json", type=Path, help="write every number here too")
    args = parser.parse_args(argv)
    assert args.batch_memories > 0 or not args.get_requests, "get reads the batch's memories"
    opt = Options(
        warmup=args.warmup,
        idle_seconds=args.idle_seconds,
        settle_seconds=args.settle_seconds,
        batch_memories=args.batch_memories,
        batch_rounds=args.batch_rounds,
        batch_size=args.batch_size,
        batch_clients=args.batch_clients,
        put_memories=args.put_memories,
        put_clients=args.put_clients,
        get_requests=args.get_requests,
        search_requests=args.search_requests,
        read_clients=args.read_clients,
        scopes=args.scopes,
        search_queries=args.search_queries,
        pause_before_reads=args.pause_before_reads,
        timeout=args.timeout,
        replay=args.replay,
        threads=args.threads,
        warm_jvms=args.warm_jvms,
        index_worker=args.index_worker,
    )
    out: dict[str, Any] = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "options": dataclasses.asdict(opt),
        "load_1m_start": os.getloadavg()[0],
        "cores": os.cpu_count(),
    }
    results: dict[str, dict[str, Any]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="aimem-cost-"))
    try:
        if not args.only_embedded:
            results["distributed"] = run_distributed(args, opt, tmp)
        if args.embedded or args.only_embedded:
            results["embedded"] = run_embedded(opt, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_1m_end"] = os.getloadavg()[0]
    for name, r in results.items():
        print(table(name, r["phases"], r["not_measured"]))
        print()
    start, end = out["load_1m_start"], out["load_1m_end"]
    print(f"1-minute load average {start:.2f} at the start, {end:.2f} at the end.")
    if args.json:
        out["deployments"] = {
            name: {**r, "phases": [p.summary() for p in r["phases"]]} for name, r in results.items()
        }
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
