"""Shared builders for the governance tests: memories, a tiny in-memory state store."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from ai_memory.core.governance import (
    DictionaryConflictDetector,
    GovernanceParams,
    GovernedMemory,
    Transition,
    check_transition,
    govern_write,
)
from ai_memory.core.governance.extraction import Interaction, RuleBasedExtractor
from ai_memory.core.record import MemoryState, MemoryType

T0 = datetime(2026, 5, 16, tzinfo=UTC)
PARAMS = GovernanceParams()


def days(n: float) -> datetime:
    return T0 + timedelta(days=n)


def memory(memory_id: str, **overrides: object) -> GovernedMemory:
    base = GovernedMemory(
        memory_id=memory_id,
        memory_type=MemoryType.FACT,
        content=f"content of {memory_id}",
        importance=0.8,
        confidence=0.9,
        created_at=T0,
    )
    return replace(base, **overrides)  # type: ignore[arg-type]


class Store:
    """Memories by id; writes go through the extractor and the θ rule like production."""

    def __init__(self, params: GovernanceParams = PARAMS) -> None:
        self.params = params
        self.memories: dict[str, GovernedMemory] = {}
        self.extractor = RuleBasedExtractor()
        self.detector = DictionaryConflictDetector()

    def say(self, memory_id: str, text: str, at: datetime) -> GovernedMemory:
        extracted = self.extractor.extract(Interaction(text, at, "user:alice", "agent-a"))
        assert len(extracted) == 1, extracted
        new = extracted[0].to_governed(memory_id)
        outcome = govern_write(new, self.memories.values(), at, self.params, self.detector)
        self.memories[memory_id] = replace(new, state=outcome.new_state)
        self.apply(outcome.transitions)
        return self.memories[memory_id]

    def apply(self, transitions: Iterable[Transition]) -> None:
        for t in transitions:
            check_transition(t)
            current = self.memories[t.memory_id]
            assert current.state is t.from_state, (t, current.state)
            self.memories[t.memory_id] = replace(current, state=t.to_state)

    def states(self) -> dict[str, MemoryState]:
        return {k: m.state for k, m in sorted(self.memories.items())}

    def active(self) -> list[str]:
        return [k for k, s in self.states().items() if s is MemoryState.ACTIVE]
