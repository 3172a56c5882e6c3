"""The scale profile's results as a markdown table (one column per size) and as JSON."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ai_memory import __version__
from ai_memory.benchmarks.load import Latency
from ai_memory.benchmarks.scale import SEARCH_KINDS, ScaleOptions, StepResult

MIB = 1 << 20
Row = tuple[str, Callable[[StepResult], str]]


def _maybe(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def _mib(value: int | None) -> str:
    return "-" if value is None else f"{value / MIB:,.0f}"


def _per(total: int | None, count: int) -> str:
    return "-" if total is None else f"{total / count:,.0f}"


def _percentiles(s: Latency) -> str:
    return f"{s.p50_ms:.1f} / {s.p95_ms:.1f} / {s.p99_ms:.1f}"


def _search_row(kind: str) -> Row:
    return f"search, {kind}, p50 / p95 / p99 ms", lambda r: _percentiles(r.search[kind])


ROWS: list[Row] = [
    ("memories imported", lambda r: f"{r.size:,}"),
    ("memories stored (+ written during searches)", lambda r: f"{r.stored:,}"),
    ("import, acknowledged, memories/s", lambda r: f"{r.import_acked_per_s:,.0f}"),
    ("import, fully projected, memories/s", lambda r: f"{r.import_projected_per_s:,.0f}"),
    (
        "wait for index compaction, s",
        lambda r: "not exported" if r.index_idle_wait_s is None else f"{r.index_idle_wait_s:.1f}",
    ),
    *(_search_row(kind) for kind in SEARCH_KINDS),
    (
        "writes during searches, achieved / target per s",
        lambda r: (
            f"{r.writes_achieved_per_s:.0f} / {r.writes_target_per_s:g}"
            + (f" ({r.writes_failed} failed)" if r.writes_failed else "")
        ),
    ),
    (
        "single writes during searches, p50 / p95 / p99 ms",
        lambda r: "-" if r.write_latency is None else _percentiles(r.write_latency),
    ),
    (
        "server RSS now / peak, MiB",
        lambda r: (
            "-"
            if r.rss_bytes is None or r.peak_rss_bytes is None
            else f"{r.rss_bytes / MIB:,.0f} / {r.peak_rss_bytes / MIB:,.0f}"
        ),
    ),
    (
        "of which its own / mapped file pages, MiB",
        lambda r: (
            "-"
            if r.rss_anon_bytes is None or r.rss_file_bytes is None
            else f"{r.rss_anon_bytes / MIB:,.0f} / {r.rss_file_bytes / MIB:,.0f}"
        ),
    ),
    ("server RSS empty (after one search), MiB", lambda r: _mib(r.empty_rss_bytes)),
    (
        "RSS above the empty server, per stored memory, bytes",
        lambda r: _maybe(r.rss_per_memory, ",.0f"),
    ),
    ("data dir on disk, MiB", lambda r: f"{r.disk_bytes / MIB:,.1f}"),
    ("disk per stored memory, bytes", lambda r: _per(r.disk_bytes, r.stored)),
    ("stop (SIGTERM to exit), s", lambda r: f"{r.stop_s:.2f}"),
    (
        "restart to healthy / first search, s",
        lambda r: f"{r.restart_healthy_s:.2f} / {r.restart_first_search_s:.2f}",
    ),
    ("replay index, events/s", lambda r: _maybe(r.replay_events_per_s, ",.0f")),
    ("replay index, CPU ms per event", lambda r: _maybe(r.replay_cpu_ms_per_event, ".3f")),
]


def markdown(results: Sequence[StepResult]) -> str:
    lines = [
        "| metric | " + " | ".join(f"{r.size:,}" for r in results) + " |",
        "|---|" + "---|" * len(results),
    ]
    lines += [f"| {label} | " + " | ".join(cell(r) for r in results) + " |" for label, cell in ROWS]
    return "\n".join(lines)


def as_json(options: ScaleOptions, results: Sequence[StepResult]) -> dict[str, Any]:
    """The results with what is needed to compare runs: the options and the machine."""
    return {
        "profile": "scale",
        "ai_memory": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "corpus": options.corpus.name,
        "options": {
            "sizes": list(options.sizes),
            "write_rate": options.write_rate,
            "queries": options.queries,
            "replay": options.replay,
        },
        "steps": [dataclasses.asdict(r) for r in results],
    }


def write_json(path: Path, options: ScaleOptions, results: Sequence[StepResult]) -> None:
    path.write_text(json.dumps(as_json(options, results), indent=2) + "\n", encoding="utf-8")
