"""The governance view of a memory and of a state transition.

``GovernedMemory`` holds exactly what HSM-CR needs — slot and value, importance I,
confidence C, timestamp T, mention count n, state and expiry — decoupled from storage so
the rules stay pure and testable. ``from_stored`` maps a stored record onto it, reading
the governance metadata an extractor put under ``meta["governance"]`` (see
``ExtractedMemory.to_meta``) and falling back to per-type defaults.

``Transition`` is what the governor and the conflict engine emit; the lead turns each into
a ``MemoryStateChanged`` event (``cause`` and ``decision_json`` carry the rule and evidence).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..record import MemoryState, MemoryType, StoredRecord
from .params import GovernanceParams
from .slots import Slot, normalize_value

#: Key of the governance block inside a record's ``meta``.
META_KEY = "governance"


@dataclass(frozen=True)
class GovernedMemory:
    memory_id: str
    memory_type: MemoryType
    content: str
    importance: float  # I ∈ [0, 1]
    confidence: float  # C ∈ [0, 1]
    created_at: datetime  # T: when it was stated
    slot: Slot | None = None
    value: str | None = None  # normalised slot value; None when the slot has no value
    state: MemoryState = MemoryState.ACTIVE
    mentions: int = 1  # n: statements plus recalls; the first statement counts as one
    last_seen_at: datetime | None = None  # last restatement/recall; recency runs from here
    expires_at: datetime | None = None  # TTL

    def __post_init__(self) -> None:
        for name in ("importance", "confidence"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value}")
        if self.mentions < 0:
            raise ValueError("mentions must be ≥ 0")

    @property
    def reference_time(self) -> datetime:
        """t_m of the recency term: the latest of creation and last restatement/recall."""
        if self.last_seen_at is None or self.last_seen_at < self.created_at:
            return self.created_at
        return self.last_seen_at

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


def from_stored(stored: StoredRecord, params: GovernanceParams | None = None) -> GovernedMemory:
    """Map a stored record onto the governance view.

    ``meta["governance"]`` may hold ``slot`` ("kind/entity"), ``value``, ``importance``,
    ``confidence`` and ``mentions`` (restatements); recalls (``read_count``) add to n."""
    p = params or GovernanceParams()
    record = stored.record
    block = record.meta.get(META_KEY)
    gov: Mapping[str, Any] = block if isinstance(block, Mapping) else {}
    slot = _slot(gov.get("slot"))
    raw_value = gov.get("value")
    value = normalize_value(raw_value) if isinstance(raw_value, str) and raw_value else None
    stated = gov.get("mentions", 1)
    stated = stated if isinstance(stated, int) and not isinstance(stated, bool) else 1
    return GovernedMemory(
        memory_id=record.id,
        memory_type=record.type,
        content=record.content,
        importance=_unit(gov.get("importance"), p.default_importance[record.type]),
        confidence=_unit(gov.get("confidence"), p.default_confidence),
        created_at=record.created_at,
        slot=slot,
        value=value,
        state=stored.state,
        mentions=max(stated, 0) + stored.read_count,
        last_seen_at=stored.last_read_at,
        expires_at=record.expires_at(),
    )


def _slot(raw: object) -> Slot | None:
    if not isinstance(raw, str):
        return None
    try:
        return Slot.parse(raw)
    except ValueError:
        return None


def _unit(raw: object, default: float) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return default
    return min(max(float(raw), 0.0), 1.0)


@dataclass(frozen=True)
class Transition:
    """One state change of one memory. ``from_state`` None: the initial state of a memory
    being written (the lead puts it in ``MemoryWritten.state``)."""

    memory_id: str
    from_state: MemoryState | None
    to_state: MemoryState
    cause: str
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def decision_json(self) -> str:
        """Canonical JSON of the evidence, for ``MemoryStateChanged.decision_json``."""
        return json.dumps(
            {"cause": self.cause, **self.evidence},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
