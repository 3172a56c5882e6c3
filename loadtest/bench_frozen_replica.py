"""Reads while one Cassandra replica of three is frozen, by table ``speculative_retry``.

    python -m loadtest.bench_frozen_replica                # starts its own three nodes
    python -m loadtest.bench_frozen_replica --rounds 2 --freeze 30

A node that stops answering without dying (SIGSTOP here; a long GC pause or a hung disk
in production) stays "up" until the failure detector convicts it, and coordinators keep
asking it for their QUORUM reads. This measures what the gateway's reads of the
request path suffer meanwhile — an API key by id, a tenant's KEK versions (single
partition), "are there any keys" (a range read) — while writers keep Cassandra busy, once
with the table default ``speculative_retry = '99p'`` and once with the option every table
of ai-memory carries (``TABLE_OPTIONS``, migration 0009), alternating per round. Each
variant has a keyspace of its own, made up front; each round: readers and writers for
``--warmup`` s, the first node SIGSTOPped
for ``--freeze`` s, SIGCONT, ``--after`` s more. Per variant and read: calls started
during the freeze, failures (with their reasons) and latency percentiles.

The cluster comes from ``deploy/local/servers.sh start cassandra1 cassandra2 cassandra3``
in a run directory of its own (``--run-dir``), never the servers of the test suite;
``--keep-servers`` leaves it running for the next invocation.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_memory.adapters.cassandra import CassandraSession, migrate
from ai_memory.adapters.cassandra.data_key_vault import CassandraVaultRows
from ai_memory.adapters.cassandra.key_store import CassandraKeyStore
from ai_memory.adapters.cassandra.migrations import TABLE_OPTIONS
from ai_memory.core.errors import Unavailable

ROOT = Path(__file__).resolve().parent.parent
SERVERS_SH = ROOT / "deploy" / "local" / "servers.sh"
NODES = ("cassandra1", "cassandra2", "cassandra3")
CONTACT = "127.0.0.1:19042,127.0.0.2:19042,127.0.0.3:19042"
VARIANTS = {"table default '99p'": "99p", "ai-memory's option": TABLE_OPTIONS.split("'")[1]}


@dataclass
class Call:
    read: str
    started: float
    seconds: float
    failure: str | None


@dataclass
class Outcome:
    variant: str
    calls: list[Call] = field(default_factory=list)


def servers(run_dir: Path, *args: str) -> None:
    env = {**os.environ, "AIMEM_LOCAL_RUN": str(run_dir), "AIMEM_KEEP_DATA": "0"}
    for node in NODES:
        subprocess.run([str(SERVERS_SH), *args, node], env=env, check=True)


def settle(deadline_s: float = 300.0) -> None:
    """Until every node is up and agrees on the schema, as the driver sees it: "ready"
    from servers.sh is one node's CQL port, and a ring still forming refuses QUORUM or
    answers INCOMPATIBLE_SCHEMA."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            probe = CassandraSession.from_url(f"cassandra://{CONTACT}/system")
            try:
                cluster = probe._cluster
                up = [h for h in cluster.metadata.all_hosts() if h.is_up]
                if len(up) == len(NODES) and cluster.control_connection.wait_for_schema_agreement(
                    wait_time=10
                ):
                    return
            finally:
                probe.close()
        except Unavailable:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("the three Cassandra nodes did not settle")
        time.sleep(5)


def keyspace(spec: str) -> CassandraSession:
    """A fresh keyspace of ai-memory's tables with ``spec`` on every table. Made before
    any node is frozen: schema changes right after a freeze met a thawed node that
    disagreed on the schema for minutes."""
    url = f"cassandra://{CONTACT}/frozen_{uuid.uuid4().hex[:10]}?replication_factor=3"
    session = CassandraSession.from_url(url)
    for attempt in range(24):  # "ready" is the CQL port; the ring may still be forming
        try:
            migrate(session)
            break
        except Unavailable:
            if attempt == 23:
                raise
            time.sleep(5)
    tables = [
        r.table_name
        for r in session.execute(
            "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s",
            (session.keyspace,),
        )
    ]
    for table in tables:
        session.execute(f"ALTER TABLE {table} WITH speculative_retry = '{spec}'")
    session.execute(
        f"CREATE TABLE load (k int PRIMARY KEY, v blob) WITH speculative_retry = '{spec}'"
    )
    CassandraVaultRows(session).add_kek("t1", 1, os.urandom(60))
    return session


