"""When to write a memory: the five write triggers (docs/API.md, ``/v1/write-triggers``).

Writing every turn floods the store with noise; writing too little leaves agents with no
memory. A turn is worth a write when

1. the user states an explicit, lasting preference → ``preference``, write immediately;
2. a goal-directed task closed (succeeded or failed) → ``task``: what was done, the
   result, what is left;
3. a long-standing problem was solved → ``skill``: the fix, for next time;
4. the user corrected the agent → ``preference`` with high importance (negative feedback
   is the most valuable kind);
5. the conversation ends → an ``interaction`` summary, even when nothing else triggered.

``should_write`` is pure and explains each suggestion; agents call it on their own turns
and an extraction pipeline can call it before extracting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from ..record import MemoryType
from .extraction.rules import STRONG_CORRECTIONS, WEAK_CORRECTIONS


class Trigger(StrEnum):
    EXPLICIT_PREFERENCE = "explicit_preference"
    TASK_CLOSED = "task_closed"
    PROBLEM_SOLVED = "problem_solved"
    USER_CORRECTION = "user_correction"
    CONVERSATION_SUMMARY = "conversation_summary"


@dataclass(frozen=True)
class Turn:
    text: str
    speaker: Literal["user", "agent"] = "user"
    #: Set by the agent when a goal-directed task closed on this turn.
    task_outcome: Literal["succeeded", "failed"] | None = None
    conversation_ended: bool = False
    summary: str | None = None  # the agent's summary, when the conversation ended


@dataclass(frozen=True)
class WriteSuggestion:
    trigger: Trigger
    memory_type: MemoryType
    content: str | None  # None: the agent composes it (task record, summary)
    reason: str
    importance: float


_PREFERENCE = re.compile(
    r"\b(?:from now on|going forward|in (?:the )?future|always|never|please (?:don't|do not|"
    r"use|reply|answer|write|keep)|don't ever|i (?:would |'d )?prefer|i want you to)\b"
    r"|以后|今后|总是|永远不要|不要再|别再|请用|请不要|我希望你|我更喜欢|我喜欢|我不喜欢",
    re.IGNORECASE,
)
_TASK_CLOSED = re.compile(
    r"\b(?:task (?:is )?(?:done|complete|completed|finished)|we(?:'re| are) done|it'?s done|"
    r"shipped|finished|completed|gave up on|abandoned)\b"
    r"|任务完成|搞定了|完成了|做完了|上线了|放弃了|失败了",
    re.IGNORECASE,
)
_SOLVED = re.compile(
    r"\b(?:fixed|solved|resolved|the fix (?:was|is)|root cause|turned out|works now|"
    r"figured (?:it )?out)\b"
    r"|解决了|修好了|原因是|根因|搞明白了|终于好了",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:you're wrong|you are wrong|that's wrong|that's not what i|i don't need you to|"
    r"stop (?:doing|explaining)|don't explain|i said)\b"
    r"|不对|错了|不是这样|我不需要你|别解释|不用解释|我说的是|更正",
    re.IGNORECASE,
)


def _is_correction(text: str) -> bool:
    stripped = text.strip()
    markers = (*STRONG_CORRECTIONS, *WEAK_CORRECTIONS)
    return bool(_CORRECTION.search(stripped)) or any(p.match(stripped) for p in markers)


def should_write(turn: Turn) -> list[WriteSuggestion]:
    """The memories worth writing after ``turn``, in trigger order, each at most once."""
    out: list[WriteSuggestion] = []
    text = turn.text.strip()
    is_user = turn.speaker == "user"
    if is_user and text and _is_correction(text):
        out.append(
            WriteSuggestion(
                Trigger.USER_CORRECTION,
                MemoryType.PREFERENCE,
                text,
                "the user corrected the agent: record the corrected expectation",
                0.9,
            )
        )
    elif is_user and text and _PREFERENCE.search(text):
        out.append(
            WriteSuggestion(
                Trigger.EXPLICIT_PREFERENCE,
                MemoryType.PREFERENCE,
                text,
                "the user stated a lasting preference: write it immediately",
                0.8,
            )
        )
    if turn.task_outcome is not None or (text and _TASK_CLOSED.search(text)):
        outcome = turn.task_outcome or "closed"
        out.append(
            WriteSuggestion(
                Trigger.TASK_CLOSED,
                MemoryType.TASK,
                None,
                f"a task {outcome}: record what was done, the result and what is left",
                0.8,
            )
        )
    if text and _SOLVED.search(text):
        out.append(
            WriteSuggestion(
                Trigger.PROBLEM_SOLVED,
                MemoryType.SKILL,
                text,
                "a problem was solved: record the fix as a reusable skill",
                0.7,
            )
        )
    if turn.conversation_ended:
        out.append(
            WriteSuggestion(
                Trigger.CONVERSATION_SUMMARY,
                MemoryType.INTERACTION,
                turn.summary,
                "the conversation ended: keep a summary of its decisions and open points",
                0.5,
            )
        )
    return out
