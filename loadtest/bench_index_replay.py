"""Embedded index replay alone: events/s and process CPU per event.

    python -m loadtest.bench_index_replay --memories 100000 [--runs 2] [--profile 30]

Builds (once, kept under ``loadtest/.work``) an embedded data dir holding the benchmark
corpus on its log — imported the way ``profile_import`` feeds it, projections not
started — then replays the ``index`` projection from position 0 as ``ai-memory replay``
and ``bench_embedded`` do (``rebuild_all`` over the index tailers), ``--runs`` times.
Each run reports events/s (wall) and the process's CPU per event (``process_time``: every
thread of this process), start-up and the build left out. ``--profile N`` adds a cProfile
of one more run, sorted by internal time. ``--digest`` replays once more and prints a
digest of what the index then holds — every point's id, payload and vectors (exact float
bits), in id order — so two trees can be shown to build the same index. Only
``bootstrap``, ``settings``, ``service.transfer`` and ``projector.tailer`` are used (and,
for ``--digest``, the embedded index's shard), so an older tree can be measured on the
same data dir (put its ``services`` first on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import shutil
import time
from pathlib import Path
from typing import Any

import ai_memory
from ai_memory.bootstrap import build
from ai_memory.projector.tailer import rebuild_all
from ai_memory.settings import Settings
from loadtest.corpus import memories

WORK = Path(__file__).parent / ".work"
BATCH = 500  # what the HTTP import route hands to the session at once


def ensure_data(size: int) -> Path:
    """A data dir with ``size`` imported memories on its log (built once, then reused)."""
    data = WORK / f"index-replay-{size}"
    done = data / "built"
    if done.exists():
        return data
    shutil.rmtree(data, ignore_errors=True)
    container = build(Settings(data_dir=data))
    try:
        session = container.services.transfer.begin_import("default")
        lines = [
            (n, json.dumps({"kind": "record", "record": m}))
            for n, m in enumerate(memories(size), start=1)
        ]
        for k in range(0, len(lines), BATCH):
            session.feed(lines[k : k + BATCH])
        report = session.finish()
        assert report.written == size, report.to_json()
    finally:
        container.close()
    done.write_text(str(size))
    return data


def replay_index(data: Path, profile: cProfile.Profile | None = None) -> tuple[int, float, float]:
    """(events applied, wall seconds, process CPU seconds) of one index replay."""
    container = build(Settings(data_dir=data))
    try:
        tailers = [t for t in container.projections.tailers if t.sink.name == "index"]
        cpu0, t0 = time.process_time(), time.perf_counter()
        if profile is not None:
            profile.enable()
        applied = rebuild_all(tailers)
        if profile is not None:
            profile.disable()
        return applied, time.perf_counter() - t0, time.process_time() - cpu0
    finally:
        container.close()


def index_digest(data: Path) -> tuple[int, str]:
    """(points, digest) of the embedded index after a replay from position 0."""
    import qdrant_edge as qe

    container = build(Settings(data_dir=data))
    try:
        rebuild_all([t for t in container.projections.tailers if t.sink.name == "index"])
        index: Any = container.index
        while not hasattr(index, "_live"):  # decorators (tag digests) hold the Edge index
            index = index.inner
        shard = index._live()
        rows: list[str] = []
        offset = None
        while True:
            request = qe.ScrollRequest(
                limit=2000, offset=offset, with_payload=True, with_vector=True
            )
            records, offset = shard.scroll(request)
            rows += [_point_text(r) for r in records]
            if offset is None:
                break
        return len(rows), hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest()[:16]
    finally:
        container.close()


def _point_text(record: Any) -> str:
    vectors: dict[str, Any] = {}
    for name, vector in (record.vector or {}).items():
        if isinstance(vector, list):
            vectors[name] = [float(x).hex() for x in vector]
        else:  # sparse
            vectors[name] = [list(vector.indices), [float(x).hex() for x in vector.values]]
    return json.dumps([str(record.id), record.payload, vectors], sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--profile", type=int, default=0, help="rows of a cProfile run")
    parser.add_argument("--digest", action="store_true", help="digest of the index contents")
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    print(f"ai_memory from {ai_memory.__file__}")
    data = ensure_data(args.memories)
    for _ in range(args.runs):
        applied, wall, cpu = replay_index(data)
        print(
            f"replay index: {applied:,} events, {applied / wall:,.0f} events/s, "
            f"{cpu / applied * 1000:.3f} ms CPU per event"
        )
    if args.profile:
        profile = cProfile.Profile()
        replay_index(data, profile)
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    if args.digest:
        points, digest = index_digest(data)
        print(f"index after a replay: {points:,} points, digest {digest}")


if __name__ == "__main__":
    main()