def one_round(
    variant: str, session: CassandraSession, run_dir: Path, a: argparse.Namespace
) -> Outcome:
    keys, vault = CassandraKeyStore(session), CassandraVaultRows(session)
    insert = session.prepare("INSERT INTO load (k, v) VALUES (?, ?)")

    def write() -> None:  # what the records workers and the vault do meanwhile
        rows = [(insert, (random.randrange(10**6), os.urandom(300))) for _ in range(200)]
        session.execute_many(rows)

    reads: dict[str, Callable[[], Any]] = {
        "API key by id": lambda: keys.get("aimem_k_nokey"),
        "KEK versions of a tenant": lambda: vault.keks("t1"),
        "any key at all (range read)": keys.has_keys,
    }
    out = Outcome(variant)
    stop = threading.Event()

    def loop(name: str, fn: Callable[[], Any]) -> None:
        while not stop.is_set():
            t0 = time.monotonic()
            failure = None
            try:
                fn()
            except Exception as e:  # every failure is counted, by kind
                failure = f"{type(e).__name__}: {str(e)[:70]}"
            if name != "writes":
                out.calls.append(Call(name, t0, time.monotonic() - t0, failure))
            time.sleep(0.05)

    threads = [
        threading.Thread(target=loop, args=(name, fn), daemon=True)
        for name, fn in [*reads.items(), ("writes", write)]
        for _ in range(a.threads)
    ]
    for t in threads:
        t.start()
    pid = int((run_dir / f"{NODES[0]}.pid").read_text())
    time.sleep(a.warmup)
    frozen = time.monotonic()
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(a.freeze)
    finally:
        os.kill(pid, signal.SIGCONT)
    thawed = time.monotonic()
    time.sleep(a.after)
    stop.set()
    for t in threads:
        t.join(30)
    out.calls = [c for c in out.calls if frozen <= c.started < thawed]
    for read in reads:
        mine = [c for c in out.calls if c.read == read]
        failed = sum(c.failure is not None for c in mine)
        slowest = max((c.seconds for c in mine), default=0.0)
        print(
            f"[frozen] {variant}, {read}: {len(mine)} reads, {failed} failed, max {slowest:.2f} s"
        )
    time.sleep(a.after)  # the thawed node catches up before the next round
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def report(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for variant in VARIANTS:
        calls = [c for o in outcomes if o.variant == variant for c in o.calls]
        for read in dict.fromkeys(c.read for c in calls):
            mine = [c for c in calls if c.read == read]
            seconds = [c.seconds for c in mine]
            failures = Counter(c.failure for c in mine if c.failure)
            rows.append(
                {
                    "variant": variant,
                    "read": read,
                    "calls": len(mine),
                    "failed": sum(failures.values()),
                    "p50_ms": round(pct(seconds, 0.5) * 1000),
                    "p99_ms": round(pct(seconds, 0.99) * 1000),
                    "max_ms": round(max(seconds, default=0) * 1000),
                    "failures": dict(failures),
                }
            )
    print("| speculative_retry | read | calls during the freeze | failed | p50 / p99 / max ms |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['variant']} | {r['read']} | {r['calls']} | {r['failed']} | "
            f"{r['p50_ms']} / {r['p99_ms']} / {r['max_ms']} |"
        )
    for r in rows:
        for reason, n in r["failures"].items():
            print(f"  {r['variant']}, {r['read']}: {reason} × {n}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="rounds per variant")
    parser.add_argument("--threads", type=int, default=3, help="threads per read, and writers")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--freeze", type=float, default=30.0)
    parser.add_argument("--after", type=float, default=8.0)
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument("--keep-servers", action="store_true")
    parser.add_argument("--json", type=Path)
    a = parser.parse_args()
    run_dir = a.run_dir or Path(tempfile.gettempdir()) / "aimem-frozen-replica"
    servers(run_dir, "start")
    servers(run_dir, "wait")
    try:
        settle()
        sessions = {variant: keyspace(spec) for variant, spec in VARIANTS.items()}
        outcomes = [
            one_round(variant, session, run_dir, a)
            for _ in range(a.rounds)
            for variant, session in sessions.items()
        ]
        for session in sessions.values():
            session.close()  # the keyspaces go with the servers' data
    finally:
        if not a.keep_servers:
            servers(run_dir, "stop")
    rows = report(outcomes)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
