"""The θ rule: what happens to two conflicting memories.

With S the full time-aware score (``scoring.score``) at the moment of the decision:

====================================  ==========================  ===============================
condition                             old                         new
====================================  ==========================  ===============================
S_new − S_old > θ                     active → **archived**       **active**
|S_new − S_old| ≤ θ                   active → **historical**     **active**
S_old − S_new > θ                     stays **active**            stored **historical** (slow path)
====================================  ==========================  ===============================

``reconsider`` is the other half of the slow-update path: a historical newcomer whose
score later beats the active memory by more than θ takes over. States change by
transition, never by deletion, so the lineage stays auditable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from ..record import MemoryState
from .conflicts import ConflictDetector, ConflictVerdict, Relation
from .model import GovernedMemory, Transition
from .params import GovernanceParams
from .scoring import ScoreBreakdown, score
from .slots import Slot, is_exclusive

CAUSE_NEW_BETTER = "conflict.theta.new_better"
CAUSE_CLOSE = "conflict.theta.close"
CAUSE_OLD_STRONGER = "conflict.theta.old_stronger"
CAUSE_NO_CONFLICT = "conflict.none"
CAUSE_RESTATEMENT = "slot.restatement"
CAUSE_RECONSIDER_SUPERSEDED = "reconsider.theta.superseded"
CAUSE_RECONSIDER_OVERTAKEN = "reconsider.theta.overtaken"
#: A statement dated before the active one of its exclusive slot (it arrived late): it is
#: an earlier state of the world, stored historical, and supersedes nothing.
CAUSE_PAST_STATE = "valid_time.past_state"


class Path(StrEnum):
    NEW_BETTER = "new_better"
    CLOSE = "close"
    OLD_STRONGER = "old_stronger"


@dataclass(frozen=True)
class Resolution:
    """Outcome of the θ rule for one conflicting pair.

    ``new_state`` is the initial state of the new memory (``MemoryWritten.state``);
    ``transitions`` are the changes of existing memories (``MemoryStateChanged``)."""

    path: Path
    new_state: MemoryState
    transitions: tuple[Transition, ...]
    new_score: ScoreBreakdown
    old_score: ScoreBreakdown
    margin: float  # S_new − S_old
    theta: float
    cause: str


def choose_path(s_new: float, s_old: float, theta: float) -> Path:
    margin = s_new - s_old
    if margin > theta:
        return Path.NEW_BETTER
    if margin < -theta:
        return Path.OLD_STRONGER
    return Path.CLOSE


def _evidence(
    new: ScoreBreakdown, old: ScoreBreakdown, theta: float, verdict: ConflictVerdict | None
) -> dict[str, object]:
    out: dict[str, object] = {
        "theta": theta,
        "margin": new.total - old.total,
        "new_score": new.to_json(),
        "old_score": old.to_json(),
    }
    if verdict is not None:
        out["detector"] = verdict.detector
        out["reason"] = verdict.reason
        if verdict.decision is not None:
            out["decision"] = json.loads(verdict.decision.to_json())  # an object, not a string
    return out


def resolve(
    new: GovernedMemory,
    old: GovernedMemory,
    now: datetime,
    params: GovernanceParams,
    verdict: ConflictVerdict | None = None,
) -> Resolution:
    """Apply the θ rule to a new memory conflicting with the active ``old`` one."""
    s_new, s_old = score(new, now, params), score(old, now, params)
    path = choose_path(s_new.total, s_old.total, params.theta)
    evidence = _evidence(s_new, s_old, params.theta, verdict)
    if path is Path.OLD_STRONGER:
        return Resolution(
            path, MemoryState.HISTORICAL, (), s_new, s_old,
            s_new.total - s_old.total, params.theta, CAUSE_OLD_STRONGER,
        )  # fmt: skip
    cause, demoted = (
        (CAUSE_NEW_BETTER, MemoryState.ARCHIVED)
        if path is Path.NEW_BETTER
        else (CAUSE_CLOSE, MemoryState.HISTORICAL)
    )
    change = Transition(old.memory_id, old.state, demoted, cause, evidence)
    return Resolution(
        path, MemoryState.ACTIVE, (change,), s_new, s_old,
        s_new.total - s_old.total, params.theta, cause,
    )  # fmt: skip


@dataclass(frozen=True)
class WriteGovernance:
    """Outcome of governing one write against the memories already in its slot.

    ``reinforce`` lists memories the new one merely restates: the lead should count a
    mention for each (the restatement itself is kept, historical, as evidence)."""

    new_state: MemoryState
    cause: str
    transitions: tuple[Transition, ...]
    verdicts: tuple[ConflictVerdict, ...]  # one per active memory compared
    resolutions: tuple[Resolution, ...]  # one per conflicting active memory
    reinforce: tuple[str, ...] = ()


def govern_write(
    new: GovernedMemory,
    existing: Iterable[GovernedMemory],
    now: datetime,
    params: GovernanceParams,
    detector: ConflictDetector,
    extra_exclusive: Iterable[Slot] = (),
) -> WriteGovernance:
    """Detect conflicts of ``new`` with every *active* memory and apply the θ rule.

    * a restatement of an active memory (same slot and value — or, in an exclusive slot,
      any verdict that is not a conflict) is stored historical and reinforces the original,
      so an exclusive slot never holds two active memories whatever the detector says;
    * if the new memory loses to any conflicting memory it is stored historical and
      nothing else changes (path 3);
    * a statement dated before the active memory of its exclusive slot (another value)
      tells an earlier state: it is stored historical and demotes nothing, whatever the
      order the statements arrived in (``core.bitemporal`` gives it its validity window);
    * otherwise it is active and each conflicting memory is demoted per its own path.

    Memories are compared in id order, so the outcome is deterministic."""
    extra = tuple(extra_exclusive)
    actives = sorted(
        (m for m in existing if m.state is MemoryState.ACTIVE and m.memory_id != new.memory_id),
        key=lambda m: m.memory_id,
    )
    verdicts = tuple(detector.detect(new, old) for old in actives)
    exclusive = new.slot is not None and is_exclusive(new.slot, extra)
    restated = tuple(
        old.memory_id
        for old, v in zip(actives, verdicts, strict=True)
        if not v.conflict
        and (v.relation is Relation.RESTATEMENT or (exclusive and old.slot == new.slot))
    )
    resolutions = tuple(
        resolve(new, old, now, params, v)
        for old, v in zip(actives, verdicts, strict=True)
        if v.conflict
    )
    if exclusive and any(
        old.slot == new.slot and old.value != new.value and old.created_at > new.created_at
        for old in actives
    ):
        return WriteGovernance(MemoryState.HISTORICAL, CAUSE_PAST_STATE, (), verdicts, ())
    if restated:
        return WriteGovernance(
            MemoryState.HISTORICAL, CAUSE_RESTATEMENT, (), verdicts, resolutions, restated
        )
    if not resolutions:
        return WriteGovernance(MemoryState.ACTIVE, CAUSE_NO_CONFLICT, (), verdicts, ())
    if any(r.path is Path.OLD_STRONGER for r in resolutions):
        return WriteGovernance(
            MemoryState.HISTORICAL, CAUSE_OLD_STRONGER, (), verdicts, resolutions
        )
    transitions = tuple(t for r in resolutions for t in r.transitions)
    cause = CAUSE_NEW_BETTER if all(r.path is Path.NEW_BETTER for r in resolutions) else CAUSE_CLOSE
    return WriteGovernance(MemoryState.ACTIVE, cause, transitions, verdicts, resolutions)


def reconsider(
    candidate: GovernedMemory,
    incumbent: GovernedMemory,
    now: datetime,
    params: GovernanceParams,
) -> tuple[Transition, ...]:
    """Let a historical newcomer take over once reinforced (the third path of the θ rule).

    Applies when ``candidate`` is historical, ``incumbent`` active, both in the same slot,
    and the candidate is the newer statement (older historical memories come back only by
    explicit re-confirmation, so recalling history never resurrects a stale state).
    Takeover needs S_cand − S_inc > θ (hysteresis: no flapping inside the θ band); the
    incumbent is archived when the margin exceeds ``reconsider_archive_margin``, otherwise
    it becomes historical. Returns the transitions, or () when nothing changes."""
    if (
        candidate.state is not MemoryState.HISTORICAL
        or incumbent.state is not MemoryState.ACTIVE
        or candidate.slot is None
        or candidate.slot != incumbent.slot
        or candidate.created_at <= incumbent.created_at
    ):
        return ()
    s_cand, s_inc = score(candidate, now, params), score(incumbent, now, params)
    margin = s_cand.total - s_inc.total
    if margin <= params.theta:
        return ()
    archive = margin > params.reconsider_archive_margin
    cause = CAUSE_RECONSIDER_SUPERSEDED if archive else CAUSE_RECONSIDER_OVERTAKEN
    demoted = MemoryState.ARCHIVED if archive else MemoryState.HISTORICAL
    evidence = _evidence(s_cand, s_inc, params.theta, None)
    evidence["archive_margin"] = params.reconsider_archive_margin
    return (
        Transition(incumbent.memory_id, MemoryState.ACTIVE, demoted, cause, evidence),
        Transition(
            candidate.memory_id, MemoryState.HISTORICAL, MemoryState.ACTIVE, cause, evidence
        ),
    )
