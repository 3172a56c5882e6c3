"""What sealing the records view at rest costs in process (``adapters/sealed_record_store.py``).

The same rows through a record store with and without the ``SealedRecordStore``
decorator, interleaved (plain, sealed, plain, sealed ...) so drift hits both alike:

* **write**: ``apply`` of batches of ``--batch`` ``PutRecord`` (what the projector does),
  keys warm in the sealer's cache (the projector has just opened the events with them);
* **get**: ``get`` of one memory, keys warm (a read within ``cache_seconds`` of the last);
* **get cold**: the same with an empty key cache (one vault read per call);
* **list**: a page of ``--page`` records, keys warm.

CPU time of this process (``time.process_time``) and wall time per operation, median of
``--rounds``.
The vault is the SQLite one of the embedded mode (``vault.db``) or, with ``--cassandra``,
the Cassandra vault and record store (a single local node: the Cassandra side's own CPU
is not in these figures).

    python -m loadtest.bench_view_sealing --memories 2000 --rounds 5
    python -m loadtest.bench_view_sealing --cassandra 127.0.0.1:9042 --memories 2000
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.data_keys import DataKeyVault, memory_key_id
from ai_memory.core.listing import ListQuery
from ai_memory.core.ports import RecordStore
from ai_memory.core.projection import PutRecord
from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType, StoredRecord
from ai_memory.core.sealing import derived_key
from ai_memory.serialization.sealer import Sealer


def _records(n: int, start: int) -> list[StoredRecord]:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        rec = MemoryRecord(
            id=f"m{i:06d}",
            type=MemoryType.FACT,
            content=f"Alice said something rather ordinary, number {i}, about tea and maps.",
            scope="user:alice",
            source_agent="bench",
            created_at=now,
            tags=("drinks", f"t{i % 10}"),
            meta={"source": "bench", "i": i},
        )
        out.append(
            StoredRecord("bench", rec, 1, MemoryState.ACTIVE, rec.fingerprint(), now, start + i)
        )
    return out


def _cpu_per(op: Callable[[], object], count: int) -> tuple[float, float]:
    """(CPU ms, wall ms) per operation."""
    cpu, wall = time.process_time(), time.perf_counter()
    op()
    return (
        (time.process_time() - cpu) / count * 1e3,
        (time.perf_counter() - wall) / count * 1e3,
    )


def run(
    store: RecordStore, sealer: Sealer | None, args: argparse.Namespace, base: int
) -> dict[str, float]:
    rows = _records(args.memories, base)
    if sealer is not None:  # warm: the projector has the keys from decoding the events
        for i in range(0, len(rows), 500):
            sealer.vault.issue_many(
                "bench", [memory_key_id(s.record.id) for s in rows[i : i + 500]]
            )
        sealer.view_keys("bench", [memory_key_id(s.record.id) for s in rows])
    batches = [rows[i : i + args.batch] for i in range(0, len(rows), args.batch)]
    pos = [base + len(rows)]

    def write() -> None:
        for b in batches:
            store.apply([PutRecord(s) for s in b], checkpoint=pos[0])

    ids = [s.record.id for s in random.sample(rows, min(args.gets, len(rows)))]

    def gets() -> None:
        for mid in ids:
            store.get("bench", mid)

    def gets_cold() -> None:
        for mid in ids:
            if sealer is not None:
                sealer._cache.clear()
                sealer._ids_of.clear()
            store.get("bench", mid)

    pages = max(1, args.gets // 10)

    def lists() -> None:
        after = ""
        for _ in range(pages):
            page = store.list_records(ListQuery(tenant="bench", after=after, limit=args.page))
            after = page.next_after or ""

    result: dict[str, float] = {}
    for name, op, count in (
        ("write", write, len(rows)),
        ("get", gets, len(ids)),
        ("get_cold", gets_cold, len(ids)),
        ("list_page", lists, pages),
    ):
        result[f"{name} cpu"], result[f"{name} wall"] = _cpu_per(op, count)
    if sealer is not None:
        sealer.view_keys("bench", [memory_key_id(s.record.id) for s in rows])  # re-warm
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memories", type=int, default=2000)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--gets", type=int, default=500)
    p.add_argument("--page", type=int, default=50)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cassandra", default="", help="host:port of a Cassandra node")
    args = p.parse_args()
    root = os.urandom(32)
    with tempfile.TemporaryDirectory() as tmp:
        plain, sealed, vault = _stores(Path(tmp), root, args.cassandra)
        sealer = Sealer(vault, cache_seconds=3600)
        wrapped = SealedRecordStore(sealed, sealer, derived_key(root, "view-tags"))
        runs: dict[str, list[dict[str, float]]] = {"plain": [], "sealed": []}
        for i in range(args.rounds):  # later rounds overwrite (newer positions)
            runs["plain"].append(run(plain, None, args, (i + 1) * 10**7))
            runs["sealed"].append(run(wrapped, sealer, args, (i + 1) * 10**7))
        print(f"{'ms per op (median of ' + str(args.rounds) + ')':<34} plain    sealed   delta")
        for key in runs["plain"][0]:
            a = statistics.median(r[key] for r in runs["plain"])
            b = statistics.median(r[key] for r in runs["sealed"])
            print(f"{key:<34} {a:7.4f}  {b:7.4f}  {b - a:+7.4f}")
        if args.cassandra:  # the two keyspaces the run made
            from ai_memory.adapters.cassandra.record_store import CassandraRecordStore

            assert isinstance(plain, CassandraRecordStore)
            session = plain._s  # the bench's own connection
            for ks in (session.keyspace, session.keyspace + "s"):
                session.execute(f"DROP KEYSPACE IF EXISTS {ks}")
        plain.close()
        wrapped.close()
        vault.close()


def _stores(
    tmp: Path, root: bytes, cassandra: str
) -> tuple[RecordStore, RecordStore, DataKeyVault]:
    if not cassandra:
        from ai_memory.adapters.sqlite_data_key_vault import sqlite_vault

        return (
            SqliteRecordStore(tmp / "plain.db", shred=True),
            SqliteRecordStore(tmp / "sealed.db", shred=True),
            sqlite_vault(tmp / "vault.db", root),
        )
    from ai_memory.adapters.cassandra import CassandraRecordStore
    from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault_from_url

    ks = f"bench_view_{uuid.uuid4().hex[:10]}"
    url = f"cassandra://{cassandra}/{ks}?replication_factor=1"
    return (
        CassandraRecordStore.from_url(url),
        CassandraRecordStore.from_url(url.replace(ks, ks + "s")),
        cassandra_vault_from_url(url, root),
    )


if __name__ == "__main__":
    main()
