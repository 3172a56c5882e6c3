"""End to end: ``ai-memory bench scale`` at tiny sizes, exactly as a user runs it — it
starts its own server, grows it, restarts it, replays its index and writes its outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n"
SIZES = (500, 1500)
CLI = [sys.executable, "-m", "ai_memory.entrypoints.cli"]


def test_the_scale_profile_prints_the_table_and_writes_json_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "out"
    steps = ",".join(map(str, SIZES))
    options = ["--steps", steps, "--queries", "50", "--write-rate", "20", "--out", str(out)]
    done = subprocess.run(
        [*CLI, "bench", "scale", *options],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]

    table = done.stdout.splitlines()
    assert table[0] == "| metric | 500 | 1,500 |"
    assert any(line.startswith("| search, big scope, p50 / p95 / p99 ms |") for line in table)
    assert any(line.startswith("| replay index, events/s |") for line in table)

    report = json.loads((out / "bench-scale.json").read_text())
    steps_out = report["steps"]
    assert [s["size"] for s in steps_out] == list(SIZES)
    for step in steps_out:
        for latency in step["search"].values():
            assert 0 < latency["p50_ms"] <= latency["p95_ms"] <= latency["p99_ms"]
            assert latency["count"] == 50
        assert step["import_projected_per_s"] > 0
        assert step["rss_bytes"] > 0 and step["peak_rss_bytes"] >= step["rss_bytes"]
        assert step["disk_bytes"] > 0
        assert step["restart_first_search_s"] >= step["restart_healthy_s"] > 0
        assert step["replay_events_per_s"] > 0
        assert step["replay_events"] >= step["size"]
        assert step["writes_achieved_per_s"] > 0 and step["writes_failed"] == 0
        assert step["write_latency"]["p50_ms"] > 0

    for name in ("search_latency.png", "throughput.png", "memory_per_memory.png"):
        assert (out / name).read_bytes()[:8] == PNG, name
    # The temporary data dir is gone (no --keep).
    assert "data kept" not in done.stderr
