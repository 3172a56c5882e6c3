"""LoCoMo retrieval benchmark through the product's own search (no LLM).

    python -m loadtest.bench_locomo [--mode hybrid|semantic|keyword] [--embedder static|minilm]
                                    [--tenancy one|per-conversation] [--no-context] [--no-dates]
                                    [--no-rerank] [--data PATH] [--sweep]

Builds an embedded container on a fresh temporary data dir, writes every dialog turn of
the 10 LoCoMo conversations as one interaction (``MemoryService.write``; one tenant with
a user scope per conversation by default, id = conversation + the turn's ``dia_id``,
``created_at`` = the session date plus the turn's index in seconds, ``meta.session_id``
= the session), waits until the projections hold them, then searches each question in
its own conversation's scope and reports recall@1/5/10/20 (see ``loadtest.locomo``) as
a markdown table — all questions, then the tuning half (conversations 1–5, on which
settings are chosen) and the held-out half — with indexing throughput and query latency.

``--sweep`` also fetches each question's semantic and keyword lists at the depth hybrid
search prefetches (100 for top_k 20) and fuses them offline with every fusion setting
of ``index_payload.fuse`` — the same function the index adapters call — so one indexing
run compares all fusion methods and weights. The data set is read from ``--data``,
``$AIMEM_LOCOMO_DATA`` or ``/work/shared/bench-data/locomo10.json`` and never copied.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from ai_memory.adapters import index_payload as ip
from ai_memory.benchmarks.load import percentile
from ai_memory.benchmarks.locomo_qa import KS, Conversation, RecallTable, load
from ai_memory.benchmarks.recall import TUNING_HALF, memory_id
from ai_memory.bootstrap import build
from ai_memory.core.fusion import DEFAULT_FUSION, Fusion, fuse
from ai_memory.core.ports import IndexHit
from ai_memory.service.memory_service import SearchMode, SearchRequest
from ai_memory.service.search_reads import SearchHit
from ai_memory.settings import Settings
from loadtest.locomo import data_path

TOP_K = max(KS)
SOURCE = "locomo-bench"


ONE_TENANT = "locomo"


def tenant_of(conv: Conversation, tenancy: str = "one") -> str:
    """One tenant holding every conversation as its own user scope (what a deployment
    serving many users looks like), or a tenant per conversation."""
    return ONE_TENANT if tenancy == "one" else f"locomo-{conv.sample_id}"


def dia_ids(conv: Conversation, ids: Sequence[str]) -> list[str]:
    prefix = f"{conv.sample_id}-"
    return [i.removeprefix(prefix) for i in ids]


def sweep_settings() -> list[tuple[str, Fusion]]:
    def pair(w: float) -> tuple[tuple[str, float], ...]:
        return (("dense", round(w, 2)), ("keyword", round(1.0 - w, 2)))

    out: list[tuple[str, Fusion]] = [("rrf k=60 (equal)", Fusion("rrf"))]
    for k in (10, 30, 100):
        out.append((f"rrf k={k} (equal)", Fusion("rrf", k=k)))
    weights = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    out += [(f"rrf k=60 w_dense={w}", Fusion("rrf", pair(w))) for w in weights]
    for method in ("minmax", "dbsf"):
        out += [(f"{method} w_dense={w}", Fusion(method, pair(w))) for w in weights]
    return out


def ids_of(hits: Sequence[SearchHit] | Sequence[IndexHit]) -> list[str]:
    return [h.stored.record.id if isinstance(h, SearchHit) else h.memory_id for h in hits]


def run(args: argparse.Namespace) -> None:
    convs = load(data_path(args.data))
    n_turns = sum(len(c.turns) for c in convs)
    with tempfile.TemporaryDirectory(prefix="aimem-locomo-") as tmp:
        container = build(Settings(data_dir=Path(tmp), embedder=args.embedder))
        container.start()
        try:
            svc = container.service
            t0 = time.perf_counter()
            position = 0
            for conv in convs:
                for turn in conv.turns:
                    body = {
                        "id": memory_id(conv, turn.dia_id),
                        "type": "interaction",
                        "content": turn.content,
                        "scope": conv.scope,
                        "source_agent": SOURCE,
                        "created_at": turn.created_at.isoformat(),
                        "meta": {"session_id": turn.session},
                    }
                    position = svc.write(tenant_of(conv, args.tenancy), body).position
            acked = time.perf_counter() - t0
            svc.wait_for(position, timeout=3600)
            projected = time.perf_counter() - t0

            table = RecallTable()
            halves = (RecallTable(), RecallTable())
            sweep = [(name, fusion, RecallTable()) for name, fusion in sweep_settings()]
            depth = ip.prefetch_limit(TOP_K + 5)  # what hybrid prefetches per retriever
            latencies: list[float] = []
            for number, conv in enumerate(convs):
                tenant = tenant_of(conv, args.tenancy)
                half = halves[0 if number < TUNING_HALF else 1]
                for q in conv.questions:
                    request = SearchRequest(
                        q.text,
                        [conv.scope],
                        top_k=TOP_K,
                        mode=args.mode,
                        rerank=args.rerank,
                        context=args.context,
                        dates=args.dates,
                    )
                    t = time.perf_counter()
                    hits = svc.search(tenant, request)
                    latencies.append(time.perf_counter() - t)
                    found = dia_ids(conv, ids_of(hits))
                    table.add(q.category, found, q.evidence)
                    half.add(q.category, found, q.evidence)
                    if not args.sweep:
                        continue
                    lists: dict[str, list[tuple[str, float]]] = {}
                    retrievers: tuple[tuple[str, Literal["semantic", "keyword"]], ...] = (
                        ("dense", "semantic"),
                        ("keyword", "keyword"),
                    )
                    for name, mode in retrievers:
                        deep = SearchRequest(
                            q.text,
                            [conv.scope],
                            top_k=depth,
                            mode=mode,
                            rerank=False,
                            context=False,
                        )
                        deep_hits = svc.search(tenant, deep)[:depth]
                        ranked = dia_ids(conv, [h.stored.record.id for h in deep_hits])
                        lists[name] = [(i, h.score) for i, h in zip(ranked, deep_hits, strict=True)]
                    for _, fusion, t_sweep in sweep:
                        fused = fuse(lists, TOP_K, fusion)
                        t_sweep.add(q.category, ids_of(fused), q.evidence)
        finally:
            container.close()

    print(f"`{' '.join(['python -m loadtest.bench_locomo', *map(shlex.quote, sys.argv[1:])])}`")
    print(
        f"\nmode={args.mode}, embedder={container.embedder.name}, "
        f"fusion={DEFAULT_FUSION}, context={args.context}, dates={args.dates}, "
        f"rerank={args.rerank}, "
        f"tenancy={args.tenancy}, questions={len(table.rows)}, turns={n_turns}\n"
    )
    print(table.markdown())
    print("\n| half | n | " + " | ".join(f"R@{k}" for k in KS) + " |")
    print("|---|---|" + "---|" * len(KS))
    names = (f"tuning (conversations 1–{TUNING_HALF})", "held out (the rest)")
    for name, half in zip(names, halves, strict=True):
        n, values = half.mean()
        print(f"| {name} | {n} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
    print(
        f"\nindexing: {n_turns / acked:,.0f} writes/s acknowledged, "
        f"{n_turns / projected:,.0f} docs/s projected ({projected:.1f} s); "
        f"query p50 {percentile(sorted(latencies), 0.5) * 1000:.2f} ms, "
        f"p95 {percentile(sorted(latencies), 0.95) * 1000:.2f} ms (top_k={TOP_K}, in-process)"
    )
    if args.sweep:
        print(f"\nFusion sweep (dense + keyword lists of depth {depth}, fused offline):\n")
        print("| fusion | all R@1 | R@5 | R@10 | R@20 | cat 1–4 R@10 |")
        print("|---|---|---|---|---|---|")
        for name, _, t_sweep in sweep:
            _, values = t_sweep.mean()
            _, sub = t_sweep.mean((1, 2, 3, 4))
            row = " | ".join(f"{v:.1f}" for v in values)
            print(f"| {name} | {row} | {sub[2]:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["hybrid", "semantic", "keyword"], default="hybrid")
    parser.add_argument("--embedder", default="static", help="static (default) or minilm")
    parser.add_argument("--data", default=None, help="path of locomo10.json")
    parser.add_argument("--sweep", action="store_true", help="also sweep fusion settings")
    parser.add_argument(
        "--rerank",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="two-stage rerank (relevance/recency/type priority), on by default in search",
    )
    parser.add_argument(
        "--context",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="conversation context (neighbouring turns), on by default in search",
    )
    parser.add_argument(
        "--dates",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="periods the questions name boost what was said then, on by default in search",
    )
    parser.add_argument(
        "--tenancy",
        choices=["one", "per-conversation"],
        default="one",
        help="one tenant with a scope per conversation (default), or a tenant each",
    )
    args = parser.parse_args()
    mode: SearchMode = args.mode
    args.mode = mode
    run(args)


if __name__ == "__main__":
    main()
