"""The fault suite: kill every process under sustained writes, then check every
acknowledgement (``loadtest/faults_check.py`` says what is checked and how).

    python -m loadtest.faults --profile single            # every fault, single-node servers
    python -m loadtest.faults --profile cluster           # three brokers, three Cassandra nodes
    python -m loadtest.faults --profile single --faults records-worker,cassandra

Each fault runs on a fresh deployment (its own topic and keyspace): a gateway
(``ai-memory serve``), two records workers, one index worker and one usage worker, real
processes. Writers (``loadtest/faults_load.py``) run throughout; the fault is injected
after a warm-up, held, undone (restart or SIGCONT), writes go on, then stop; once every
view caught up, the checks run with no manual step. Per fault: acknowledged writes, lost,
duplicated, reordered, version gaps, unsearchable, usage miscounted (the usage table
against the log's live memories), write availability during the fault (share of
requests started between injection and recovery that were acknowledged) and the time
to recover (from undoing the fault until a new write is acknowledged and readable).

The suite starts its own Kafka and Cassandra with ``deploy/local/servers.sh`` in their own
run directory and ports (never the servers the test suite shares on 9092/9042), kills
them with SIGKILL and restarts them on the same data.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from loadtest.cluster import Cluster, Proc
from loadtest.faults_check import (
    LogUsage,
    Verdict,
    check_gateway,
    check_log,
    check_usage,
    check_worker_index,
    read_log,
    usage_counting,
    wait_caught_up,
    worker_positions,
)
from loadtest.faults_load import Load

ROOT = Path(__file__).resolve().parents[1]
SERVERS_SH = ROOT / "deploy" / "local" / "servers.sh"

FAULTS = (
    "records-worker",
    "index-worker",
    "usage-worker",
    "gateway",
    "gateway-kafka-down",
    "kafka",
    "cassandra",
    "sigstop-worker",
    "sigstop-index-worker",
    "sigstop-cassandra",
)


@dataclass(frozen=True)
class Profile:
    name: str
    env: dict[str, str]  # for servers.sh
    kafka: str
    cassandra: str
    replication: int
    kafka_nodes: tuple[str, ...]  # servers.sh names
    cassandra_nodes: tuple[str, ...]
    servers: str  # what `servers.sh start` starts


def profile(name: str, run_dir: Path) -> Profile:
    if name == "single":
        env = {
            "AIMEM_LOCAL_RUN": str(run_dir),
            "AIMEM_KAFKA_PORT": "29092",
            "AIMEM_CASSANDRA_PORT": "29042",
            "AIMEM_CASSANDRA_STORAGE_PORT": "27000",
            "AIMEM_CASSANDRA_JMX_PORT": "27199",
        }
        return Profile(
            name, env, "127.0.0.1:29092", "127.0.0.1:29042", 1, ("kafka",), ("cassandra",), "all"
        )
    hosts = ("127.0.0.1", "127.0.0.2", "127.0.0.3")
    return Profile(
        name,
        {"AIMEM_LOCAL_RUN": str(run_dir)},
        ",".join(f"{h}:19092" for h in hosts),
        ",".join(f"{h}:19042" for h in hosts),
        3,
        ("kafka1", "kafka2", "kafka3"),
        ("cassandra1", "cassandra2", "cassandra3"),
        "cluster",
    )


class Servers:
    """Kafka and Cassandra of one profile, through ``deploy/local/servers.sh``."""

    def __init__(self, p: Profile) -> None:
        self.p = p
        self.env = {**os.environ, **p.env}
        self.run_dir = Path(p.env["AIMEM_LOCAL_RUN"])

    def sh(self, *args: str, keep: bool = True) -> None:
        env = {**self.env, "AIMEM_KEEP_DATA": "1" if keep else "0"}
        subprocess.run([str(SERVERS_SH), *args], env=env, check=True)

    def start_all(self) -> None:
        self.sh("start", self.p.servers, keep=False)
        self.sh("wait", self.p.servers)

    def stop_all(self) -> None:
        self.sh("stop", self.p.servers)

    def kill(self, svc: str) -> None:
        pid = int((self.run_dir / f"{svc}.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        while Path(f"/proc/{pid}").exists() and "Z" not in _state(pid):
            time.sleep(0.05)

    def restart(self, svc: str) -> None:
        self.sh("start", svc)
        self.sh("wait", svc)

    def send_signal(self, svc: str, sig: signal.Signals) -> None:
        os.kill(int((self.run_dir / f"{svc}.pid").read_text()), sig)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "Z"


@dataclass
class Timing:
    hold: float = 10.0  # how long a kill lasts before the restart
    stop_hold: float = 30.0  # how long SIGSTOP lasts
    warm: float = 10.0
    after: float = 15.0
    join: float = 5.0
    ids: int = 300
    clients: int = 4


@dataclass
class Row:
    fault: str
    profile: str
    acked: int
    lost: int
    duplicated: int
    reordered: int
    gaps: int
    unsearchable: int
    worker_index_missing: int
    usage_wrong: int
    availability: float
    recover_s: float
    details: list[str]
    # Why the requests of the fault window that were not acknowledged failed: the
    # client's exception or the HTTP status, with how many (what availability hides).
    failures: dict[str, int] = field(default_factory=dict)


def run_fault(fault: str, p: Profile, servers: Servers | None, t: Timing, tmp: Path) -> Row:
    """One fault on a fresh deployment. ``servers`` may be None for faults of the
    project's own processes (workers, gateway), which never touch Kafka or Cassandra."""
    # A folder of its own for every run, a repeated fault too: a deployment given the
    # index folders of an earlier one (another topic) would trust their checkpoints.
    home = tmp / fault
    n = 1
    while home.exists():
        n += 1
        home = tmp / f"{fault}-{n}"
    deploy = Cluster(home, p.kafka, p.cassandra, replication=p.replication, keyed=True)
    deploy.env["AIMEM_WAIT_TIMEOUT"] = "30"
    load = Load(deploy.url, t.ids, t.clients, headers=deploy.headers)
    try:
        deploy.start_gateway()
        workers = [deploy.start_worker(1), deploy.start_worker(2)]
        indexer = [deploy.start_worker(1, projection="index")]  # replaced on restart
        usage = [deploy.start_worker(1, projection="usage")]
        time.sleep(t.join)  # the workers join their groups
        load.start()
        time.sleep(t.warm)
        if not usage_counting(deploy.log_url, timeout=120):  # before killing what is not up
            print("[faults] the usage worker counted nothing yet", file=sys.stderr)
        inject, undo = _fault(fault, p, servers, deploy, workers, indexer, usage)
        started = time.monotonic()
        inject()
        time.sleep(t.stop_hold if fault.startswith("sigstop") else t.hold)
        undone = time.monotonic()
        undo()
        recovered = _probe(deploy.url, deploy.headers, deadline=undone + 300)
        time.sleep(t.after)
        load.stop()
        verdict = _verify(deploy, indexer[0], load, tmp / fault)
    finally:
        load.stop()
        for w in deploy.workers:  # a stopped process cannot be stopped: wake it first
            if w.proc.poll() is None:
                os.kill(w.proc.pid, signal.SIGCONT)
        if fault == "sigstop-cassandra" and servers is not None:
            servers.send_signal(p.cassandra_nodes[0], signal.SIGCONT)
        deploy.stop()
    outcomes = [o for o in load.snapshot() if started <= o.started <= recovered]
    availability = sum(o.ok for o in outcomes) / len(outcomes) if outcomes else 1.0
    failures = Counter(o.error for o in outcomes if not o.ok)
    return Row(
        fault,
        p.name,
        verdict.acked,
        verdict.lost,
        verdict.duplicated,
        verdict.reordered,
        verdict.gaps,
        verdict.unsearchable,
        verdict.worker_index_missing,
        verdict.usage_wrong,
        round(availability, 3),
        round(recovered - undone, 1),
        verdict.details,
        dict(failures.most_common()),
    )


