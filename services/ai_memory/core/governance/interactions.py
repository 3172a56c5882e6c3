"""Recording an interaction, decided: (interaction, what was extracted from it, the
scope's governed memories, params, ids) → the events to append and what they mean.

Each extracted memory is governed against the current memories of its scope (the θ rule,
``govern_write``) and against the ones extracted before it from the same interaction;
the outcome becomes events: the interaction itself (``InteractionRecorded``, first, with
the extraction recorded), each extracted memory (``MemoryWritten`` with its initial
state), each state change of an older memory (``MemoryStateChanged`` with the rule and
scores) and each restatement (``MemoriesRecalled``, a mention).

Pure: the caller supplies the clock reading, the interaction id and the event headers
(``header(actor)``), so the same inputs always give the same events.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ..decide import decide_write
from ..events import (
    DomainEvent,
    EventHeader,
    InteractionRecorded,
    MemoriesRecalled,
    MemoryStateChanged,
)
from ..record import MemoryRecord, MemoryState
from .conflicts import ConflictDetector
from .extraction.base import ExtractedMemory, Interaction
from .model import META_KEY, GovernedMemory, Transition
from .params import GovernanceParams
from .resolution import CAUSE_PAST_STATE, govern_write

_ID_NAMESPACE = uuid.UUID("0b4c3f7e-9f0e-4d55-8d6a-676f7665726e")
RULES_EXTRACTOR = "rules/1"
HeaderFactory = Callable[[str], EventHeader]  # actor → a fresh header


@dataclass(frozen=True)
class InteractionDecision:
    """``events``: ``InteractionRecorded`` first, then what each memory caused, in order."""

    events: list[DomainEvent]
    memories: list[dict[str, Any]]
    transitions: list[dict[str, Any]]


def extracted_memory_id(interaction_id: str, index: int) -> str:
    """The id of the ``index``-th memory extracted from an interaction (stable on retry)."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"{interaction_id}/{index}"))


def decide_interaction(
    interaction: Interaction,
    interaction_id: str,
    extracted: Sequence[ExtractedMemory],
    current: Sequence[GovernedMemory],
    *,
    now: datetime,
    params: GovernanceParams,
    detector: ConflictDetector,
    header: HeaderFactory,
    model_decision: Mapping[str, Any] | None = None,
) -> InteractionDecision:
    """``model_decision``: a model extractor's recorded decision (None: the rules)."""
    scope, agent = interaction.scope, interaction.source_agent
    events: list[DomainEvent] = []
    written: list[dict[str, Any]] = []
    transitions: list[Transition] = []
    for i, item in enumerate(extracted):
        memory_id = extracted_memory_id(interaction_id, i)
        governed = item.to_governed(memory_id)
        outcome = govern_write(governed, current, now, params, detector)
        meta = item.to_meta()
        if outcome.cause == CAUSE_PAST_STATE:
            # Read back by the valid-time queries: this earlier state joins its slot's
            # timeline although it was never active (core.bitemporal.was_stated).
            meta[META_KEY]["past_state"] = True
        meta["source"] = {
            "interaction_id": interaction_id,
            "session_id": interaction.conversation_id,
        }
        record = MemoryRecord(
            id=memory_id,
            type=item.memory_type,
            content=item.content,
            scope=scope,
            source_agent=agent,
            created_at=item.at,
            tags=(item.slot.key(),),
            meta=meta,
        )
        decided = decide_write(
            record, None, header(agent), cause="extractor", state=outcome.new_state
        )
        assert decided.event is not None  # a fresh id always writes
        events.append(decided.event)
        for t in outcome.transitions:
            if t.memory_id != memory_id and t.from_state is not None:
                events.append(state_event(header("governance"), scope, t, by=memory_id))
        transitions.extend(outcome.transitions)
        if outcome.reinforce:
            events.append(MemoriesRecalled(header(agent), scope, tuple(outcome.reinforce)))
        current = applied(current, governed, outcome.new_state, outcome.transitions)
        written.append(
            {
                "id": memory_id,
                "type": item.memory_type.value,
                "slot": item.slot.key(),
                "value": item.value,
                "state": outcome.new_state.value,
                "cause": outcome.cause,
                "content": item.content,
            }
        )
    decisions = [json.loads(t.decision_json()) for t in transitions]
    extraction = {
        "extractor": RULES_EXTRACTOR if model_decision is None else "model",
        "decision": None if model_decision is None else dict(model_decision),
        "memories": written,
        "transitions": decisions,
    }
    recorded = InteractionRecorded(
        header(agent),
        interaction_id,
        scope,
        agent,
        interaction.conversation_id,
        interaction.text,
        interaction.at,
        json.dumps(extraction, ensure_ascii=False, sort_keys=True),
    )
    return InteractionDecision([recorded, *events], written, decisions)


def state_event(
    header: EventHeader, scope: str, t: Transition, *, by: str | None = None
) -> MemoryStateChanged:
    """A transition as an event; ``by``: the memory whose arrival caused the change
    (lineage: superseded_by)."""
    assert t.from_state is not None
    decision = json.loads(t.decision_json())
    if by is not None:
        decision["superseded_by"] = by
    return MemoryStateChanged(
        header,
        t.memory_id,
        scope,
        t.from_state,
        t.to_state,
        t.cause,
        json.dumps(decision, ensure_ascii=False, sort_keys=True, separators=(",", ":")),
    )


def applied(
    current: Sequence[GovernedMemory],
    new: GovernedMemory,
    new_state: MemoryState,
    transitions: Sequence[Transition],
) -> list[GovernedMemory]:
    """The governed view after a decision, for later memories of the same interaction."""
    moved = {t.memory_id: t.to_state for t in transitions if t.from_state is not None}
    updated = [replace(g, state=moved.get(g.memory_id, g.state)) for g in current]
    updated.append(replace(new, state=new_state))
    return updated
