"""Where an import's time goes in process: ``ImportSession.feed`` on the benchmark corpus.

    python -m loadtest.profile_import --lines 10000 [--guard-off] [--top 30]

Feeds the same NDJSON lines ``bench_embedded`` sends over HTTP, in batches of 500 as the
HTTP route does, into a fresh embedded data dir (projections not started, so only the
write path is measured). Prints lines/s of three unprofiled runs, then a cProfile of a
fourth sorted by cumulative time. ``--guard-off`` replaces the projectability proof with
a no-op in this process only, to tell its share from the rest.

Only ``bootstrap``, ``settings`` and ``service.transfer`` are imported, so an older tree
can be profiled the same way (put its ``services`` first on ``PYTHONPATH``).
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
from ai_memory.settings import Settings
from loadtest.corpus import memories

WORK = Path(__file__).parent / ".work" / "profile-import"
BATCH = 500  # what the HTTP route hands to the session at once


def feed_all(lines: list[tuple[int, str]], profile: cProfile.Profile | None) -> float:
    """Lines/s of one import of ``lines`` into a fresh data dir."""
    shutil.rmtree(WORK, ignore_errors=True)
    container = build(Settings(data_dir=WORK))
    try:
        session = container.services.transfer.begin_import("default")
        start = time.perf_counter()
        if profile is not None:
            profile.enable()
        for k in range(0, len(lines), BATCH):
            session.feed(lines[k : k + BATCH])
        report = session.finish()
        if profile is not None:
            profile.disable()
        elapsed = time.perf_counter() - start
        assert report.written == len(lines), report.to_json()
        return len(lines) / elapsed
    finally:
        container.close()
        shutil.rmtree(WORK, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--guard-off", action="store_true")
    args = parser.parse_args()
    if args.guard_off:
        import ai_memory.adapters.projectability as proof

        proof.prove_projectable = lambda encoded, serializer: None
    print(f"ai_memory from {ai_memory.__file__}")
    lines = [
        (n, json.dumps({"kind": "record", "record": m}))
        for n, m in enumerate(memories(args.lines), start=1)
    ]
    rates = [feed_all(lines, None) for _ in range(3)]
    print("unprofiled lines/s: " + ", ".join(f"{r:,.0f}" for r in rates))
    profile = cProfile.Profile()
    feed_all(lines, profile)
    stats = pstats.Stats(profile)
    print(f"function calls: {stats.total_calls:,}")  # type: ignore[attr-defined]
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
