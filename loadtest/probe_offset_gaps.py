"""What tracking a partition's offset gaps costs a projector's event loop
(``python -m loadtest.probe_offset_gaps [--seconds 30]``).

A worker reading a partition whose transactions commit ``rate`` times a second sees a gap
per transaction (its commit marker), and its consumer commits every
``broker_commit_interval`` (2.8 s), which chops the gaps it passed. This replays that for
``--seconds`` of log, gap by gap, through Faust's own ``Consumer._add_gap`` and through
``ViewConsumer._add_gap`` (``projector/offset_gaps.py``), and prints the CPU per gap and
per second of log for each: the part of a worker's CPU that grows with the rate.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import defaultdict
from collections.abc import Callable, Coroutine
from types import SimpleNamespace
from typing import Any

from faust.transport.consumer import Consumer as FaustConsumer
from faust.types import TP
from intervaltree import IntervalTree

from ai_memory.projector.faust_worker import ViewConsumer

COMMIT_INTERVAL_S = 2.8  # Faust's broker_commit_interval, which the workers keep
EVENTS_PER_TRANSACTION = 2  # single PUTs: 1.5–1.7 measured (bench_cost)

AddGap = Callable[[Any, TP, int, int], Coroutine[Any, Any, None]]


def replay(add_gap: AddGap, rate: float, seconds: float) -> tuple[float, int]:
    """CPU seconds spent adding gaps, and how many, for ``seconds`` of a partition
    committing ``rate`` transactions a second."""
    tp = TP("aimem.log", 0)
    consumer = SimpleNamespace(
        _committed_offset=defaultdict(lambda: None), _gap=defaultdict(IntervalTree)
    )
    per_commit = max(1, round(rate * COMMIT_INTERVAL_S))
    transactions = round(rate * seconds)
    offset, used = 0, 0.0
    loop = asyncio.new_event_loop()
    try:
        for n in range(transactions):
            marker = offset + EVENTS_PER_TRANSACTION  # the offset the commit marker takes
            t = time.thread_time()
            loop.run_until_complete(add_gap(consumer, tp, marker, marker))
            used += time.thread_time() - t
            offset = marker + 1
            if (n + 1) % per_commit == 0:  # a commit passes everything read so far
                consumer._gap[tp].chop(0, offset)
                consumer._committed_offset[tp] = offset - 1
    finally:
        loop.close()
    return used, transactions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="of log per rate")
    parser.add_argument(
        "--rates", type=float, nargs="+", default=[15, 50, 150, 400], help="transactions/s"
    )
    args = parser.parse_args(argv)
    print(
        "| transactions/s a partition | Faust: µs per gap | ms per s of log"
        " | ours: µs per gap | ms per s of log |"
    )
    print("|---|---|---|---|---|")
    for rate in args.rates:
        cells = [f"{rate:g}"]
        for add_gap in (FaustConsumer._add_gap, ViewConsumer._add_gap):
            used, gaps = replay(add_gap, rate, args.seconds)
            cells += [f"{used / gaps * 1e6:.1f}", f"{used / args.seconds * 1e3:.1f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
