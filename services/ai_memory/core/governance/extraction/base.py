"""Extraction E(x_t) → ΔM_t: interaction text in, typed memories out.

``ExtractedMemory`` is the L1 atomic memory m = (type, entity, content, C, I, T) plus the
slot value and provenance. ``content`` is always the user's own sentence (the
original utterance), so the record stays self-contained and auditable.

Extractors share one protocol. The rule-based one is pure; an LLM extractor is not, so its
answer is captured as a ``RecordedDecision`` and replayed with ``extracted_from_decision``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ...record import MemoryType
from ..decisions import RecordedDecision
from ..model import META_KEY, GovernedMemory
from ..slots import Slot, normalize_value


@dataclass(frozen=True)
class Interaction:
    """One user utterance to extract from."""

    text: str
    at: datetime
    scope: str
    source_agent: str
    conversation_id: str | None = None


@dataclass(frozen=True)
class ExtractedMemory:
    memory_type: MemoryType
    slot: Slot
    value: str | None  # normalised slot value; None for free-form slots (lessons)
    content: str  # the user's own sentence
    confidence: float  # C
    importance: float  # I
    at: datetime  # T
    scope: str
    source_agent: str
    rule: str  # which rule (or model) produced it
    language: str = "en"
    correction: bool = False  # stated as a correction of something said before
    conversation_id: str | None = None

    def to_meta(self) -> dict[str, Any]:
        """The ``meta`` block to store with the record (read back by ``from_stored``)."""
        block: dict[str, Any] = {
            "slot": self.slot.key(),
            "importance": self.importance,
            "confidence": self.confidence,
            "rule": self.rule,
            "language": self.language,
        }
        if self.value is not None:
            block["value"] = self.value
        if self.correction:
            block["correction"] = True
        if self.conversation_id is not None:
            block["conversation_id"] = self.conversation_id
        return {META_KEY: block}

    def to_governed(self, memory_id: str) -> GovernedMemory:
        """The governance view of this memory before it is written."""
        return GovernedMemory(
            memory_id=memory_id,
            memory_type=self.memory_type,
            content=self.content,
            importance=self.importance,
            confidence=self.confidence,
            created_at=self.at,
            slot=self.slot,
            value=self.value,
        )


class Extractor(Protocol):
    def extract(self, interaction: Interaction) -> list[ExtractedMemory]: ...


# --- LLM extraction: interface and recorded-decision shape -----------------------------

LLM_EXTRACTION_KIND = "extraction.llm"


class LLMExtractionClient(Protocol):
    """A model that turns text into memory items (implemented by an adapter, with I/O).

    Each item: ``{"type": "fact", "slot": "fact/residence", "value": "tokyo",
    "content": "<the user's sentence>", "confidence": 0.9, "importance": 0.8}``."""

    @property
    def model(self) -> str: ...

    def extract(self, text: str) -> Sequence[Mapping[str, Any]]: ...


class LLMExtractor(Protocol):
    """An extractor whose output is recorded: the lead stores ``decision.to_json()`` in the
    write event and a replay calls ``extracted_from_decision`` instead of the model."""

    def extract_recorded(
        self, interaction: Interaction
    ) -> tuple[list[ExtractedMemory], RecordedDecision]: ...


def extraction_decision(
    model: str, interaction: Interaction, items: Sequence[object]
) -> RecordedDecision:
    """The recorded shape of an LLM extraction: inputs = the text, output = the items as
    the model returned them (malformed ones included; replay skips them)."""
    return RecordedDecision(
        kind=LLM_EXTRACTION_KIND,
        model=model,
        inputs={"text": interaction.text},
        output={"memories": [dict(i) if isinstance(i, Mapping) else i for i in items]},
    )


def extracted_from_decision(
    decision: RecordedDecision, interaction: Interaction
) -> list[ExtractedMemory]:
    """Rebuild the memories of a recorded LLM extraction; malformed items are skipped."""
    if decision.kind != LLM_EXTRACTION_KIND:
        raise ValueError(f"not an extraction decision: {decision.kind!r}")
    items = decision.output.get("memories")
    out: list[ExtractedMemory] = []
    for item in items if isinstance(items, list) else []:
        memory = _item(item, decision.model, interaction)
        if memory is not None:
            out.append(memory)
    return out


def _item(item: object, model: str, interaction: Interaction) -> ExtractedMemory | None:
    if not isinstance(item, Mapping):
        return None
    try:
        kind = MemoryType(str(item.get("type")))
        slot = Slot.parse(str(item.get("slot")))
        confidence = float(item.get("confidence", 0.5))
        importance = float(item.get("importance", 0.5))
    except (ValueError, TypeError):
        return None
    content = item.get("content")
    raw_value = item.get("value")
    if not isinstance(content, str) or not content.strip():
        return None
    if not (0.0 <= confidence <= 1.0 and 0.0 <= importance <= 1.0):
        return None
    return ExtractedMemory(
        memory_type=kind,
        slot=slot,
        value=normalize_value(raw_value) if isinstance(raw_value, str) and raw_value else None,
        content=content.strip(),
        confidence=confidence,
        importance=importance,
        at=interaction.at,
        scope=interaction.scope,
        source_agent=interaction.source_agent,
        rule=f"llm:{model}",
        conversation_id=interaction.conversation_id,
    )
