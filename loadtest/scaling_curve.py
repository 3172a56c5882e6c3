"""Scaling curve of distributed ingest: batch-endpoint rate vs records workers and partitions.

    deploy/local/servers.sh start all && deploy/local/servers.sh wait all
    python -m loadtest.scaling_curve --partitions 1,3,6 --workers 1,2,3 --memories 15000
    python -m loadtest.scaling_curve --plot-only /tmp/aimem-scaling.json   # redraw

Each point is one ``loadtest.bench_distributed`` batch phase on a fresh deployment (new
topic with that many partitions, new keyspace, new gateway and workers): acknowledged and
fully projected memories/s. Writes every run's results as JSON and plots projected
(solid) and acknowledged (dashed) rate against the number of records workers, one colour
per partition count.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from loadtest.bench_distributed import Options, run

HERE = Path(__file__).resolve().parent


def plot(runs: list[dict[str, Any]], out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    failed = [r for r in runs if "error" in r]
    if failed:
        ax.plot(
            [r["records_workers"] for r in failed],
            [0] * len(failed),
            "rX",
            markersize=10,
            label="failed: "
            + ", ".join(f"{r['partitions']}p/{r['records_workers']}w" for r in failed),
        )
    for n, parts in enumerate(sorted({r["partitions"] for r in runs})):
        mine = [r for r in runs if r["partitions"] == parts and "error" not in r]
        mine.sort(key=lambda r: int(r["records_workers"]))
        workers = [r["records_workers"] for r in mine]
        colour = f"C{n}"
        ax.plot(
            workers,
            [r["batch_projected_per_s"] for r in mine],
            "o-",
            color=colour,
            label=f"{parts} partitions, projected",
        )
        ax.plot(
            workers,
            [r["batch_acked_per_s"] for r in mine],
            "x--",
            color=colour,
            alpha=0.6,
            label=f"{parts} partitions, acknowledged",
        )
    ax.axhline(2000, color="grey", linewidth=0.8, linestyle=":", label="target 2,000/s")
    ax.set_xlabel("records projector workers")
    ax.set_ylabel("memories/s (POST /v1/memories:batch)")
    ax.set_xticks(sorted({r["records_workers"] for r in runs}))
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--partitions", default="1,3,6")
    parser.add_argument("--workers", default="1,2,3")
    parser.add_argument("--memories", type=int, default=15_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--json", type=Path, default=Path("/tmp/aimem-scaling.json"))
    parser.add_argument("--png", type=Path, default=HERE / "scaling.png")
    parser.add_argument("--plot-only", type=Path, help="redraw from this JSON, run nothing")
    args = parser.parse_args()
    if args.plot_only:
        doc = json.loads(args.plot_only.read_text())
        plot(doc["runs"], args.png, doc["title"])
        return
    runs: list[dict[str, Any]] = []
    title = (
        f"{args.memories:,} memories per point in batches of {args.batch_size} from "
        f"{args.clients} clients; 2 cores shared by everything"
    )
    for parts in (int(p) for p in args.partitions.split(",")):
        for workers in (int(w) for w in args.workers.split(",")):
            started = time.time()
            opt = Options(
                memories=args.memories,
                clients=args.clients,
                batch_size=args.batch_size,
                partitions=parts,
                records_workers=workers,
                phases=("batch",),
            )
            try:
                out = run(opt)
            except AssertionError as e:  # a point that failed is a result too: kept, shown
                out = {"partitions": parts, "records_workers": workers, "error": str(e)[:4000]}
                print(f"{parts} partitions, {workers} workers: FAILED {str(e)[:300]}", flush=True)
            else:
                print(
                    f"{parts} partitions, {workers} workers: "
                    f"acked {out['batch_acked_per_s']:,.0f}/s, "
                    f"projected {out['batch_projected_per_s']:,.0f}/s, "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
            out["started"] = started
            runs.append(out)
            # After every point: a crash later keeps what was measured.
            args.json.write_text(json.dumps({"title": title, "runs": runs}, indent=2) + "\n")
    plot(runs, args.png, title)


if __name__ == "__main__":
    main()
