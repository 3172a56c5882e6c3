"""System logs vs memories, type labels and guesses, context-dependent references."""

from __future__ import annotations

import pytest

from ai_memory.core.record import MemoryType
from ai_memory.migration.classify import classify, context_references, guess_type, map_type


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[INFO] user logged in", "log level"),
        ("[debug] cache warm", "log level"),
        ("ERROR: connection refused", "log level"),
        ("WARN [pool-1] slow query", "log level"),
        ("2024-03-12 09:30:01,123 WARN app.db Slow query", "timestamped log line"),
        ("2024-03-12T09:30:01Z [worker] ERROR job failed", "timestamped log line"),
        ('Traceback (most recent call last):\n  File "a.py", line 3, in <module>', "stack trace"),
        ("java.lang.NullPointerException\n    at com.acme.Foo.bar(Foo.java:42)", "stack trace"),
        (
            '127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326',
            "HTTP access line",
        ),
        ("POST /v1/memories 201", "HTTP access line"),
        ("heartbeat ok", "heartbeat/debug noise"),
        ("ping 12ms", "heartbeat/debug noise"),
        ("health check passed", "heartbeat/debug noise"),
    ],
)
def test_log_lines_are_system_logs(text: str, reason: str) -> None:
    verdict = classify(text)
    assert verdict.system_log
    assert verdict.reason == reason


@pytest.mark.parametrize(
    "text",
    [
        "Alice got an error when deploying; remember to check the logs first.",
        "Info about Bob: he likes jazz.",
        "Debugging tip: use pdb.set_trace() before the failing call.",
        "The user wants warnings shown in red.",
        "Heartbeat monitoring for the plant should alert at 120 bpm.",
        "用户偏好：回复使用中文，避免长表格。",
        "GET requests to the billing API must be cached for 5 minutes.",
    ],
)
def test_prose_mentioning_logs_stays_a_memory(text: str) -> None:
    assert not classify(text).system_log


def test_type_and_level_columns_mark_system_logs() -> None:
    assert classify("user clicked save", type_value="log").system_log
    assert classify("user clicked save", {"level": "DEBUG"}).system_log
    assert not classify("user clicked save", {"level": "beginner"}).system_log
    assert not classify("Alice likes tea", type_value="preference").system_log


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("preference", MemoryType.PREFERENCE),
        ("user_preferences", MemoryType.PREFERENCE),
        ("Facts", MemoryType.FACT),
        ("semantic", MemoryType.FACT),
        ("todo", MemoryType.TASK),
        ("procedural", MemoryType.SKILL),
        ("episodic", MemoryType.INTERACTION),
        ("chat message", None),
        ("banana", None),
        (None, None),
    ],
)
def test_map_type(label: str | None, expected: MemoryType | None) -> None:
    assert map_type(label) == expected


def test_guess_type() -> None:
    assert guess_type("Alice prefers short answers.") == MemoryType.PREFERENCE
    assert guess_type("用户喜欢绿色按钮") == MemoryType.PREFERENCE
    assert guess_type("Landing page redesign: next step is the pricing table.") == MemoryType.TASK
    assert guess_type("The data platform runs PostgreSQL 16.") == MemoryType.FACT


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("User said that thing needs to change", "that thing"),
        ("Go with the plan we discussed", "the plan we discussed"),
        ("Ship it as discussed", "as discussed"),
        ("Same as last time, please", "Same as last time"),
        ("用户说上次那个要改", "上次那个"),
        ("把那个东西发给我", "那个东西"),
    ],
)
def test_context_references(text: str, phrase: str) -> None:
    assert context_references(text)[0] == phrase


def test_self_contained_text_has_no_context_references() -> None:
    text = (
        "On 2026-03-12, in the product page review, Alice asked to change the button under "
        "the home carousel from blue to green. The thing she cares about most is contrast."
    )
    assert context_references(text) == []
