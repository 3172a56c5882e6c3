"""LoCoMo conversations as memories, its questions with their evidence, and the recall@k
retrieval metric (``ai-memory bench locomo``, ``loadtest/bench_locomo.py``).

The data set (``locomo10.json``, CC BY-NC 4.0) is read at run time from a path given by
the caller; nothing of it is stored in this repository or shipped in the package. Each
dialog turn becomes one memory ``"{speaker}: {text}"`` (plus ``[image: {caption}]`` for
shared photos) named by the turn's ``dia_id`` (``D<session>:<turn>``), so a question's
evidence maps to ids;
its ``created_at`` is its session's date plus its index in the session in seconds (the
data set dates sessions only) and its ``meta.session_id`` the session's name.

Evidence strings are not all well formed ("D8:6; D9:17", "D:11:26", "D30:05"): they are
split on ``;`` and whitespace, parsed as ``D:?(\\d+):0*(\\d+)``, and ids that name no turn
are dropped; a question left without evidence is not scored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

CATEGORIES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
KS = (1, 5, 10, 20)

_SESSION = re.compile(r"^session_(\d+)$")
_EVIDENCE = re.compile(r"^D:?(\d+):0*(\d+)$")
_SPLIT = re.compile(r"[;\s]+")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    content: str
    created_at: datetime
    session: str  # "session_<n>": the conversation's session the turn was said in


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]

    @property
    def scope(self) -> str:
        return f"user:locomo-{self.sample_id}"


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_content(turn: Mapping[str, Any]) -> str:
    content = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    if caption:
        content += f" [image: {caption}]"
    return content


def parse_evidence(raw: Iterable[str], known: set[str] | frozenset[str]) -> frozenset[str]:
    out: set[str] = set()
    for item in raw:
        for part in _SPLIT.split(item.strip()):
            match = _EVIDENCE.match(part)
            if match is None:
                continue
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia_id in known:
                out.add(dia_id)
    return frozenset(out)


def parse_sample(sample: Mapping[str, Any]) -> Conversation:
    conv = sample["conversation"]
    turns: list[Turn] = []
    sessions = sorted(
        (int(m.group(1)), key) for key in conv if (m := _SESSION.match(key)) is not None
    )
    for number, key in sessions:
        start = parse_session_date(conv[f"session_{number}_date_time"])
        # The data set dates sessions, not turns: turn i is said i seconds after the
        # session's start, so the order of a session's turns is kept in time.
        turns += [
            Turn(t["dia_id"], turn_content(t), start + timedelta(seconds=i), key)
            for i, t in enumerate(conv[key])
        ]
    known = {t.dia_id for t in turns}
    questions = [
        Question(str(q["question"]), int(q["category"]), ev)
        for q in sample["qa"]
        if (ev := parse_evidence(q.get("evidence") or [], known))
    ]
    return Conversation(str(sample["sample_id"]), turns, questions)


def load(path: Path) -> list[Conversation]:
    with open(path, encoding="utf-8") as f:
        return [parse_sample(s) for s in json.load(f)]


def recall_at(ranked: Sequence[str], evidence: frozenset[str], k: int) -> float:
    return len(evidence.intersection(ranked[:k])) / len(evidence)


@dataclass
class RecallTable:
    """Per-question recall@k, aggregated overall, per category and for categories 1–4."""

    rows: list[tuple[int, tuple[float, ...]]]

    def __init__(self) -> None:
        self.rows = []

    def add(self, category: int, ranked: Sequence[str], evidence: frozenset[str]) -> None:
        self.rows.append((category, tuple(recall_at(ranked, evidence, k) for k in KS)))

    def mean(self, categories: Iterable[int] | None = None) -> tuple[int, tuple[float, ...]]:
        wanted = None if categories is None else set(categories)
        picked = [r for c, r in self.rows if wanted is None or c in wanted]
        if not picked:
            return 0, tuple(0.0 for _ in KS)
        return len(picked), tuple(
            100.0 * sum(col) / len(picked) for col in zip(*picked, strict=True)
        )

    def groups(self) -> list[tuple[str, int, tuple[float, ...]]]:
        out = [("all", *self.mean())]
        out.append(("cat 1–4", *self.mean((1, 2, 3, 4))))
        for c, name in CATEGORIES.items():
            out.append((f"{c} {name}", *self.mean((c,))))
        return out

    def markdown(self) -> str:
        head = "| questions | n | " + " | ".join(f"R@{k}" for k in KS) + " |"
        lines = [head, "|---|---|" + "---|" * len(KS)]
        for name, n, values in self.groups():
            lines.append(f"| {name} | {n} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
        return "\n".join(lines)
