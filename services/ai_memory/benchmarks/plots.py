"""The scale and recall profiles' plots as PNG files, drawn with matplotlib when it is
installed (the ``bench`` extra); without it the caller says how to get them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ai_memory.benchmarks.recall import RecallResult
from ai_memory.benchmarks.scale import SEARCH_KINDS, StepResult

INSTALL_HINT = "plots need matplotlib: pip install 'ai-memory[bench]'"
PERCENTILES = (("p50", "-"), ("p95", "--"), ("p99", ":"))


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def write_plots(results: Sequence[StepResult], out: Path) -> list[Path]:
    """Draw every plot into ``out``; the files written. Call only when ``available()``."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    return [
        _latency(results, out / "search_latency.png"),
        _throughput(results, out / "throughput.png"),
        _footprint(results, out / "memory_per_memory.png"),
    ]


def size_label(size: int) -> str:
    for unit, name in ((1_000_000, "M"), (1_000, "k")):
        if size >= unit and size % (unit // 10) == 0:
            return f"{size / unit:g}{name}"
    return f"{size:,}"


def _axes(ax: Any, sizes: list[int], title: str, ylabel: str) -> None:
    # Log x because sizes grow tenfold; ticks at the measured sizes, named as a user
    # typed them (10k, 1M), not as powers of ten.
    ax.set_xscale("log")
    ax.set_xticks(sizes, [size_label(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("memories")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize="medium")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _latency(results: Sequence[StepResult], path: Path) -> Path:
    import matplotlib.pyplot as plt

    sizes = [r.size for r in results]
    fig, axes = plt.subplots(1, len(SEARCH_KINDS), figsize=(12, 4.2), dpi=110, sharey=True)
    for ax, kind in zip(axes, SEARCH_KINDS, strict=True):
        for name, style in PERCENTILES:
            values = [getattr(r.search[kind], f"{name}_ms") for r in results]
            ax.plot(sizes, values, style, marker="o", label=name)
        _axes(ax, sizes, f"search, {kind}", "ms over HTTP, under writes")
    return _save(fig, path)


def _throughput(results: Sequence[StepResult], path: Path) -> Path:
    import matplotlib.pyplot as plt

    sizes = [r.size for r in results]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    ax.plot(sizes, [r.import_acked_per_s for r in results], "--o", label="import, acknowledged")
    ax.plot(sizes, [r.import_projected_per_s for r in results], "-o", label="import, projected")
    replayed = [(r.size, r.replay_events_per_s) for r in results if r.replay_events_per_s]
    if replayed:
        ax.plot(*zip(*replayed, strict=True), "-s", label="replay of the index")
    _axes(ax, sizes, "ingest and replay throughput", "memories (events) per second")
    return _save(fig, path)


def _footprint(results: Sequence[StepResult], path: Path) -> Path:
    import matplotlib.pyplot as plt

    sizes = [r.size for r in results]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    grown = [(r.size, r.rss_per_memory) for r in results if r.rss_per_memory is not None]
    if grown:
        ax.plot(*zip(*grown, strict=True), "-o", label="RSS above the empty server")
    ax.plot(sizes, [r.disk_bytes / r.stored for r in results], "-s", label="data dir on disk")
    _axes(ax, sizes, "bytes per stored memory", "bytes")
    return _save(fig, path)


def write_recall_plot(results: Sequence[RecallResult], path: Path) -> Path:
    """Recall@10 against search latency (p50 marker, whisker to p95), one point per
    configuration measured into the same directory. Call only when ``available()``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=110)
    for r in results:
        recall = r.recall_at(10)
        p50, p95 = r.search.p50_ms, r.search.p95_ms
        ax.errorbar([p50], [recall], xerr=[[0.0], [p95 - p50]], fmt="o", capsize=3)
        ax.annotate(
            r.label,
            (p50, recall),
            textcoords="offset points",
            xytext=(0, 8),
            ha="center",
            fontsize="small",
        )
    ax.set_xscale("log")
    # Plain milliseconds on the log axis; room for the labels on both sides.
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    lows = [r.search.p50_ms for r in results] or [1.0]
    highs = [r.search.p95_ms for r in results] or [1.0]
    ax.set_xlim(min(lows) / 2, max(highs) * 2)
    recalls = [r.recall_at(10) for r in results] or [0.0]
    ax.set_ylim(min(recalls) - 3, max(recalls) + 3)
    ax.set_xlabel("search over HTTP, ms (point p50, bar to p95)")
    ax.set_ylabel("LoCoMo recall@10, all questions (%)")
    ax.set_title("recall against latency, per configuration", fontsize="medium")
    ax.grid(True, alpha=0.3)
    return _save(fig, path)
