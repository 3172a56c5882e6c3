"""What crypto-shredding (``AIMEM_ENCRYPTION=on``) costs: ingest, replay, forget and the
serializer alone, encryption off against on, in one process and one run.

    python -m loadtest.bench_encryption [--memories 5000] [--rounds 5]

For each round and each mode (the order alternates between rounds, so drift falls on
both alike), on a fresh embedded data directory:

* **ingest**: ``write_many`` in batches of 100 through the service (the guard, the
  sealing stage, the SQLite log), then until both projections applied everything;
* **replay**: a new container, not started, rebuilds both projections from position 0
  (every event unsealed with the vault: the records store and the index);
* **forget**: 200 forgets with ``wait`` (tombstone, key destroyed — a vault write and a
  WAL truncation — and both projections applied; with encryption on the record store
  also truncates its WAL after removing records);
* **serializer**: encode and decode of one ``MemoryWritten``, per event (µs), with the
  key cached — the steady-state cost of the stage itself.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from ai_memory.adapters.memory.data_key_vault import memory_vault
from ai_memory.bootstrap import build
from ai_memory.core.events import EventHeader, MemoryWritten
from ai_memory.core.record import MemoryRecord, MemoryType
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.sealer import Sealer
from ai_memory.settings import Settings
from loadtest.corpus import memories

WORK = Path(__file__).parent / ".work" / "encryption"
BATCH = 100
FORGETS = 200


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def one_round(mode: str, count: int) -> dict[str, float]:
    data = WORK / f"data-{mode}"
    shutil.rmtree(data, ignore_errors=True)
    settings = Settings(data_dir=data, encryption=mode)  # type: ignore[arg-type]
    c = build(settings)
    c.start()
    out: dict[str, float] = {}
    try:
        bodies = list(memories(count))
        t0 = time.perf_counter()
        for start in range(0, count, BATCH):
            c.service.write_many("default", bodies[start : start + BATCH])
        c.service.wait_for(c.log.last_position(), timeout=3600)
        out["ingest_per_s"] = count / (time.perf_counter() - t0)
        lat = []
        for n in range(FORGETS):
            t = time.perf_counter()
            c.service.delete("default", f"bench-{n * (count // FORGETS)}", actor="bench", wait=True)
            lat.append(time.perf_counter() - t)
        out["forget_p50_ms"] = percentile(lat, 0.5) * 1000
        out["forget_p95_ms"] = percentile(lat, 0.95) * 1000
    finally:
        c.close()
    rebuilt = build(settings)  # not started: replay is offline
    try:
        t0 = time.perf_counter()
        applied = sum(t.rebuild() for t in rebuilt.projections.tailers)
        out["replay_events_per_s"] = applied / (time.perf_counter() - t0)
    finally:
        rebuilt.close()
    return out


def serializer_us(sealed: bool, n: int = 20_000) -> tuple[float, float]:
    sealer = Sealer(memory_vault(bytes(32))) if sealed else None
    s = AvroEventSerializer(sealer=sealer)
    at = datetime(2026, 12, 1, tzinfo=UTC)
    rec = MemoryRecord(
        id="m1",
        type=MemoryType.PREFERENCE,
        content="Alice prefers green tea in the afternoon, not coffee.",
        scope="user:alice",
        source_agent="bench",
        created_at=at,
        tags=("drinks",),
    )
    event = MemoryWritten(EventHeader("e1", "default", at, "bench"), rec, 1, rec.fingerprint())
    frame = s.encode(event)
    t = time.perf_counter()
    for _ in range(n):
        s.encode(event)
    enc = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    for _ in range(n):
        s.decode(frame)
    dec = (time.perf_counter() - t) / n * 1e6
    return enc, dec


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    for r in range(args.rounds):
        for mode in ("off", "on") if r % 2 == 0 else ("on", "off"):
            results[mode].append(one_round(mode, args.memories))
            print(mode, results[mode][-1], flush=True)
    # This box is shared: report the median and the best round of each mode (the best is
    # the least disturbed by other load; lower is better for the latencies).
    lower_is_better = {"forget_p50_ms", "forget_p95_ms"}
    rows: dict[str, dict[str, tuple[float, float]]] = {}
    for mode, runs in results.items():
        rows[mode] = {}
        for k in runs[0]:
            values = [r[k] for r in runs]
            best = min(values) if k in lower_is_better else max(values)
            rows[mode][k] = (statistics.median(values), best)
        enc, dec = serializer_us(mode == "on")
        rows[mode]["encode_us"], rows[mode]["decode_us"] = (enc, enc), (dec, dec)
    print(f"\n{args.memories} memories, {args.rounds} rounds per mode")
    print("| measure | off median / best | on median / best | on / off (median, best) |")
    print("|---|---|---|---|")
    for key in rows["off"]:
        (off_m, off_b), (on_m, on_b) = rows["off"][key], rows["on"][key]
        print(
            f"| {key} | {off_m:,.2f} / {off_b:,.2f} | {on_m:,.2f} / {on_b:,.2f} "
            f"| {on_m / off_m:.2f}, {on_b / off_b:.2f} |"
        )
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
