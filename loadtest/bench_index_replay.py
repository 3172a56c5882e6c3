"""Embedded index replay alone: events/s and process CPU per event.

    python -m loadtest.bench_index_replay --memories 100000 [--runs 2] [--profile 30]

Builds (once, kept under ``loadtest/.work``) an embedded data dir holding the benchmark
corpus on its log — imported the way ``profile_import`` feeds it, projections not
started — then replays the ``index`` projection from position 0 as ``ai-memory replay``
and ``bench_embedded`` do (``rebuild_all`` over the index tailers), ``--runs`` times.
Each run reports events/s (wall) and the process's CPU per event (``process_time``: every
thread of this process), start-up and the build left out. ``--profile N`` adds a cProfile
of one more run, sorted by internal time. Only ``bootstrap``, ``settings``,
``service.transfer`` and ``projector.tailer`` are used, so an older tree can be measured
on the same data dir (put its ``services`` first on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import shutil
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--profile", type=int, default=0, help="rows of a cProfile run")
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


if __name__ == "__main__":
    main()