def _fault(
    fault: str,
    p: Profile,
    servers: Servers | None,
    deploy: Cluster,
    workers: list[Proc],
    indexer: list[Proc],
    usage: list[Proc],
) -> tuple[Callable[[], None], Callable[[], None]]:
    """(inject, undo) for one fault."""
    kafka, cassandra = p.kafka_nodes[0], p.cassandra_nodes[0]

    def srv() -> Servers:
        if servers is None:
            raise SystemExit(f"{fault} kills a server: run it on servers of its own")
        return servers

    def restart_index_worker() -> None:
        indexer[0] = deploy.start_worker(2, projection="index")

    if fault == "records-worker":
        return workers[0].kill, lambda: workers.append(deploy.start_worker(3))
    if fault == "index-worker":
        return indexer[0].kill, restart_index_worker
    if fault == "usage-worker":
        return usage[0].kill, lambda: usage.append(deploy.start_worker(2, projection="usage"))
    if fault == "gateway":
        return _kill_gateway(deploy), deploy.start_gateway
    if fault == "gateway-kafka-down":
        # Every broker down (on the cluster two of three are enough: no ISR quorum), so
        # appends hang; then the gateway dies with them in flight.
        down = p.kafka_nodes[:2] if len(p.kafka_nodes) > 1 else p.kafka_nodes

        def inject() -> None:
            for svc in down:
                srv().kill(svc)
            time.sleep(3)
            _kill_gateway(deploy)()

        def undo() -> None:
            for svc in down:
                srv().restart(svc)
            deploy.start_gateway()

        return inject, undo
    if fault == "kafka":
        return lambda: srv().kill(kafka), lambda: srv().restart(kafka)
    if fault == "cassandra":
        return lambda: srv().kill(cassandra), lambda: srv().restart(cassandra)
    if fault == "sigstop-worker":
        pid = workers[0].proc.pid
        return lambda: os.kill(pid, signal.SIGSTOP), lambda: os.kill(pid, signal.SIGCONT)
    if fault == "sigstop-index-worker":  # the only one: its partitions wait for it
        pid = indexer[0].proc.pid
        return lambda: os.kill(pid, signal.SIGSTOP), lambda: os.kill(pid, signal.SIGCONT)
    if fault == "sigstop-cassandra":
        # A node that freezes (a long GC, a stuck disk) is worse for clients than one
        # that dies: its sockets stay open and nothing answers or fails.
        return (
            lambda: srv().send_signal(cassandra, signal.SIGSTOP),
            lambda: srv().send_signal(cassandra, signal.SIGCONT),
        )
    raise SystemExit(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")


def _kill_gateway(deploy: Cluster) -> Callable[[], None]:
    def kill() -> None:
        assert deploy.gateway is not None
        deploy.gateway.kill()

    return kill


def _probe(url: str, headers: dict[str, str], deadline: float) -> float:
    """When a fresh write is acknowledged and then readable through the gateway."""
    n = 0
    with httpx.Client(base_url=url, headers=headers, timeout=5) as http:
        while time.monotonic() < deadline:
            n += 1
            body = {"type": "fact", "scope": "user:probe", "source_agent": "probe"}
            try:
                r = http.put(f"/v1/memories/probe-{n}", json={**body, "content": f"probe {n}"})
                if r.status_code in (200, 201):
                    pos = r.json()["position"]
                    g = http.get(f"/v1/memories/probe-{n}", params={"min_position": pos})
                    if g.status_code == 200:
                        return time.monotonic()
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
    return deadline


def _verify(deploy: Cluster, indexer: Proc, load: Load, tmp: Path) -> Verdict:
    from ai_memory.adapters.kafka.event_log import KafkaEventLog
    from ai_memory.serialization import AvroEventSerializer

    wait_caught_up(deploy.url, timeout=300, headers=deploy.operator_headers)
    # The index worker reports its position on its metrics endpoint; wait for the head.
    log = KafkaEventLog.from_url(deploy.log_url, AvroEventSerializer())
    try:
        heads = {q: log.last_position(q) for q in log.partitions()}
    finally:
        log.close()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            at = worker_positions(indexer.metrics_port)
            if all(at.get(q, 0) >= h for q, h in heads.items() if h):
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    indexer.stop()  # SIGTERM: flushes the Edge index; then it can be opened here
    verdict = Verdict()
    acked = load.acked()
    usage = LogUsage()
    logged = read_log(deploy.log_url, tmp, deploy.serializer(), usage)
    check_log(acked, logged, verdict, deploy.log_positions())
    check_gateway(deploy.url, deploy.headers, acked, logged, verdict)
    check_worker_index(deploy.worker_index_dir, logged, verdict)
    check_usage(deploy.log_url, usage, verdict)
    return verdict


TABLE_HEAD = (
    "| profile | fault | acked | lost | dup | reordered | version gaps | unsearchable"
    " (gateway / index worker) | usage wrong | availability during fault | recovery s |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def table_row(r: Row) -> str:
    return (
        f"| {r.profile} | {r.fault} | {r.acked} | {r.lost} | {r.duplicated} | {r.reordered}"
        f" | {r.gaps} | {r.unsearchable} / {r.worker_index_missing} | {r.usage_wrong}"
        f" | {100 * r.availability:.1f} % | {r.recover_s} |"
    )


def failed(r: Row) -> str:
    return ", ".join(f"{why} × {n}" for why, n in r.failures.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", choices=("single", "cluster"), default="single")
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--run-dir", type=Path, help="servers' run directory")
    parser.add_argument("--keep-servers", action="store_true")
    parser.add_argument("--hold", type=float, default=10.0)
    parser.add_argument("--stop-hold", type=float, default=30.0)
    parser.add_argument("--ids", type=int, default=300)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    run_dir = args.run_dir or Path(tempfile.gettempdir()) / f"aimem-faults-{args.profile}"
    p = profile(args.profile, run_dir)
    servers = Servers(p)
    servers.start_all()
    timing = Timing(hold=args.hold, stop_hold=args.stop_hold, ids=args.ids)
    rows: list[Row] = []
    tmp = Path(tempfile.mkdtemp(prefix="aimem-faults-"))
    try:
        for fault in args.faults.split(","):
            print(f"[faults] {p.name}: {fault} ...", file=sys.stderr, flush=True)
            row = run_fault(fault.strip(), p, servers, timing, tmp)
            rows.append(row)
            print(table_row(row), file=sys.stderr, flush=True)
            for d in row.details:
                print(f"    {d}", file=sys.stderr)
            if row.failures:
                print(f"    not acknowledged: {failed(row)}", file=sys.stderr)
    finally:
        if not args.keep_servers:
            servers.stop_all()
    print(TABLE_HEAD)
    for r in rows:
        print(table_row(r))
    print()
    for r in rows:
        if r.failures:
            print(f"- {r.fault}, not acknowledged during the fault: {failed(r)}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2))
    bad = any(r.lost or r.duplicated or r.reordered or r.usage_wrong for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
