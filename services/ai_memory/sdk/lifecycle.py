"""Mounting memory on an agent's lifecycle (docs/SDK.md).

* ``wake_up`` — at start, a *targeted* recall: the 3–8 memories of a scope most relevant
  to the task at hand, as a system-prompt block trimmed to a token budget. Never the
  whole history.
* ``observe`` — during the conversation, *event-driven* writes: the server's write
  triggers judge each turn (an explicit preference, a correction, a solved problem, a
  closed task, the end of the conversation) and only what they flag is written.
* ``end_session`` — at the end, the session summary: one ``interaction`` record (the
  type the server's conversation-summary trigger asks for: the skeleton of a dated
  conversation for replaying the timeline, not a standing fact), written with an id
  derived from the session so a retried call writes nothing twice.

Token counts use a deterministic estimate (``estimate_tokens``), no tokenizer.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from .client import MemoryClient
from .models import InteractionOut, SearchHitOut, TurnIn, WriteOut, WriteSuggestion

__all__ = ["Observation", "end_session", "estimate_tokens", "observe", "wake_up"]

_SUMMARY_CHARS = 1200


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate: one per CJK character, one per 4 other characters
    (rounded up) — close to BPE tokenizers for English and Chinese text."""
    cjk = sum(1 for c in text if "\u3000" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff")
    return cjk + math.ceil((len(text) - cjk) / 4)


def _line(hit: SearchHitOut) -> str:
    r = hit.record
    return f"- [{r.type}] {' '.join(r.content.split())} ({r.source_agent}, {r.created_at[:10]})"


def _fit(line: str, budget: int) -> str:
    """``line`` cut (with an ellipsis) to at most ``budget`` estimated tokens."""
    while line and estimate_tokens(line + "…") > budget:
        line = line[: max(0, len(line) - max(1, len(line) // 10))]
    return line + "…" if line else ""


def wake_up(
    client: MemoryClient,
    task_topic: str,
    scope: str,
    *,
    budget_tokens: int = 800,
    k: int = 6,
) -> str:
    """A system-prompt block of the ``k`` (3–8) memories of ``scope`` most relevant to
    ``task_topic`` (hybrid search, reranked by relevance, recency and type), trimmed to
    ``budget_tokens``; ``""`` when nothing is remembered."""
    if not 3 <= k <= 8:
        raise ValueError("k must be between 3 and 8: a targeted recall, not the history")
    hits = client.search(task_topic, scope=scope, top_k=k).results
    if not hits:
        return ""
    header = f"## What you remember ({scope}) relevant to: {' '.join(task_topic.split())}"
    lines = [header]
    used = estimate_tokens(header)
    for hit in hits:
        line = _line(hit)
        cost = estimate_tokens("\n" + line)
        if used + cost > budget_tokens:
            remaining = budget_tokens - used - 1
            if len(lines) == 1 and remaining > 8:
                lines.append(_fit(line, remaining))
            break
        lines.append(line)
        used += cost
    return "\n".join(lines) if len(lines) > 1 else ""


@dataclass(frozen=True)
class Observation:
    """What ``observe`` did with a turn: the triggers that fired, the memories written,
    the suggestions left for the agent to compose (a closed task's record, a summary),
    and the recorded interaction when ``record_turn`` was set."""

    suggestions: list[WriteSuggestion]
    written: list[WriteOut] = field(default_factory=list)
    pending: list[WriteSuggestion] = field(default_factory=list)
    interaction: InteractionOut | None = None


def _derived_id(kind: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]
    return f"{kind}-{digest}"


def observe(
    client: MemoryClient,
    turn: TurnIn | str,
    scope: str,
    agent: str,
    *,
    session_id: str | None = None,
    record_turn: bool = False,
) -> Observation:
    """Event-driven writes for one turn: ask ``POST /v1/write-triggers`` and write each
    suggestion that carries its content (preference, correction, skill) with an id
    derived from scope, type and text — observing the same turn twice writes once.
    Suggestions without content are returned in ``pending``. With ``record_turn`` the turn
    also goes to ``POST /v1/interactions`` (kept raw as L0, memories extracted and
    conflicts resolved by the governor)."""
    body = TurnIn(text=turn) if isinstance(turn, str) else turn
    suggestions = client.write_triggers(body).suggestions
    written: list[WriteOut] = []
    pending: list[WriteSuggestion] = []
    for s in suggestions:
        if not s.content:
            pending.append(s)
            continue
        meta = {"trigger": s.trigger, "reason": s.reason, "importance": s.importance}
        if session_id:
            meta["session_id"] = session_id
        written.append(
            client.write(
                s.content,
                id=_derived_id("turn", scope, s.type, s.content),
                type=s.type,
                scope=scope,
                source_agent=agent,
                tags=[s.trigger],
                meta=meta,
                wait=True,
            )
        )
    interaction = None
    if record_turn and body.speaker == "user" and body.text.strip():
        interaction = client.record_interaction(
            body.text, scope=scope, source_agent=agent, session_id=session_id, wait=True
        )
    return Observation(suggestions, written, pending, interaction)


def _summarise(transcript: Sequence[str]) -> str:
    """An extractive summary: the opening request, then the last turns, within
    ``_SUMMARY_CHARS`` (pass ``summary=`` to use an LLM's instead)."""
    turns = [" ".join(t.split()) for t in transcript if t.strip()]
    if not turns:
        return ""
    head = f"Session of {len(turns)} turn(s). Opened with: {turns[0]}"
    tail: list[str] = []
    for t in reversed(turns[1:]):
        if len(head) + sum(len(x) + 3 for x in tail) + len(t) + 20 > _SUMMARY_CHARS:
            break
        tail.insert(0, t)
    text = head + (" | Ended with: " + " | ".join(tail) if tail else "")
    return text[:_SUMMARY_CHARS]


def end_session(
    client: MemoryClient,
    transcript: str | Sequence[str],
    scope: str,
    agent: str,
    *,
    session_id: str | None = None,
    summary: str | None = None,
) -> WriteOut | None:
    """Write the session summary as one ``interaction`` memory (tagged
    ``session_summary``), as the server's conversation-summary trigger advises. The text
    is ``summary`` when given, else an extractive summary of ``transcript`` (a string or
    one string per turn). Returns ``None`` for an empty session."""
    turns = [transcript] if isinstance(transcript, str) else list(transcript)
    text = (summary or "").strip() or _summarise(turns)
    if not text:
        return None
    session = session_id or _derived_id("session", scope, agent, *turns)
    triggers = client.write_triggers(
        TurnIn(text=turns[-1] if turns else text, conversation_ended=True, summary=text)
    )
    fired = [s for s in triggers.suggestions if s.trigger == "conversation_summary"]
    memory_type = fired[0].type if fired else "interaction"
    return client.write(
        text,
        id=_derived_id("session-summary", scope, agent, session),
        type=memory_type,
        scope=scope,
        source_agent=agent,
        tags=["session_summary"],
        meta={"session_id": session, "turns": len(turns), "trigger": "conversation_summary"},
        wait=True,
    )
