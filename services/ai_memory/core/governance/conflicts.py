"""Conflict detection: does a new memory contradict an old one?

Every detector answers through one protocol, ``ConflictDetector.detect(new, old)`` →
``ConflictVerdict`` (conflict or not, detector name, reason, inputs), so the θ rule never
depends on how the verdict was reached — the upgrade path (dictionary → embedding →
NLI → LLM judge) swaps only the detector.

* ``DictionaryConflictDetector`` (default, pure): same slot, then the opposite-pair
  dictionary P (``HitOpp``), then slot-value comparison in exclusive slots.
* ``EmbeddingSimilarityDetector``: same slot and similarity(c_new, c_old) < τ (pure given
  its similarity function).
* ``LLMJudgeDetector``: asks a ``JudgeClient`` and returns the answer as a
  ``RecordedDecision``; ``verdict_from_decision`` replays it without calling the model.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from .decisions import RecordedDecision
from .model import GovernedMemory
from .opposites import OPPOSITE_PAIRS
from .slots import Slot, is_exclusive, normalize_value


class Relation(StrEnum):
    CONFLICT = "conflict"  # contradicting states of one slot
    RESTATEMENT = "restatement"  # same slot, same value: reinforce, do not compete
    COMPATIBLE = "compatible"  # same slot, values may coexist
    UNRELATED = "unrelated"  # different slots (or no slot)


@dataclass(frozen=True)
class ConflictVerdict:
    conflict: bool
    relation: Relation
    detector: str
    reason: str
    inputs: Mapping[str, str]
    matched_pair: tuple[str, str] | None = None
    decision: RecordedDecision | None = None  # set when a non-deterministic judge decided


class ConflictDetector(Protocol):
    @property
    def name(self) -> str: ...

    def detect(self, new: GovernedMemory, old: GovernedMemory) -> ConflictVerdict: ...


def _inputs(new: GovernedMemory, old: GovernedMemory) -> dict[str, str]:
    return {
        "new_id": new.memory_id,
        "old_id": old.memory_id,
        "new_slot": new.slot.key() if new.slot else "",
        "old_slot": old.slot.key() if old.slot else "",
        "new_value": new.value or "",
        "old_value": old.value or "",
        "new_content": new.content,
        "old_content": old.content,
    }


def _unrelated(detector: str, new: GovernedMemory, old: GovernedMemory) -> ConflictVerdict:
    return ConflictVerdict(
        False, Relation.UNRELATED, detector, "different slots: not comparable", _inputs(new, old)
    )


def same_slot(new: GovernedMemory, old: GovernedMemory) -> bool:
    """SameSlot(m_new, m_old): same type and same entity."""
    return new.slot is not None and new.slot == old.slot


# --- term matching ------------------------------------------------------------------------


def _canonical(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return text.replace("’", "'").replace("‘", "'")


def _pattern(term: str) -> re.Pattern[str]:
    escaped = re.escape(term).replace(r"\ ", r"\s+")
    if term.isascii():
        return re.compile(rf"(?<![\w']){escaped}(?![\w'])")
    return re.compile(escaped)


def find_terms(text: str, terms: Iterable[str]) -> frozenset[str]:
    """The terms present in ``text``, longest first, each match masking what it covers."""
    remaining = _canonical(text)
    found: set[str] = set()
    for term in sorted(set(terms), key=lambda t: (-len(t), t)):
        pattern = _pattern(term)
        if pattern.search(remaining):
            found.add(term)
            remaining = pattern.sub(lambda m: "\0" * len(m.group(0)), remaining)
    return frozenset(found)


def hit_opposite(
    new_content: str, old_content: str, pairs: Iterable[tuple[str, str]] = OPPOSITE_PAIRS
) -> tuple[str, str] | None:
    """HitOpp: the first pair (a, b) with a in one content and b in the other, or None."""
    pair_list = tuple(pairs)
    vocabulary = {t for pair in pair_list for t in pair}
    in_new, in_old = find_terms(new_content, vocabulary), find_terms(old_content, vocabulary)
    for a, b in pair_list:
        if (a in in_new and b in in_old) or (b in in_new and a in in_old):
            return (a, b)
    return None


# --- detectors ----------------------------------------------------------------------------


class DictionaryConflictDetector:
    """The rule-based detector: SameSlot ∧ (HitOpp ∨ exclusive slot value differs)."""

    def __init__(
        self,
        pairs: Iterable[tuple[str, str]] = OPPOSITE_PAIRS,
        extra_exclusive: Iterable[Slot] = (),
    ) -> None:
        self._pairs = tuple(pairs)
        self._extra = frozenset(extra_exclusive)

    @property
    def name(self) -> str:
        return "dictionary"

    def detect(self, new: GovernedMemory, old: GovernedMemory) -> ConflictVerdict:
        if not same_slot(new, old) or new.slot is None:
            return _unrelated(self.name, new, old)
        inputs = _inputs(new, old)
        pair = hit_opposite(new.content, old.content, self._pairs)
        if pair is not None:
            reason = f"same slot {new.slot.key()}; opposite pair {pair[0]!r} ↔ {pair[1]!r}"
            return ConflictVerdict(True, Relation.CONFLICT, self.name, reason, inputs, pair)
        if is_exclusive(new.slot, self._extra):
            # One current memory per exclusive slot: compare values (content if no value).
            a = new.value if new.value is not None else normalize_value(new.content)
            b = old.value if old.value is not None else normalize_value(old.content)
            if a == b:
                reason = f"exclusive slot {new.slot.key()}, same value {a!r}: a restatement"
                return ConflictVerdict(False, Relation.RESTATEMENT, self.name, reason, inputs)
            reason = f"exclusive slot {new.slot.key()}: value {a!r} ≠ {b!r}"
            return ConflictVerdict(True, Relation.CONFLICT, self.name, reason, inputs)
        if new.value is not None and new.value == old.value:
            reason = f"same slot {new.slot.key()}, same value {new.value!r}: a restatement"
            return ConflictVerdict(False, Relation.RESTATEMENT, self.name, reason, inputs)
        reason = f"slot {new.slot.key()} admits both values (no opposite pair matched)"
        return ConflictVerdict(False, Relation.COMPATIBLE, self.name, reason, inputs)


SimilarityFn = Callable[[str, str], float]


class EmbeddingSimilarityDetector:
    """Same slot and ``similarity_fn(c_new, c_old) < tau`` → conflict (the embedding detector).

    ``similarity_fn`` is typically cosine similarity of the deployment's embeddings; the
    detector stays pure. The similarity is returned in ``inputs`` for the record."""

    def __init__(self, similarity_fn: SimilarityFn, tau: float) -> None:
        if not -1.0 <= tau <= 1.0:
            raise ValueError("tau must be in [-1, 1]")
        self._similarity = similarity_fn
        self._tau = tau

    @property
    def name(self) -> str:
        return "embedding_similarity"

    def detect(self, new: GovernedMemory, old: GovernedMemory) -> ConflictVerdict:
        if not same_slot(new, old) or new.slot is None:
            return _unrelated(self.name, new, old)
        sim = float(self._similarity(new.content, old.content))
        inputs = {**_inputs(new, old), "similarity": f"{sim:.6f}", "tau": f"{self._tau:.6f}"}
        if sim < self._tau:
            reason = f"same slot {new.slot.key()}; similarity {sim:.3f} < τ {self._tau:.3f}"
            return ConflictVerdict(True, Relation.CONFLICT, self.name, reason, inputs)
        reason = f"same slot {new.slot.key()}; similarity {sim:.3f} ≥ τ {self._tau:.3f}"
        return ConflictVerdict(False, Relation.RESTATEMENT, self.name, reason, inputs)


@dataclass(frozen=True)
class JudgeAnswer:
    conflict: bool
    rationale: str


class JudgeClient(Protocol):
    """An LLM (or NLI model) that judges whether two statements of one slot conflict.
    Adapters implement it outside the core; the core never performs I/O itself."""

    @property
    def model(self) -> str: ...

    def judge(self, new_content: str, old_content: str, slot: str) -> JudgeAnswer: ...


JUDGE_DECISION_KIND = "conflict.llm_judge"


class LLMJudgeDetector:
    """LLM-as-judge detector. Its verdict carries a ``RecordedDecision``: record
    ``verdict.decision.to_json()`` in the event and replay with ``verdict_from_decision``."""

    def __init__(self, client: JudgeClient) -> None:
        self._client = client

    @property
    def name(self) -> str:
        return "llm_judge"

    def detect(self, new: GovernedMemory, old: GovernedMemory) -> ConflictVerdict:
        if not same_slot(new, old) or new.slot is None:
            return _unrelated(self.name, new, old)  # SameSlot first: no call needed
        inputs = _inputs(new, old)
        answer = self._client.judge(new.content, old.content, new.slot.key())
        decision = RecordedDecision(
            kind=JUDGE_DECISION_KIND,
            model=self._client.model,
            inputs=inputs,
            output={"conflict": answer.conflict, "rationale": answer.rationale},
        )
        return verdict_from_decision(decision)


def verdict_from_decision(decision: RecordedDecision) -> ConflictVerdict:
    """Rebuild a judge's verdict from its recorded decision (replay: no model call)."""
    if decision.kind != JUDGE_DECISION_KIND:
        raise ValueError(f"not a conflict judgement: {decision.kind!r}")
    conflict = decision.output.get("conflict") is True
    rationale = str(decision.output.get("rationale", ""))
    return ConflictVerdict(
        conflict=conflict,
        relation=Relation.CONFLICT if conflict else Relation.COMPATIBLE,
        detector="llm_judge",
        reason=f"{decision.model}: {rationale}",
        inputs={str(k): str(v) for k, v in decision.inputs.items()},
        decision=decision,
    )
