"""What conversation context's neighbour lookups cost in Qdrant Edge, and windowed reads
instead (``python -m loadtest.probe_context_lookups --data DIR``).

On a copy of the index shard of a scale profile's data dir (``ai-memory bench scale
--locomo … --data-dir DIR``: no sessions, ``created_at`` 37 s apart, 90% in one scope),
each lookup is asked for five random seed turns of one scope, as a search asks, 400 times:

- ``ordered``: an ordered scroll per seed and side through the ``created_at`` range index,
  starting from the seed's time (``edge_reads.ordered_neighbours``);
- ``search's``: what search does (``edge_reads.neighbours``): the ordered scrolls for the
  first seed of a conversation, a window sized from them for the others;
- ``window/seed``: one unordered read per seed of the turns in ``created_at`` ± W, a fixed
  W (the neighbours would be picked in Python);
- ``window/all``: one read for all five seeds (a ``should`` of their windows).

A window gives the same neighbours only when it holds both on each side; the scale
profile's turns of one scope are 41 s apart in the big scope and 7,400 s in a small one.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from ai_memory.adapters import index_payload as ip
from ai_memory.adapters.edge_reads import (
    conditions,
    neighbours,
    ordered_neighbours,
)
from ai_memory.adapters.edge_turn_payloads import _TURN_PAYLOAD
from ai_memory.benchmarks.layout import BIG_SCOPE, SMALL_SCOPES, scope_of
from ai_memory.core.conversation_context import Turn

SIZE = 100_000  # memories of the profile's corpus (the writes beside its searches excluded)
START, STEP = 1_700_000_000, 37  # the LoCoMo corpus's created_at (benchmarks/locomo.py)


def shard_of(data: Path) -> Path:
    index = next((data / "index").iterdir())
    checkpoint = json.loads((index / "checkpoint.json").read_text())
    return index / str(checkpoint["shard"])


def seeds(small: bool) -> list[Turn]:
    """Five turns of one scope, as a scoped search's seeds are."""
    want = f"user:small-{random.randrange(SMALL_SCOPES)}" if small else BIG_SCOPE
    out: list[Turn] = []
    while len(out) < 5:
        n = random.randrange(SIZE)
        scope = scope_of(n)
        if scope == want:
            out.append(Turn(f"s{n}", scope, None, float(START + n * STEP), True))
    return out


def window_filter(terms: ip.FilterTerms, seed: Turn, width: float) -> qe.Filter:
    must, must_not = conditions(terms)
    return qe.Filter(
        must=[
            *must,
            qe.FieldCondition(ip.F_TYPE, match=qe.MatchValue(ip.INTERACTION)),
            qe.FieldCondition(ip.F_SCOPE, match=qe.MatchValue(seed.scope)),
            qe.IsEmptyCondition(ip.F_SESSION),
            qe.FieldCondition(
                ip.F_CREATED_AT,
                range=qe.RangeFloat(gte=seed.created_at - width, lte=seed.created_at + width),
            ),
        ],
        must_not=must_not or None,
    )


def lookups(
    shard: qe.EdgeShard, terms: ip.FilterTerms, width: float
) -> dict[str, Callable[[Sequence[Turn]], Any]]:
    def queries(ss: Sequence[Turn]) -> list[ip.NeighbourQuery]:
        return [ip.NeighbourQuery(terms, s, before) for s in ss for before in (True, False)]

    def ordered(ss: Sequence[Turn]) -> Any:
        return ordered_neighbours(shard, queries(ss))

    def product(ss: Sequence[Turn]) -> Any:
        return neighbours(shard, queries(ss))

    def per_seed(ss: Sequence[Turn]) -> Any:
        return [
            shard.scroll(
                qe.ScrollRequest(
                    limit=256, filter=window_filter(terms, s, width), with_payload=_TURN_PAYLOAD
                )
            )
            for s in ss
        ]

    def one_call(ss: Sequence[Turn]) -> Any:
        flt = qe.Filter(should=[window_filter(terms, s, width) for s in ss])
        return shard.scroll(qe.ScrollRequest(limit=1024, filter=flt, with_payload=_TURN_PAYLOAD))

    return {
        "ordered": ordered,
        "search's": product,
        "window/seed": per_seed,
        "window/all": one_call,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a kept scale data dir")
    parser.add_argument("--big-window", type=float, default=120.0, help="W in the big scope, s")
    parser.add_argument("--small-window", type=float, default=16_000.0, help="W in a small one")
    parser.add_argument("--searches", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aimem-lookups-") as tmp:
        copy = Path(tmp) / "shard"
        shutil.copytree(shard_of(args.data), copy)
        shard = qe.EdgeShard.load(str(copy), None)
        now = datetime.now(UTC).timestamp()
        for small, width in ((False, args.big_window), (True, args.small_window)):
            scopes = (
                tuple(f"user:small-{k}" for k in range(SMALL_SCOPES)) if small else (BIG_SCOPE,)
            )
            terms = ip.FilterTerms(
                "default", ((ip.F_SCOPE, scopes), (ip.F_STATE, ("active",))), now, False
            )
            for round_ in range(2):  # the first warms the engine's caches
                for name, lookup in lookups(shard, terms, width).items():
                    took = []
                    for _ in range(args.searches):
                        ss = seeds(small)
                        began = time.perf_counter()
                        lookup(ss)
                        took.append(time.perf_counter() - began)
                    took.sort()
                    if round_:
                        p50, p95 = took[len(took) // 2], took[int(len(took) * 0.95)]
                        kind = "small scope" if small else "big scope"
                        print(
                            f"{kind}, W {width:g} s, {name}: p50 {p50 * 1e3:.2f} ms, "
                            f"p95 {p95 * 1e3:.2f} ms per search"
                        )
        shard.close()


if __name__ == "__main__":
    main()
