"""End to end: ``ai-memory bench locomo`` on a small data set in LoCoMo's format, exactly
as a user runs it — it starts its own server, imports the turns over HTTP, asks every
question and writes the table, the JSON and the recall/latency plot; a second
configuration into the same directory joins the plot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PNG = b"\x89PNG\r\n\x1a\n"
CLI = [sys.executable, "-m", "ai_memory.entrypoints.cli"]


def _conversation(sample: str, topic: str) -> dict[str, Any]:
    """Two sessions; each question's evidence is a turn that shares no word with it,
    right after the turn that asked it (only conversation context can find it), except
    one found by its own words."""
    session_1 = [
        ("Anna", f"We met at the {topic} club last spring."),
        ("Ben", "How long have you known your friends there?"),
        ("Anna", "Four years now, since college."),
        ("Ben", "Nice weather today."),
    ]
    session_2 = [
        ("Ben", f"Did you bring the {topic} gear?"),
        ("Anna", "Yes, packed it this morning."),
        ("Ben", "Which city are you moving to?"),
        ("Anna", "Lisbon, in March."),
    ]
    conversation: dict[str, Any] = {
        "speaker_a": "Anna",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_2_date_time": "10:00 am on 20 June, 2023",
    }
    for number, turns in ((1, session_1), (2, session_2)):
        conversation[f"session_{number}"] = [
            {"speaker": s, "dia_id": f"D{number}:{i}", "text": t}
            for i, (s, t) in enumerate(turns, start=1)
        ]
    qa = [
        {"question": "How long has Anna known her friends?", "evidence": ["D1:3"], "category": 4},
        {"question": "Where is Anna moving?", "evidence": ["D2:4"], "category": 4},
        {
            "question": f"Where did Anna meet at the {topic} club?",
            "evidence": ["D1:1"],
            "category": 1,
        },
    ]
    return {"sample_id": sample, "conversation": conversation, "qa": qa}


def test_the_recall_profile_reports_recall_latency_and_a_plot(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_conversation("c1", "chess"), _conversation("c2", "rowing")]))
    out = tmp_path / "out"

    def bench(*extra: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*CLI, "bench", "locomo", "--data", str(data), "--out", str(out), *extra],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    with_context = bench()
    rows = {line.split(" | ")[0]: line for line in with_context.stdout.splitlines()}
    assert "| all" in rows and "| held-out half" in rows
    result = json.loads((out / "bench-locomo-minilm-l6-static-256-v1-context-on.json").read_text())
    assert result["questions"] == 6 and result["turns"] == 16 and result["context"] is True
    groups = {g[0]: g for g in result["groups"]}
    assert groups["all"][1] == 6
    recall = groups["all"][2]
    assert all(0.0 <= r <= 100.0 for r in recall) and recall == sorted(recall)  # R@1 ≤ … ≤ R@20
    assert 0 < result["search"]["p50_ms"] <= result["search"]["p95_ms"]

    bench("--no-context")
    off = json.loads((out / "bench-locomo-minilm-l6-static-256-v1-context-off.json").read_text())
    assert off["context"] is False
    assert (out / "recall.png").read_bytes()[:8] == PNG
    md = (out / "bench-locomo-minilm-l6-static-256-v1-context-off.md").read_text()
    assert "context off" in md


def test_a_file_that_is_not_locomo_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    data = tmp_path / "other.json"
    data.write_text('{"not": "locomo"}')
    done = subprocess.run(
        [*CLI, "bench", "locomo", "--data", str(data), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr
