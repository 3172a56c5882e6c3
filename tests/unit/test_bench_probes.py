"""What the scale profile reads off a server: the index compaction gauge (waited on when
exported, skipped when not), and the process's memory and the data dir's size."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from ai_memory.benchmarks import probes


def _metrics(*bodies: str) -> httpx.Client:
    answers = iter(bodies)

    def answer(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=next(answers))

    return httpx.Client(base_url="http://bench", transport=httpx.MockTransport(answer))


def test_waits_while_the_index_compacts() -> None:
    busy = (
        "# TYPE aimem_index_compaction_running gauge\n"
        'aimem_index_compaction_running{partition="0"} 1.0\n'
    )
    idle = busy.replace("} 1.0", "} 0.0")
    with _metrics(busy, busy, idle) as http:
        waited = probes.wait_index_idle(http, lambda: None)
    assert waited is not None and waited > 0


def test_waits_while_conversation_context_warms_up() -> None:
    settled = "aimem_index_compaction_running 0.0\n"
    warming = settled + "aimem_index_context_warming 1.0\n"
    with _metrics(warming, warming, settled + "aimem_index_context_warming 0.0\n") as http:
        waited = probes.wait_index_idle(http, lambda: None)
    assert waited is not None and waited > 0


def test_does_not_wait_when_the_gauge_is_not_exported() -> None:
    with _metrics("aimem_projection_lag_events 0.0\n") as http:
        assert probes.wait_index_idle(http, lambda: None) is None


def test_memory_and_disk(tmp_path: Path) -> None:
    rss, peak = probes.memory_of(os.getpid()) or (0, 0)
    assert 0 < rss <= peak
    anon, mapped = probes.resident_split(os.getpid()) or (0, 0)
    # The kernel moves VmHWM only now and then, so it may lag what is resident now: the
    # split is held to a resident size read just after it (with room for pages mapped
    # in between).
    rss_after, _ = probes.memory_of(os.getpid()) or (0, 0)
    assert anon > 0 and mapped > 0 and anon + mapped <= rss_after + (16 << 20)
    (tmp_path / "a").write_bytes(b"x" * 10_000)
    assert probes.disk_usage(tmp_path) >= 10_000
