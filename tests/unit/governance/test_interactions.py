"""The interaction decision, pure: extracted memories governed against the scope's
memories and against each other, every outcome an event, nothing read or written."""

from __future__ import annotations

import itertools
import json

from ai_memory.core.events import (
    EventHeader,
    InteractionRecorded,
    MemoriesRecalled,
    MemoryStateChanged,
    MemoryWritten,
)
from ai_memory.core.governance import DictionaryConflictDetector, GovernedMemory, from_stored
from ai_memory.core.governance.extraction import Interaction, RuleBasedExtractor
from ai_memory.core.governance.interactions import (
    InteractionDecision,
    decide_interaction,
    extracted_memory_id,
)
from ai_memory.core.record import MemoryState, StoredRecord

from .helpers import PARAMS, days

SCOPE = "user:alice"


def decide(
    text: str, current: list[GovernedMemory], day: float = 0, interaction_id: str = "i-1"
) -> InteractionDecision:
    ids = itertools.count(1)
    at = days(day)
    interaction = Interaction(text, at, SCOPE, "chat", "s1")
    return decide_interaction(
        interaction,
        interaction_id,
        RuleBasedExtractor().extract(interaction),
        current,
        now=at,
        params=PARAMS,
        detector=DictionaryConflictDetector(),
        header=lambda actor: EventHeader(f"e{next(ids)}", "t", at, actor),
    )


def governed(decision: InteractionDecision) -> list[GovernedMemory]:
    """What a later decision sees of this one's memories (as the projection would)."""
    out: list[GovernedMemory] = []
    for e in decision.events:
        if isinstance(e, MemoryWritten):
            stored = StoredRecord(
                "t", e.record, e.version, e.state, e.content_sha256, e.header.occurred_at, 1
            )
            out.append(from_stored(stored, PARAMS))
    return out


def test_the_interaction_comes_first_and_records_what_was_decided() -> None:
    decision = decide("I live in Auckland.", [])
    first, *rest = decision.events
    assert isinstance(first, InteractionRecorded)
    assert [type(e) for e in rest] == [MemoryWritten]
    written = rest[0]
    assert isinstance(written, MemoryWritten)
    assert written.record.id == extracted_memory_id("i-1", 0)
    assert written.record.meta["source"] == {"interaction_id": "i-1", "session_id": "s1"}
    assert written.cause == "extractor" and written.state is MemoryState.ACTIVE
    extraction = json.loads(first.extraction_json or "{}")
    assert extraction["extractor"] == "rules/1"
    assert extraction["memories"] == decision.memories
    assert [m["slot"] for m in decision.memories] == ["fact/residence"]


def test_a_conflicting_memory_moves_the_old_one_with_its_reason() -> None:
    before = decide("I live in Auckland.", [])
    after = decide("I moved to Sydney.", governed(before), day=30, interaction_id="i-2")
    changes = [e for e in after.events if isinstance(e, MemoryStateChanged)]
    assert [c.memory_id for c in changes] == [extracted_memory_id("i-1", 0)]
    assert changes[0].to_state in (MemoryState.HISTORICAL, MemoryState.ARCHIVED)
    assert changes[0].header.actor == "governance"
    reason = json.loads(changes[0].decision_json or "{}")
    assert reason["superseded_by"] == extracted_memory_id("i-2", 0)
    assert any(t["cause"].startswith("conflict.theta") for t in after.transitions)


def test_a_restatement_is_a_mention_of_the_memory_it_restates() -> None:
    before = decide("I live in Auckland.", [])
    again = decide("I live in Auckland.", governed(before), day=1, interaction_id="i-2")
    mentions = [e for e in again.events if isinstance(e, MemoriesRecalled)]
    assert [m.memory_ids for m in mentions] == [(extracted_memory_id("i-1", 0),)]


def test_the_same_inputs_give_the_same_events() -> None:
    assert decide("I live in Auckland. I like tea.", []) == decide(
        "I live in Auckland. I like tea.", []
    )
