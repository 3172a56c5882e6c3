"""The scale profile's table: the server's resident memory split into its own and the
file pages it maps (which a memory-mapped SQLite reader or index segment adds)."""

from __future__ import annotations

from dataclasses import replace

from ai_memory.benchmarks import report
from ai_memory.benchmarks.load import Latency
from ai_memory.benchmarks.scale import SEARCH_KINDS, StepResult

MIB = 1024 * 1024


def step() -> StepResult:
    latency = Latency(1.0, 2.0, 3.0, 10)
    return StepResult(
        size=10_000,
        stored=10_100,
        import_acked_per_s=1_000.0,
        import_projected_per_s=900.0,
        index_idle_wait_s=1.0,
        search=dict.fromkeys(SEARCH_KINDS, latency),
        writes_target_per_s=100.0,
        writes_achieved_per_s=100.0,
        writes_failed=0,
        write_latency=latency,
        rss_bytes=300 * MIB,
        peak_rss_bytes=400 * MIB,
        disk_bytes=50 * MIB,
        stop_s=0.2,
        restart_healthy_s=2.0,
        restart_first_search_s=2.1,
        empty_rss_bytes=180 * MIB,
        rss_anon_bytes=220 * MIB,
        rss_file_bytes=80 * MIB,
    )


def row(table: str, label: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(f"| {label} |"))


def test_the_resident_memory_is_shown_split() -> None:
    label = "of which its own / mapped file pages, MiB"
    assert row(report.markdown([step()]), label) == f"| {label} | 220 / 80 |"
    unknown = replace(step(), rss_anon_bytes=None, rss_file_bytes=None)
    assert row(report.markdown([unknown]), label) == f"| {label} | - |"
