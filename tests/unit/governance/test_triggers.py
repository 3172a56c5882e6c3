from __future__ import annotations

import pytest

from ai_memory.core.governance import Trigger, Turn, should_write
from ai_memory.core.record import MemoryType


def triggers(turn: Turn) -> list[Trigger]:
    return [s.trigger for s in should_write(turn)]


@pytest.mark.parametrize(
    "text", ["From now on, reply in Chinese.", "Please don't create folders.", "以后回复都用中文"]
)
def test_explicit_preference(text: str) -> None:
    (s,) = should_write(Turn(text))
    assert (s.trigger, s.memory_type, s.content) == (
        Trigger.EXPLICIT_PREFERENCE,
        MemoryType.PREFERENCE,
        text,
    )


def test_task_closed_by_flag_or_words() -> None:
    (s,) = should_write(Turn("ok", speaker="agent", task_outcome="failed"))
    assert s.trigger is Trigger.TASK_CLOSED and s.memory_type is MemoryType.TASK
    assert s.content is None and "failed" in s.reason
    assert triggers(Turn("The migration is finished.", speaker="agent")) == [Trigger.TASK_CLOSED]
    assert triggers(Turn("任务完成了")) == [Trigger.TASK_CLOSED]


@pytest.mark.parametrize(
    "text", ["Fixed it: the root cause was a stale lock.", "终于解决了，原因是缓存"]
)
def test_problem_solved_becomes_skill(text: str) -> None:
    (s,) = should_write(Turn(text, speaker="agent"))
    assert s.trigger is Trigger.PROBLEM_SOLVED and s.memory_type is MemoryType.SKILL


@pytest.mark.parametrize(
    "text",
    [
        "I don't need you to explain the theory, just give the answer.",
        "不对，我要的是结论",
        "No, I meant the other file.",
    ],
)
def test_user_correction(text: str) -> None:
    (s,) = should_write(Turn(text))
    assert s.trigger is Trigger.USER_CORRECTION and s.importance == 0.9


def test_summary_always_at_conversation_end() -> None:
    out = should_write(Turn("thanks, bye", conversation_ended=True, summary="Planned the trip."))
    assert [(s.trigger, s.memory_type, s.content) for s in out] == [
        (Trigger.CONVERSATION_SUMMARY, MemoryType.INTERACTION, "Planned the trip.")
    ]


def test_small_talk_writes_nothing() -> None:
    assert should_write(Turn("What's the weather like?")) == []
    assert should_write(Turn("今天天气不错")) == []
    # agent turns never count as user preferences
    assert should_write(Turn("I always use tabs.", speaker="agent")) == []
