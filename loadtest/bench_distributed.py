"""Distributed-mode benchmark: HTTP → Kafka → Cassandra + index, all on one box.

    deploy/local/servers.sh start all && deploy/local/servers.sh wait all
    python -m loadtest.bench_distributed --memories 20000 --json out.json

Runs the gateway (with its co-located Qdrant Edge index) and ``--records-workers``
records projector workers as real processes (see ``loadtest.cluster``) on a fresh topic
of ``--partitions`` partitions and a fresh keyspace, then measures, phase by phase
(``--phases``):

* ``import`` — NDJSON ``POST /v1/import`` in 500-record chunks from ``--import-clients``
  clients: acknowledged and fully projected rate;
* ``idle-lag`` — write→searchable on an idle system: write one memory, poll keyword
  search until it is found, 200 times in a row;
* ``search`` — search latency through the gateway;
* ``batch`` — ``POST /v1/memories:batch`` of ``--batch-size`` items from ``--clients``
  clients: acknowledged rate, fully projected rate (every projection's checkpoint of every
  partition at or past the highest acknowledged position of that partition) and request
  latency, with a probe measuring write→searchable lag during the load (a write, then a
  keyword search with ``min_position``) and the writers' transactions and events per
  transaction (``/healthz``);
* ``put`` — single ``PUT /v1/memories/{id}`` from ``--put-clients`` clients: acknowledged
  rate, p50/p95/p99 latency, fully projected rate, and the probe again;
* ``replay`` — the records projection rebuilt from offset 0 into a fresh keyspace.

Measuring starts once the records workers' consumer group has settled (a rebalance is
start-up, not throughput); a worker that exits fails the run at once. For every loaded
phase the CPU used by each process (gateway, workers, Kafka and Cassandra from the pid
files of ``servers.sh``'s run directory, ``AIMEM_LOCAL_RUN``; this process; the rest of
the box) is read from ``/proc``, in cores, so a miss can be put on what saturates. Servers
on other ports: ``AIMEM_KAFKA_PORT`` / ``AIMEM_CASSANDRA_PORT``. ``--py-spy FILE``
records the gateway with py-spy during the batch phase (collapsed stacks) when py-spy is
installed, and summarises the profile into the results.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ai_memory.adapters.cassandra.record_store import CassandraRecordStore
from ai_memory.adapters.kafka.event_log import KafkaEventLog
from ai_memory.projector.sinks import RecordsSink
from ai_memory.projector.tailer import ProjectionTailer, rebuild_all
from loadtest.bench_embedded import percentile
from loadtest.cluster import Cluster, Proc
from loadtest.corpus import QUERIES, memories
from loadtest.positions import Acked
from loadtest.proc_cpu import CpuWindow, server_pids

CHUNK = 500
PHASES = ("import", "idle-lag", "search", "batch", "put", "replay")

NDJSON = {"content-type": "application/x-ndjson"}
JSON = {"content-type": "application/json"}


def chunks(count: int) -> list[bytes]:
    out, batch = [], []
    for m in memories(count):
        batch.append(json.dumps({"kind": "record", "record": m}))
        if len(batch) == CHUNK:
            out.append(("\n".join(batch) + "\n").encode())
            batch = []
    if batch:
        out.append(("\n".join(batch) + "\n").encode())
    return out


def renamed(count: int, prefix: str, scopes: int = 20) -> Iterator[dict[str, Any]]:
    """The corpus under other ids: each phase writes new memories, never no-op upserts of
    the previous phase's (which would skip the log)."""
    for n, m in enumerate(memories(count, scopes=scopes)):
        yield m | {"id": f"{prefix}-{n}"}


def batch_bodies(count: int, size: int, prefix: str, scopes: int = 20) -> list[tuple[int, bytes]]:
    """(items, encoded body) per request, encoded up front so the clients only send."""
    items = list(renamed(count, prefix, scopes))
    return [
        (len(items[i : i + size]), json.dumps({"items": items[i : i + size]}).encode())
        for i in range(0, len(items), size)
    ]


# ------------------------------------------------------------------------------ probing


