"""Memory lifecycle: states, allowed transitions, soft forgetting.

====================  ====================================  ==========  ========
state                 reached by                            in context  retained
====================  ====================================  ==========  ========
active                write, θ rule, reconsider, reconfirm  yes         yes
historical            θ rule (close / old stronger)         no (later:  yes
                                                            low weight)
archived              θ rule (new clearly better)           no (audit)  yes
forgotten             S < τ_forget, TTL expired             no          yes
====================  ====================================  ==========  ========

Forgetting is **soft**: a forgotten memory keeps its content for audit and comes back by
``reconfirm``. Archived is terminal: a superseded state never returns to the decision
path (if it becomes true again, it is written as a new memory). Hard deletion is a
different thing — ``MemoryDeleted`` with crypto-shredding — and is not governed here.

``plan_governor_pass`` is what the periodic governor runs: forgetting and TTL expiry,
then per exclusive slot a repair of duplicate actives and ``reconsider`` of newcomers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from ..errors import Conflict
from ..record import MemoryState
from .model import GovernedMemory, Transition
from .params import GovernanceParams
from .resolution import reconsider
from .scoring import score
from .slots import Slot, is_exclusive

A, H, R, F = (
    MemoryState.ACTIVE,
    MemoryState.HISTORICAL,
    MemoryState.ARCHIVED,
    MemoryState.FORGOTTEN,
)

#: The states a memory may be written in (historical: path 3 of the θ rule).
INITIAL_STATES: frozenset[MemoryState] = frozenset({A, H})

#: from → allowed targets. Archived is terminal; forgotten only returns to active.
ALLOWED_TRANSITIONS: Mapping[MemoryState, frozenset[MemoryState]] = {
    A: frozenset({H, R, F}),
    H: frozenset({A, R, F}),
    R: frozenset(),
    F: frozenset({A}),
}

CAUSE_BELOW_FORGET = "score.below_forget"
CAUSE_TTL = "ttl.expired"
CAUSE_RECONFIRMED = "reconfirmed"
CAUSE_DISPLACED = "reconfirmed.displaced"
CAUSE_DUPLICATE_ACTIVE = "slot.duplicate_active"


class IllegalTransition(Conflict):
    code = "illegal_transition"


def is_allowed(from_state: MemoryState | None, to_state: MemoryState) -> bool:
    if from_state is None:
        return to_state in INITIAL_STATES
    return to_state in ALLOWED_TRANSITIONS[from_state]


def check_transition(transition: Transition) -> Transition:
    """Return ``transition`` or raise ``IllegalTransition`` naming the rule broken."""
    if not is_allowed(transition.from_state, transition.to_state):
        origin = transition.from_state.value if transition.from_state else "(new)"
        raise IllegalTransition(
            f"memory {transition.memory_id!r} cannot go from {origin} to "
            f"{transition.to_state.value} ({transition.cause})"
        )
    return transition


def forget_check(
    memory: GovernedMemory, now: datetime, params: GovernanceParams
) -> Transition | None:
    """Soft forgetting of an active or historical memory: TTL expiry first, then
    Keep(m) = 0 when S(m) < τ_forget. Archived and forgotten memories are left alone."""
    if memory.state not in (A, H):
        return None
    if memory.is_expired(now):
        assert memory.expires_at is not None
        expiry = {"expires_at": memory.expires_at.isoformat()}
        return Transition(memory.memory_id, memory.state, F, CAUSE_TTL, expiry)
    breakdown = score(memory, now, params)
    if breakdown.total < params.tau_forget:
        evidence: dict[str, object] = {
            "tau_forget": params.tau_forget,
            "score": breakdown.to_json(),
        }
        return Transition(memory.memory_id, memory.state, F, CAUSE_BELOW_FORGET, evidence)
    return None


def reconfirm(
    memory: GovernedMemory,
    others: Iterable[GovernedMemory],
    now: datetime,
    extra_exclusive: Iterable[Slot] = (),
) -> tuple[Transition, ...]:
    """The user re-confirms a historical or forgotten memory: it becomes active again.

    In an exclusive slot, the memory active there is displaced to historical (the user
    said the older state holds; keeping both active would contradict the slot). The lead
    should also count the re-confirmation as a mention. Returns () if already active;
    raises ``IllegalTransition`` for an archived memory or one whose TTL has passed."""
    if memory.state is A:
        return ()
    if memory.state is R:
        raise IllegalTransition(
            f"memory {memory.memory_id!r} is archived (superseded); write the statement "
            "again as a new memory"
        )
    if memory.is_expired(now):
        raise IllegalTransition(f"memory {memory.memory_id!r} has expired (TTL)")
    out = [Transition(memory.memory_id, memory.state, A, CAUSE_RECONFIRMED)]
    if memory.slot is not None and is_exclusive(memory.slot, extra_exclusive):
        for other in sorted(others, key=lambda m: m.memory_id):
            if (
                other.memory_id != memory.memory_id
                and other.state is A
                and other.slot == memory.slot
            ):
                out.append(
                    Transition(other.memory_id, A, H, CAUSE_DISPLACED, {"by": memory.memory_id})
                )
    return tuple(out)


def plan_governor_pass(
    memories: Sequence[GovernedMemory],
    now: datetime,
    params: GovernanceParams,
    extra_exclusive: Iterable[Slot] = (),
) -> list[Transition]:
    """The transitions one periodic governor pass emits, in a deterministic order.

    1. TTL expiry and forgetting (``forget_check``) of active and historical memories;
    2. per exclusive slot, among the survivors: if several are active (written without
       governance), the best-scoring stays and the others become historical;
    3. per exclusive slot: the best historical newcomer that ``reconsider`` lets overtake
       the active memory takes over."""
    extra = tuple(extra_exclusive)
    ordered = sorted(memories, key=lambda m: m.memory_id)
    out: list[Transition] = []
    state: dict[str, MemoryState] = {}
    for memory in ordered:
        change = forget_check(memory, now, params)
        if change is not None:
            out.append(change)
        state[memory.memory_id] = change.to_state if change else memory.state
    by_slot: dict[Slot, list[GovernedMemory]] = defaultdict(list)
    for memory in ordered:
        if memory.slot is not None and is_exclusive(memory.slot, extra):
            by_slot[memory.slot].append(memory)
    for slot in sorted(by_slot):
        out.extend(_govern_slot(by_slot[slot], state, now, params))
    return out


def _govern_slot(
    members: list[GovernedMemory],
    state: dict[str, MemoryState],
    now: datetime,
    params: GovernanceParams,
) -> list[Transition]:
    def rank(m: GovernedMemory) -> tuple[float, datetime, str]:
        return (score(m, now, params).total, m.created_at, m.memory_id)

    out: list[Transition] = []
    actives = sorted((m for m in members if state[m.memory_id] is A), key=rank, reverse=True)
    if not actives:
        return out
    incumbent = actives[0]
    for extra in actives[1:]:
        evidence = {"kept": incumbent.memory_id}
        out.append(Transition(extra.memory_id, A, H, CAUSE_DUPLICATE_ACTIVE, evidence))
    candidates = sorted((m for m in members if state[m.memory_id] is H), key=rank, reverse=True)
    for candidate in candidates:
        takeover = reconsider(candidate, incumbent, now, params)
        if takeover:
            out.extend(takeover)
            break
    return out
