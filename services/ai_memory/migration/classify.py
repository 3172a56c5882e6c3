"""Tell memories from system logs, map source type labels, and spot context-dependent text.

Old tools often kept user preferences and their own logs in one table. A row is a
**system log** when its text has the shape of a log line — a log level at the start
(``[INFO]``, ``ERROR:``, ``2024-03-12 09:30:01,123 WARN ...``), a stack trace, an HTTP
access-log line, heartbeat/health-check noise — or when a type/level column says so.
The rules are anchored (a level must open the line, a trace must have its frame syntax)
so ordinary prose that merely mentions "error" or "info" stays a memory.

Context-dependent references ("that thing", "the plan we discussed", "上次那个") are the
"暗语" (cant) of a memory dump: text that only made sense inside the old tool. They are
reported, not rejected; expanding them into self-contained text is the migrating person's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ai_memory.core.record import MemoryType

_LEVELS = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE)"
_LOG_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("log level", re.compile(rf"^\s*\[\s*{_LEVELS}\s*\]", re.IGNORECASE)),
    ("log level", re.compile(rf"^\s*{_LEVELS}(?:\s*[:|\-\]]\s|\s+\[)")),
    (
        "timestamped log line",
        re.compile(
            rf"^\s*\[?\d{{4}}-\d{{2}}-\d{{2}}[ T]\d{{2}}:\d{{2}}:\d{{2}}[^\s\]]*\]?\s+"
            rf"(?:\[?\w[\w.-]*\]?\s+)?\[?{_LEVELS}\b"
        ),
    ),
    ("stack trace", re.compile(r"Traceback \(most recent call last\)")),
    ("stack trace", re.compile(r"^\s*at [\w$.<>]+\([\w$.]*\.(?:java|kt|scala):\d+\)", re.M)),
    ("stack trace", re.compile(r"^\s*File \"[^\"]+\", line \d+, in ", re.M)),
    ("stack trace", re.compile(r"^Exception in thread \"")),
    (
        "HTTP access line",
        re.compile(r"\"(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) \S+ HTTP/\d(?:\.\d)?\" \d{3}\b"),
    ),
    (
        "HTTP access line",
        re.compile(r"^\s*(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /\S* (?:HTTP/\S+ )?\d{3}\b"),
    ),
    (
        "heartbeat/debug noise",
        re.compile(
            r"^\s*(?:heartbeat|keep-?alive|ping|pong|health[ _-]?check|tick|debug)\b"
            r"[\s:=-]*(?:ok|sent|received|passed|alive|\d+(?:\.\d+)?\s*ms|#?\d+)?\s*[.!]?\s*$",
            re.IGNORECASE,
        ),
    ),
)
_LOG_TYPES = frozenset(
    {
        "log",
        "logs",
        "system",
        "system_log",
        "syslog",
        "debug",
        "trace",
        "telemetry",
        "metric",
        "metrics",
        "heartbeat",
        "audit_log",
        "event_log",
        "access_log",
        "error_log",
    }
)
_LEVEL_COLUMNS = ("level", "log_level", "loglevel", "severity", "levelname")
_LEVEL_VALUE = re.compile(rf"^{_LEVELS}$", re.IGNORECASE)

TYPE_SYNONYMS: dict[str, MemoryType] = {
    **{t.value: t for t in MemoryType},
    **dict.fromkeys(
        (
            "pref",
            "prefs",
            "preferences",
            "user_preference",
            "user_preferences",
            "setting",
            "settings",
            "persona",
            "profile",
            "like",
            "likes",
        ),
        MemoryType.PREFERENCE,
    ),
    **dict.fromkeys(
        (
            "facts",
            "memory",
            "memories",
            "knowledge",
            "semantic",
            "note",
            "notes",
            "info",
            "entity",
            "observation",
        ),
        MemoryType.FACT,
    ),
    **dict.fromkeys(
        ("tasks", "todo", "todos", "goal", "goals", "plan", "project", "progress", "status"),
        MemoryType.TASK,
    ),
    **dict.fromkeys(
        (
            "skills",
            "procedure",
            "procedural",
            "lesson",
            "lessons",
            "howto",
            "how-to",
            "playbook",
            "instruction",
            "instructions",
        ),
        MemoryType.SKILL,
    ),
    **dict.fromkeys(
        (
            "interactions",
            "chat",
            "message",
            "messages",
            "conversation",
            "dialog",
            "dialogue",
            "episode",
            "episodic",
            "history",
            "turn",
            "event",
            "events",
        ),
        MemoryType.INTERACTION,
    ),
}
_PREFERENCE_HINTS = re.compile(
    r"\b(?:prefers?|preferred|likes?|dislikes?|hates?|loves?|wants?|always|never|favou?rite)\b"
    r"|喜欢|不喜欢|偏好|讨厌|希望|习惯",
    re.IGNORECASE,
)
_TASK_HINTS = re.compile(
    r"\b(?:todo|to-do|deadline|next step|in progress|blocked|milestone|due)\b"
    r"|待办|进度|截止|下一步",
    re.IGNORECASE,
)
_CONTEXT_REFERENCES = re.compile(
    r"\b(?:that|this) (?:thing|stuff)\b|\bthat one\b"
    r"|\bthe (?:plan|idea|approach|proposal|design|option|fix|thing)s? (?:we|you|I) "
    r"(?:discussed|talked about|mentioned|agreed(?: on)?|chose|picked)\b"
    r"|\bas (?:we )?(?:discussed|mentioned|agreed)(?: before| earlier| last time)?\b"
    r"|\b(?:same as|like) (?:last time|before)\b"
    r"|\bthe (?:usual|other) (?:one|thing|way)\b"
    r"|上次那个|上回那个|那个东西|这个东西|那件事|那个方案|之前说的|上次说的|刚才说的|你知道的|老样子|"
    r"之前那个|还是那个",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    """``system_log`` rows are not memories; ``reason`` says which rule matched."""

    system_log: bool
    reason: str = ""


MEMORY = Verdict(False)


def classify(text: str, row: dict[str, Any] | None = None, type_value: object = None) -> Verdict:
    """Is this row a system log rather than a memory?"""
    if isinstance(type_value, str) and type_value.strip().lower() in _LOG_TYPES:
        return Verdict(True, f"type {type_value.strip()!r} is a log category")
    if row:
        for column in _LEVEL_COLUMNS:
            value = row.get(column)
            if isinstance(value, str) and _LEVEL_VALUE.match(value.strip()):
                return Verdict(True, f"column {column!r} holds log level {value.strip()!r}")
    head = text[:2000]
    for reason, pattern in _LOG_PATTERNS:
        if pattern.search(head):
            return Verdict(True, reason)
    return MEMORY


def map_type(value: object) -> MemoryType | None:
    """The protocol type a source label stands for, or None if it is unknown."""
    if not isinstance(value, str):
        return None
    key = value.strip().lower().replace(" ", "_")
    return TYPE_SYNONYMS.get(key) or TYPE_SYNONYMS.get(key.rstrip("s"))


def guess_type(text: str) -> MemoryType:
    """A best guess from the text alone: preference, task, else fact."""
    if _PREFERENCE_HINTS.search(text):
        return MemoryType.PREFERENCE
    if _TASK_HINTS.search(text):
        return MemoryType.TASK
    return MemoryType.FACT


def context_references(text: str) -> list[str]:
    """Phrases that only make sense with the old tool's context ("that thing", "上次那个")."""
    return [m.group(0) for m in _CONTEXT_REFERENCES.finditer(text)]