class LagProbe(threading.Thread):
    """While the load runs: write one memory carrying a unique token, search for it by
    keyword with ``min_position`` (the gateway answers once every projection passed the
    write) and poll if that missed, wait ``pause`` s, again. Records the time from the
    write's acknowledgement to the first search that finds it (``after_ack``) and from
    sending the write (``total``)."""

    def __init__(self, url: str, tag: str, pause: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.tag = tag
        self.pause = pause
        self.after_ack: list[float] = []
        self.total: list[float] = []
        self.errors: list[str] = []
        self.misses = 0  # searches that did not find a probe its wait said was projected
        self.halt = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as http:
            for n in itertools.count():
                if self.halt.is_set():
                    return
                try:
                    sent, acked, found = self.once(http, n)
                except (httpx.HTTPError, KeyError, TimeoutError) as e:  # counted; goes on
                    self.errors.append(repr(e))
                    self.halt.wait(self.pause)
                    continue
                self.after_ack.append(found - acked)
                self.total.append(found - sent)
                self.halt.wait(self.pause)

    def once(self, http: httpx.Client, n: int) -> tuple[float, float, float]:
        token = f"lag{self.tag}{n}x"
        scope = f"user:probe{n % 8}"  # scopes spread over partitions: each is sampled
        body = {
            "type": "fact",
            "content": f"Lag probe {n} carries {token}.",
            "scope": scope,
            "source_agent": "bench",
        }
        sent = time.perf_counter()
        r = http.put(f"/v1/memories/probe-{self.tag}-{n}", json=body)
        r.raise_for_status()
        acked = time.perf_counter()
        query = {"query": token, "mode": "keyword", "scope": scope, "top_k": 1}
        # The first search waits on the server (min_position) until the projections passed
        # the write: one request per probe instead of polling, so the probe is no load
        # of its own. Plain polling after it, in case the search still misses it.
        url = f"/v1/memories/search?min_position={r.json()['position']}"
        while not http.post(url, json=query).json().get("results"):
            if time.perf_counter() - acked > 60:
                raise TimeoutError(f"{token} not searchable after 60 s")
            self.misses += 1
            url = "/v1/memories/search"
            time.sleep(0.02)
        return sent, acked, time.perf_counter()

    def stop(self) -> None:
        self.halt.set()
        self.join()


def lag_stats(prefix: str, probe: LagProbe) -> dict[str, float]:
    if not probe.after_ack:
        return {f"{prefix}_lag_errors": len(probe.errors)}
    return {
        f"{prefix}_lag_samples": len(probe.after_ack),
        f"{prefix}_lag_errors": len(probe.errors),
        f"{prefix}_lag_search_misses": probe.misses,
        f"{prefix}_lag_after_ack_p50_ms": percentile(probe.after_ack, 0.5) * 1000,
        f"{prefix}_lag_after_ack_p95_ms": percentile(probe.after_ack, 0.95) * 1000,
        f"{prefix}_lag_from_send_p50_ms": percentile(probe.total, 0.5) * 1000,
        f"{prefix}_lag_from_send_p95_ms": percentile(probe.total, 0.95) * 1000,
    }


WORKERS: list[Proc] = []  # the records workers of the running deployment


def workers_alive() -> None:
    for w in WORKERS:
        if w.proc.poll() is not None:
            tail = w.log_path.read_text(errors="replace")[-4000:]
            raise WorkerDied(f"{w.log_path.name} exited with {w.proc.returncode}:\n{tail}")


class WorkerDied(AssertionError):
    pass


def wait_settled(workers: list[Proc], partitions: int, quiet: float = 5.0) -> None:
    """Until the records workers' consumer group stopped rebalancing: every worker that can
    have a partition got one, and no worker's assignment changed for ``quiet`` s. A
    rebalance in the middle of a measured phase is start-up, not throughput."""

    def assignments() -> list[int]:
        return [
            w.log_path.read_text(errors="replace").count("Setting newly assigned partitions")
            for w in workers
        ]

    deadline = time.monotonic() + 180
    last, since = assignments(), time.monotonic()
    while time.monotonic() < deadline:
        workers_alive()
        time.sleep(0.5)
        now = assignments()
        if now != last:
            last, since = now, time.monotonic()
        busy = sum(1 for n in now if n)  # a worker beyond the partition count stays idle
        if busy >= min(len(workers), partitions) and time.monotonic() - since >= quiet:
            return
    raise AssertionError(f"the records workers did not settle: {last}")


def wait_projected(
    http: httpx.Client,
    needed: dict[int, int],
    timeout: float = 1800,
    alive: Callable[[], None] | None = None,
) -> dict[str, float]:
    """Until every projection the gateway reports has, on every partition, a checkpoint at
    or past the highest position acknowledged there (lag 0 alone is not enough: the head
    a lag is computed from is itself refreshed by polling). Returns when each projection
    got there (``time.perf_counter()``), so the slower one can be named."""
    deadline = time.monotonic() + timeout
    health: dict[str, Any] = {}
    done: dict[str, float] = {}
    while time.monotonic() < deadline:
        (alive or workers_alive)()  # a dead worker never catches up: fail now
        try:
            health = http.get("/healthz", timeout=10).json()
        except httpx.TransportError:  # a loaded box: ask again
            time.sleep(0.1)
            continue
        behind = {
            st["projection"]
            for st in health["projections"]
            if st["position"] < needed.get(st["partition"], 0) or st["lag"]
        }
        now = time.perf_counter()
        for st in health["projections"]:
            if st["projection"] not in behind:
                done.setdefault(st["projection"], now)
        if not behind:
            return done
        time.sleep(0.1)
    raise AssertionError(f"projections did not catch up: {health}")


def writer_totals(http: httpx.Client) -> tuple[int, int]:
    """(transactions, events) committed so far by this gateway's partition writers, as
    ``/healthz`` reports them; (0, 0) when it does not."""
    writers = http.get("/healthz", timeout=30).json().get("writers", {})
    parts = writers.get("partitions", ())
    return sum(w.get("transactions", 0) for w in parts), sum(w.get("events", 0) for w in parts)


def note(needed: dict[int, int], token: int | None) -> None:
    """Note a write's acknowledgement: ``needed`` is an ``Acked``, which decodes the
    tenant's token into the log position every projection must reach."""
    assert isinstance(needed, Acked), "the positions a load needs are an Acked"
    needed.note(token)


# ------------------------------------------------------------------------------- phases


@dataclass
class Options:
    memories: int = 20_000
    clients: int = 4
    batch_size: int = 500
    put_memories: int = 8_000
    put_clients: int = 16
    import_clients: int = 4
    partitions: int = 4
    records_workers: int = 2
    phases: tuple[str, ...] = PHASES
    py_spy: Path | None = None


def run_import(http: httpx.Client, opt: Options) -> dict[str, float]:
    bodies = chunks(opt.memories)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(opt.import_clients) as pool:
        reports = list(
            pool.map(lambda b: http.post("/v1/import", content=b, headers=NDJSON).json(), bodies)
        )
    acked = time.perf_counter() - t0
    assert sum(r["written"] for r in reports) == opt.memories, reports[:1]
    wait_projected(http, {})
    projected = time.perf_counter() - t0
    return {
        "import_acked_per_s": opt.memories / acked,
        "import_projected_per_s": opt.memories / projected,
    }


def run_idle_lag(http: httpx.Client) -> dict[str, float]:
    lags: list[float] = []
    for n in range(200):
        token = f"lagprobe{n}x"
        body = {
            "type": "fact",
            "content": f"Lag probe {n} carries {token}.",
            "scope": "user:probe",
            "source_agent": "bench",
        }
        http.post("/v1/memories", json=body).raise_for_status()
        start = time.perf_counter()
        query = {"query": token, "mode": "keyword", "scope": "user:probe", "top_k": 1}
        while not http.post("/v1/memories/search", json=query).json()["results"]:
            time.sleep(0.005)
        lags.append(time.perf_counter() - start)
    return {
        "idle_write_to_searchable_p50_ms": percentile(lags, 0.5) * 1000,
        "idle_write_to_searchable_p95_ms": percentile(lags, 0.95) * 1000,
    }


def run_search(http: httpx.Client) -> dict[str, float]:
    lat: list[float] = []
    for i in range(500):
        body = {"query": QUERIES[i % len(QUERIES)], "scope": f"user:u{i % 20}"}
        t = time.perf_counter()
        http.post("/v1/memories/search", json=body).raise_for_status()
        lat.append(time.perf_counter() - t)
    return {
        "search_gateway_p50_ms": percentile(lat, 0.5) * 1000,
        "search_gateway_p95_ms": percentile(lat, 0.95) * 1000,
    }


def loaded(
    name: str,
    cluster_url: str,
    pids: dict[str, int],
    load: Callable[[dict[int, int]], dict[str, float]],
    http: httpx.Client,
    count: int,
    position_of: Callable[[int], int],
) -> dict[str, Any]:
    """Run ``load`` with the lag probe alongside, then wait until it is fully projected;
    rates are per second of wall time from the first request. ``position_of``: the log
    position of a token the writes were acknowledged with (``Cluster.log_positions``)."""
    needed = Acked(position_of)
    probe = LagProbe(cluster_url, name)
    before = writer_totals(http)
    cpu = CpuWindow(pids)
    t0 = time.perf_counter()
    probe.start()
    out: dict[str, Any] = load(needed)
    acked = time.perf_counter() - t0
    probe.stop()
    cpu_acked = cpu.cores()
    after = writer_totals(http)
    if after[0] > before[0]:  # group commit: how many appends each transaction carried
        out[f"{name}_transactions_per_s"] = (after[0] - before[0]) / acked
        out[f"{name}_events_per_transaction"] = (after[1] - before[1]) / (after[0] - before[0])
    caught_up = wait_projected(http, needed)
    projected = time.perf_counter() - t0
    for projection, at in caught_up.items():
        out[f"{name}_{projection}_projected_per_s"] = count / (at - t0)
    out[f"{name}_retried_503"] = dict(RETRIES)
    RETRIES.clear()
    out[f"{name}_acked_per_s"] = count / acked
    out[f"{name}_projected_per_s"] = count / projected
    out[f"{name}_acked_s"] = acked
    out[f"{name}_projected_s"] = projected
    out |= lag_stats(name, probe)
    out[f"{name}_cpu_cores_until_acked"] = cpu_acked
    out[f"{name}_cpu_cores_until_projected"] = cpu.cores()
    return out


RETRIES: dict[str, int] = {}
_retries_lock = threading.Lock()


def retrying(send: Callable[[], httpx.Response]) -> httpx.Response:
    """Send; on 503 (no owner for a partition yet, a transaction that failed) wait as the
    answer says and send again, as a client must. Retries are counted by problem code
    and reported: a run with many is not a clean measurement."""
    for _ in range(30):
        r = send()
        if r.status_code != 503:
            return r
        code = r.json().get("code", "503") if r.content else "503"
        with _retries_lock:
            RETRIES[code] = RETRIES.get(code, 0) + 1
        time.sleep(min(float(r.headers.get("retry-after", "0.2")), 1.0))
    return r


def run_batch(
    http: httpx.Client,
    opt: Options,
    pids: dict[str, int],
    url: str,
    position_of: Callable[[int], int],
) -> dict[str, Any]:
    bodies = batch_bodies(opt.memories, opt.batch_size, "batch")
    latencies: list[float] = []
    lock = threading.Lock()

    def load(needed: dict[int, int]) -> dict[str, float]:
        def send(body: tuple[int, bytes]) -> None:
            t = time.perf_counter()
            r = retrying(lambda: http.post("/v1/memories:batch", content=body[1], headers=JSON))
            took = time.perf_counter() - t
            r.raise_for_status()
            report = r.json()
            # after a retry, items the failed attempt did commit come back unchanged
            done = report["written"] + report["unchanged"]
            assert done == body[0] and not report["rejected"], str(report)[:600]
            with lock:
                latencies.append(took)
                for item in report["results"]:
                    note(needed, item.get("position"))

        with ThreadPoolExecutor(opt.clients) as pool:
            list(pool.map(send, bodies))
        return {
            "batch_request_p50_ms": percentile(latencies, 0.5) * 1000,
            "batch_request_p95_ms": percentile(latencies, 0.95) * 1000,
        }

    spy = start_py_spy(opt.py_spy, pids.get("gateway"))
    try:
        out = loaded("batch", url, pids, load, http, opt.memories, position_of)
    finally:
        stop_py_spy(spy)
    if spy is not None and opt.py_spy is not None and opt.py_spy.exists():
        out["batch_gateway_profile"] = spy_summary(opt.py_spy)
    return out


def timed_put(http: httpx.Client, item: dict[str, Any]) -> tuple[float, int]:
    """``PUT`` one memory (``item`` with its ``id``), retried: its latency and position."""
    body = {k: v for k, v in item.items() if k != "id"}
    t = time.perf_counter()
    r = retrying(lambda: http.put(f"/v1/memories/{item['id']}", json=body))
    took = time.perf_counter() - t
    assert r.status_code in (200, 201), r.text[:600]  # 200: a retry found it written
    position: int = r.json()["position"]
    return took, position


def run_put(
    http: httpx.Client,
    opt: Options,
    pids: dict[str, int],
    url: str,
    position_of: Callable[[int], int],
) -> dict[str, Any]:
    items = list(renamed(opt.put_memories, "put"))
    latencies: list[float] = []
    lock = threading.Lock()

    def load(needed: dict[int, int]) -> dict[str, float]:
        def put(item: dict[str, Any]) -> None:
            took, position = timed_put(http, item)
            with lock:
                latencies.append(took)
                note(needed, position)

        with ThreadPoolExecutor(opt.put_clients) as pool:
            list(pool.map(put, items))
        return {
            "put_p50_ms": percentile(latencies, 0.5) * 1000,
            "put_p95_ms": percentile(latencies, 0.95) * 1000,
            "put_p99_ms": percentile(latencies, 0.99) * 1000,
        }

    return loaded("put", url, pids, load, http, opt.put_memories, position_of)


def run_replay(cluster: Cluster) -> dict[str, float]:
    log_url, store_url = cluster.log_url, cluster.store_url
    log = KafkaEventLog.from_url(log_url, cluster.serializer())
    fresh = CassandraRecordStore.from_url(store_url + "_replay")
    try:
        tailers = [ProjectionTailer(log, RecordsSink(fresh), partition=p) for p in log.partitions()]
        t = time.perf_counter()
        applied = rebuild_all(tailers)
        return {"replay_records_cassandra_per_s": applied / (time.perf_counter() - t)}
    finally:
        log.close()
        fresh.close()


def start_py_spy(out: Path | None, pid: int | None) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if out is None or pid is None or spy is None:
        return None
    args = ["record", "--pid", str(pid), "--format", "raw", "--output", str(out)]
    # --nonblocking: sampling never pauses the gateway, so the rates stay comparable
    args += ["--rate", "100", "--nonblocking", "--threads"]
    return subprocess.Popen([spy, *args], stdout=subprocess.DEVNULL)


def stop_py_spy(spy: subprocess.Popen[bytes] | None) -> None:
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
        spy.wait(60)


# Leaf frames of a thread that waits (py-spy cannot always tell idle threads apart).
WAITING = ("select (selectors.py", "Condition.wait (", "_run_loop (", "sleep (", "Event.wait (")


def spy_summary(path: Path, top: int = 20) -> dict[str, Any]:
    """Shares of the gateway's samples: per thread, per leaf function (self time) and per
    function of ours anywhere on the stack (inclusive); waiting stacks are left out."""
    total = busy = 0
    threads: Counter[str] = Counter()
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        stack, count = line.rsplit(" ", 1)
        n = int(count)
        thread, *frames = stack.split(";")
        name = re.sub(r" \(\d+\)", "", thread)
        frames = [re.sub(r" \(([^:]*):\d+\)$", r" (\1)", f) for f in frames]
        total += n
        if frames and any(frames[-1].startswith(w) or w in frames[-1] for w in WAITING):
            continue
        busy += n
        threads[name] += n
        if frames:
            own[frames[-1]] += n
        for f in {f for f in frames if "ai_memory/" in f}:  # our code: where to act
            inclusive[f] += n

    def share(c: Counter[str]) -> dict[str, float]:
        return {k: round(v / max(total, 1), 3) for k, v in c.most_common(top)}

    return {
        "samples": total,
        "busy_share": round(busy / max(total, 1), 3),
        "threads": share(threads),
        "self": share(own),
        "inclusive": share(inclusive),
    }


def run(opt: Options) -> dict[str, Any]:

    kafka = f"127.0.0.1:{os.environ.get('AIMEM_KAFKA_PORT', '9092')}"
    cassandra = f"127.0.0.1:{os.environ.get('AIMEM_CASSANDRA_PORT', '9042')}"
    tmp = Path(tempfile.mkdtemp(prefix="aimem-bench-"))
    cluster = Cluster(tmp, kafka, cassandra)
    # A fresh topic per run (the cluster's name is unique) with the partitions asked for.
    cluster.log_url = cluster.log_url.replace("partitions=4", f"partitions={opt.partitions}")
    cluster.env["AIMEM_EVENT_LOG"] = cluster.log_url
    out: dict[str, Any] = {
        "memories": opt.memories,
        "clients": opt.clients,
        "batch_size": opt.batch_size,
        "put_memories": opt.put_memories,
        "put_clients": opt.put_clients,
        "partitions": opt.partitions,
        "records_workers": opt.records_workers,
        "load_before": os.getloadavg(),
    }
    try:
        cluster.start_gateway()
        assert cluster.gateway is not None
        for n in range(opt.records_workers):
            cluster.start_worker(n + 1)
        WORKERS[:] = cluster.workers
        wait_settled(cluster.workers, opt.partitions)
        pids = server_pids() | {"gateway": cluster.gateway.proc.pid, "bench": os.getpid()}
        pids |= {f"records-{n + 1}": w.proc.pid for n, w in enumerate(cluster.workers)}
        with httpx.Client(
            base_url=cluster.url,
            timeout=300,
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
        ) as http:
            wait_projected(http, {}, timeout=120)  # the workers joined and caught up
            # One write before any clock runs: the gateway owns its partitions and has
            # restored their heads; what start-up costs is not part of a rate.
            warm = {"type": "fact", "content": "warm-up", "scope": "user:warm", "source_agent": "b"}
            retrying(lambda: http.put("/v1/memories/warm-up", json=warm)).raise_for_status()
            RETRIES.clear()
            if "import" in opt.phases:
                out |= run_import(http, opt)
            if "idle-lag" in opt.phases:
                out |= run_idle_lag(http)
            if "search" in opt.phases:
                out |= run_search(http)
            if "batch" in opt.phases:
                out |= run_batch(http, opt, pids, cluster.url, cluster.log_positions())
            if "put" in opt.phases:
                out |= run_put(http, opt, pids, cluster.url, cluster.log_positions())
        cluster.stop()
        if "replay" in opt.phases:
            out |= run_replay(cluster)
    finally:
        WORKERS.clear()
        cluster.stop()
        out["load_after"] = os.getloadavg()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def table(out: dict[str, Any]) -> str:
    lines = [
        f"| metric | {out['memories']:,} memories, {out['clients']} batch clients, "
        f"{out['put_clients']} PUT clients, {out['partitions']} partitions, "
        f"{out['records_workers']} records workers |",
        "|---|---|",
    ]
    for key, value in out.items():
        if isinstance(value, float):
            lines.append(f"| {key} | {value:,.1f} |")
        elif isinstance(value, dict):
            lines.append(f"| {key} | {', '.join(f'{k} {v}' for k, v in value.items())} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=20_000, help="per import/batch phase")
    parser.add_argument("--clients", type=int, default=4, help="concurrent batch clients")
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--put-memories", type=int, default=8_000)
    parser.add_argument("--put-clients", type=int, default=16)
    parser.add_argument("--import-clients", type=int, default=4)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--records-workers", type=int, default=2)
    parser.add_argument("--phases", default=",".join(PHASES), help=f"any of {PHASES}")
    parser.add_argument("--py-spy", type=Path, help="collapsed gateway stacks of the batch phase")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    phases = tuple(p for p in args.phases.split(",") if p)
    assert set(phases) <= set(PHASES), f"unknown phase in {phases}"
    out = run(
        Options(
            memories=args.memories,
            clients=args.clients,
            batch_size=args.batch_size,
            put_memories=args.put_memories,
            put_clients=args.put_clients,
            import_clients=args.import_clients,
            partitions=args.partitions,
            records_workers=args.records_workers,
            phases=phases,
            py_spy=args.py_spy,
        )
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    print(table(out))


if __name__ == "__main__":
    main()
