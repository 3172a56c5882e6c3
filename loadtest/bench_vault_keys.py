"""What creating data keys costs Cassandra (one run), next to a plain write of the same rows.

    deploy/local/servers.sh start cassandra && deploy/local/servers.sh wait cassandra
    python -m loadtest.bench_vault_keys --cassandra 127.0.0.1:9042 --keys 6000

Every new memory gets a data key (crypto-shredding, ``docs/design/FORGETTING.md``). The write
path asks the vault to *issue* one (``issue_many``): on Cassandra a key id of its own per
creation, stored with plain writes grouped per partition (migration 0008). Before that, a
key per memory was created with a lightweight transaction (``INSERT … IF NOT EXISTS``) so
that two racing creators ended with one key; ``create_many`` still does that. This
measures, on a fresh keyspace and through the real adapter (``WrappedVault`` on
``CassandraVaultRows``), in batches of ``--batch`` keys (a batch request's worth):

* ``issue`` — ``issue_many`` of new subjects, hinted new (the write path's call now);
* ``create`` — ``create_many`` of new ids, hinted new (the write path's call before);
* ``read`` — ``create_many`` of the same ids again, not hinted (one read per key);
* ``plain`` — the same number of unconditional inserts of key-sized rows through the same
  session and concurrency (what a creation would cost without a Paxos round).

For each: keys per second and Cassandra's CPU per key (from ``/proc`` for the pid in
``servers.sh``'s run directory, ``AIMEM_LOCAL_RUN``), and this client's CPU per key.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault_from_url
from ai_memory.adapters.cassandra.session import CassandraSession
from loadtest.proc_cpu import proc_cpu_s, server_pids


def measure(name: str, count: int, run: Callable[[], None], pid: int | None) -> dict[str, float]:
    server0 = proc_cpu_s(pid) if pid else 0.0
    client0, wall0 = time.process_time(), time.perf_counter()
    run()
    wall = time.perf_counter() - wall0
    client = time.process_time() - client0
    server = (proc_cpu_s(pid) - server0) if pid else float("nan")
    row = {
        f"{name}_per_s": count / wall,
        f"{name}_cassandra_cpu_ms_per_key": 1000 * server / count,
        f"{name}_client_cpu_ms_per_key": 1000 * client / count,
    }
    print(
        f"{name:>7}: {row[f'{name}_per_s']:8.0f} keys/s, Cassandra "
        f"{row[f'{name}_cassandra_cpu_ms_per_key']:.3f} ms CPU/key, client "
        f"{row[f'{name}_client_cpu_ms_per_key']:.3f} ms CPU/key"
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cassandra", default="127.0.0.1:9042")
    parser.add_argument("--keys", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    keyspace = f"bench_vault_{uuid.uuid4().hex[:10]}"
    url = f"cassandra://{args.cassandra}/{keyspace}"
    pid = server_pids().get("cassandra")
    if pid is None or not Path(f"/proc/{pid}").exists():
        print("no Cassandra pid in the run directory: server CPU is not measured")
        pid = None
    vault = cassandra_vault_from_url(url, os.urandom(32))
    session = CassandraSession.from_url(url)
    session.use_keyspace()
    try:
        ids = [f"memory/bench-{n:07d}" for n in range(args.keys)]
        batches = [ids[i : i + args.batch] for i in range(0, len(ids), args.batch)]
        vault.create_many("acme", ["memory/warm-up"], new=["memory/warm-up"])  # the KEK

        def issue() -> None:
            for batch in batches:
                subjects = [f"{k}-issued" for k in batch]
                vault.issue_many("acme", subjects, new=subjects)

        def create() -> None:
            for batch in batches:
                vault.create_many("acme", batch, new=batch)

        def read() -> None:
            for batch in batches:
                vault.create_many("acme", batch)

        session.execute(
            "CREATE TABLE IF NOT EXISTS plain_keys (tenant text, key_id text, wrapped blob,"
            " kek_version int, PRIMARY KEY ((tenant, key_id)))"
        )
        insert = session.prepare(
            "INSERT INTO plain_keys (tenant, key_id, wrapped, kek_version) VALUES (?, ?, ?, ?)"
        )
        blob = os.urandom(60)  # nonce + a wrapped 256-bit key + the GCM tag

        def plain() -> None:
            for batch in batches:
                session.execute_many([(insert, ("acme", k, blob, 1)) for k in batch])

        for name, run in (("issue", issue), ("create", create), ("read", read), ("plain", plain)):
            measure(name, len(ids), run, pid)
    finally:
        session.execute(f"DROP KEYSPACE IF EXISTS {keyspace}")
        session.close()
        vault.close()


if __name__ == "__main__":
    main()
