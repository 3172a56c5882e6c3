"""Governed memory use cases: interactions (L0) → extracted memories (L1) → episodes (L2)
and persona (L3), conflict resolution, and the periodic governor.

Every decision becomes an event: the interaction itself (``InteractionRecorded``, with the
extractor's output recorded), each extracted memory (``MemoryWritten`` with its initial
state), each state change of an older memory (``MemoryStateChanged`` with the rule and the
score breakdowns as ``decision_json``) and each restatement (``MemoriesRecalled``, a
mention). Projections only fold these events, so a replay reproduces every state without
running an extractor, a detector or the scoring again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ai_memory.core.bitemporal import known_entries
from ai_memory.core.errors import Forbidden, InvalidInput, NotFound
from ai_memory.core.events import DomainEvent
from ai_memory.core.governance import (
    ConflictDetector,
    DictionaryConflictDetector,
    GovernanceParams,
    GovernedMemory,
    from_stored,
    plan_governor_pass,
)
from ai_memory.core.governance.extraction import Extractor, Interaction, RuleBasedExtractor
from ai_memory.core.governance.interactions import decide_interaction, state_event
from ai_memory.core.ports import Clock, RecordStore
from ai_memory.core.record import (
    Limits,
    MemoryState,
    StoredRecord,
    Tombstone,
    check_identifier,
    check_utf8,
    safe_name,
    validate_scope,
)
from ai_memory.core.timeparse import format_timestamp, parse_timestamp

from . import access
from .access import Who
from .secret_policy import SecretGuard
from .time_travel import TimePoint, TimeTravel
from .unit_of_work import UnitsOfWork

MAX_INTERACTION_CHARS = 8_000
# (tenant, judged memory id, stored decision) → the decision with its personal parts
OpenEvidence = Callable[[str, str, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class InteractionResult:
    interaction_id: str
    position: int
    memories: list[dict[str, Any]]
    transitions: list[dict[str, Any]]
    redacted: tuple[str, ...] = ()  # ("text",) when its credentials were redacted

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "interaction_id": self.interaction_id,
            "position": self.position,
            "memories": self.memories,
            "transitions": self.transitions,
        }
        if self.redacted:
            out["redacted"] = list(self.redacted)
        return out


class GovernanceService:
    """Interactions, persona, episodes, lineage and the governor, over what they need:
    the units of work they append through, the records they read, the tenant's secret
    policy, the limits and the clock."""

    def __init__(
        self,
        *,
        units: UnitsOfWork,
        store: RecordStore,
        secrets: SecretGuard,
        limits: Limits,
        clock: Clock,
        params: GovernanceParams | None = None,
        extractor: Extractor | None = None,
        detector: ConflictDetector | None = None,
        open_evidence: OpenEvidence | None = None,
    ) -> None:
        self.units = units
        self.store = store
        self.secrets = secrets
        self.limits = limits
        self.clock = clock
        # Opens a decision's sealed personal parts for a reader while every key they were
        # sealed under lives (None: encryption off, nothing is sealed).
        self._open_evidence = open_evidence
        self.params = params or GovernanceParams()
        self.extractor = extractor or RuleBasedExtractor()
        self.detector = detector or DictionaryConflictDetector()
        self._last_position = 0

    # --- L0 → L1 -----------------------------------------------------------------------
    def record_interaction(
        self, who: Who, body: Mapping[str, Any], *, wait: bool = False
    ) -> InteractionResult:
        """Keep a raw turn (L0) in its scope, where ``who`` must be allowed to write, and
        extract memories from it (L1)."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        scope = validate_scope(body.get("scope"), self.limits)
        access.require(caller, "write", scope)
        agent = check_identifier(
            _text(body.get("source_agent"), "source_agent", self.limits.max_agent_chars),
            "source_agent",
        )
        text = check_utf8(_text(body.get("text"), "text", MAX_INTERACTION_CHARS), "text")
        session = body.get("session_id")
        if session is not None:
            session = check_identifier(_text(session, "session_id", 200), "session_id")
        allowed = {"scope", "source_agent", "session_id", "text", "at"}
        unknown = sorted(safe_name(k) for k in body if k not in allowed)
        if unknown:
            raise InvalidInput(unknown[0], "unknown_field", f"unknown field(s): {unknown[:10]}")
        # The tenant's secret policy, before the text reaches the extractor or the log.
        for name, value in (("scope", scope), ("source_agent", agent), ("session_id", session)):
            if value is not None:
                self.secrets.identifier(tenant, name, value)
        text, redacted = self.secrets.text(tenant, "text", text)
        now = self.clock.now()
        at = parse_timestamp(body["at"], field="at") if body.get("at") is not None else now
        interaction_id = str(uuid.uuid4())
        interaction = Interaction(text, at, scope, agent, session)
        model_decision: dict[str, Any] | None = None
        extract_recorded = getattr(self.extractor, "extract_recorded", None)
        if extract_recorded is not None:
            # A model's extraction is not reproducible: record its decision in the event.
            extracted, recorded = extract_recorded(interaction)
            model_decision = json.loads(recorded.to_json())
        else:
            extracted = self.extractor.extract(interaction)

        uow = self.units.begin(tenant, agent, caller=caller)
        with uow:
            # Decide against projections that include everything this service appended.
            if self._last_position:
                self.units.wait_for(self._last_position)
            decision = decide_interaction(
                interaction,
                interaction_id,
                extracted,
                self._governed(tenant, scope),
                now=now,
                params=self.params,
                detector=self.detector,
                header=uow.header,
                model_decision=model_decision,
            )
            positions = uow.append(decision.events)
            self._last_position = max(self._last_position, *positions)
        if wait:
            uow.wait()
        return InteractionResult(
            interaction_id,
            positions[-1],
            decision.memories,
            decision.transitions,
            ("text",) if redacted else (),
        )

    # --- L2 / L3 -------------------------------------------------------------------------
    def persona(self, who: Who, scope: str, at: TimePoint | None = None) -> dict[str, Any]:
        """L3: what is currently believed about a scope — active memories by slot; ``at``:
        what was true at a valid time / believed at a recorded time (docs/design/TIME.md)."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        validate_scope(scope, self.limits)
        access.require(caller, "read", scope)
        travel = None if at is None or at.is_now else TimeTravel(self.store, tenant, at)
        sections: dict[str, list[dict[str, Any]]] = {
            "preferences": [],
            "goals": [],
            "facts": [],
            "skills": [],
            "tasks": [],
        }
        for stored in self.store.scan_records(tenant, scopes=[scope]):
            if travel is not None:
                then = travel.state(stored)
                if then is None:
                    continue  # not recorded yet at known_at, or not true at as_of
                stored = replace(stored, state=then)
            if stored.state != MemoryState.ACTIVE:
                continue
            gov = from_stored(stored, self.params)
            section = _section(stored, gov)
            if section is not None:
                sections[section].append(_entry(stored, gov))
        return {"scope": scope, **sections}

    def episodes(self, who: Who, scope: str) -> dict[str, Any]:
        """L2: extracted memories grouped by the conversation they came from."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        validate_scope(scope, self.limits)
        access.require(caller, "read", scope)
        grouped: dict[str, list[dict[str, Any]]] = {}
        for stored in self.store.scan_records(tenant, scopes=[scope]):
            source = stored.record.meta.get("source")
            if not isinstance(source, Mapping):
                continue
            key = str(source.get("session_id") or source.get("interaction_id"))
            grouped.setdefault(key, []).append(_entry(stored, from_stored(stored, self.params)))
        ordered = sorted(
            (
                (key, sorted(items, key=lambda e: str(e["created_at"])))
                for key, items in grouped.items()
            ),
            key=lambda kv: str(kv[1][0]["created_at"]),
        )
        episodes = [{"session_id": key, "memories": items} for key, items in ordered]
        return {"scope": scope, "episodes": episodes}

    @property
    def last_position(self) -> int:
        """The newest position this service appended (what a ``wait`` waits for)."""
        return self._last_position

    # --- the governor --------------------------------------------------------------------
    def govern(self, who: Who, *, wait: bool = False) -> list[dict[str, Any]]:
        """One governor pass over a tenant: TTL expiry, soft forgetting, slow-update
        takeovers. Emits the transitions as events and returns them."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        access.require_role(caller, "govern")
        now = self.clock.now()
        uow = self.units.begin(tenant, "governor", caller=caller)
        with uow:
            by_scope: dict[str, list[GovernedMemory]] = {}
            for stored in self.store.scan_records(tenant):
                by_scope.setdefault(stored.record.scope, []).append(
                    from_stored(stored, self.params)
                )
            events: list[DomainEvent] = []
            done: list[dict[str, Any]] = []
            for scope, memories in sorted(by_scope.items()):
                for t in plan_governor_pass(memories, now, self.params):
                    if t.from_state is None:
                        continue
                    events.append(state_event(uow.header(), scope, t))
                    done.append({"scope": scope, **json.loads(t.decision_json())})
            if events:
                positions = uow.append(events)
                self._last_position = max(self._last_position, *positions)
        if wait:
            uow.wait()
        return done

    # --- lineage -------------------------------------------------------------------------
    def lineage(self, who: Who, memory_id: str, at: TimePoint | None = None) -> dict[str, Any]:
        """What a memory superseded, what superseded it, and every event and rule behind
        its state changes, oldest first; with its validity window (docs/design/TIME.md). ``at``:
        only the events recorded by ``known_at``, the state at valid time ``as_of``.
        A key limited to some scopes reads the lineage of a live memory of its scopes
        only: a forgotten one's scope is no longer known to it."""
        caller = access.caller_of(who)
        tenant = caller.tenant
        access.require_role(caller, "read")
        at = at or TimePoint()
        current = self.store.get(tenant, memory_id)
        if access.limited(caller):
            # Judged in the stored scope first: a forgotten memory of another scope
            # answers as a live one there, never "forgotten".
            access.judge(caller, "read", current)
            if isinstance(current, Tombstone):
                raise Forbidden(
                    "the lineage of a forgotten memory is for keys of every scope",
                    code="scope_forbidden",
                )
            access.reveal(caller, "read", memory_id, current)
        entries = self.store.lineage(tenant, memory_id)
        if not entries and current is None:
            raise NotFound(f"memory {memory_id!r} does not exist", code="memory_not_found")
        entries = known_entries(entries, at.known_at)
        validity: dict[str, Any] = {}
        if isinstance(current, StoredRecord):
            travel = TimeTravel(self.store, tenant, at)
            then = travel.state(current)
            start, end = travel.validity(current)
            validity = {
                "valid_from": format_timestamp(start),
                "valid_to": None if end is None else format_timestamp(end),
            }
            if not at.is_now:
                current = replace(current, state=then) if then is not None else None
        superseded_by: list[str] = []
        for e in entries:
            decision = e.detail.get("decision")
            by = decision.get("superseded_by") if isinstance(decision, dict) else None
            if isinstance(by, str) and by not in superseded_by:
                superseded_by.append(by)
        if isinstance(current, StoredRecord):
            state: str = current.state.value
            version: int | None = current.version
        else:
            state, version = ("deleted" if current is not None else "unknown"), None
        if not at.is_now and not entries:
            state = "unknown"  # not recorded yet at known_at
        return {
            "id": memory_id,
            "state": state,
            "version": version,
            "supersedes": [e.detail["memory_id"] for e in entries if e.kind == "supersedes"],
            "superseded_by": superseded_by,
            **validity,
            "events": [
                {
                    "position": e.position,
                    "at": format_timestamp(e.at),
                    "kind": e.kind,
                    **self._opened(tenant, memory_id, e.detail),
                }
                for e in entries
            ],
        }

    def _opened(self, tenant: str, memory_id: str, detail: Mapping[str, Any]) -> dict[str, Any]:
        decision = detail.get("decision")
        if self._open_evidence is None or not isinstance(decision, dict):
            return dict(detail)
        return {**detail, "decision": self._open_evidence(tenant, memory_id, decision)}

    def _governed(self, tenant: str, scope: str) -> list[GovernedMemory]:
        return [
            from_stored(s, self.params) for s in self.store.scan_records(tenant, scopes=[scope])
        ]


def _section(stored: StoredRecord, gov: GovernedMemory) -> str | None:
    if gov.slot is not None and gov.slot.kind == "goal":
        return "goals"
    return {
        "preference": "preferences",
        "fact": "facts",
        "skill": "skills",
        "task": "tasks",
    }.get(stored.record.type.value)


def _entry(stored: StoredRecord, gov: GovernedMemory) -> dict[str, Any]:
    return {
        "id": stored.record.id,
        "type": stored.record.type.value,
        "slot": gov.slot.key() if gov.slot else None,
        "value": gov.value,
        "content": stored.record.content,
        "state": stored.state.value,
        "created_at": format_timestamp(stored.record.created_at),
        "confidence": gov.confidence,
        "importance": gov.importance,
    }


def _text(value: object, field: str, max_chars: int) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field, "required", f"{field} is required and must be text")
    if len(value) > max_chars:  # before anything that reads the whole string
        raise InvalidInput(field, "max_chars", f"{field} must be ≤{max_chars} characters")
    text = value.strip()
    if not text:
        raise InvalidInput(field, "required", f"{field} is required and must be text")
    return text
