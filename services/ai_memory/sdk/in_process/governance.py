"""The in-process governed memory (interactions, persona, episodes, lineage, write
triggers, the governor), notes and operations (audit, health)."""

from __future__ import annotations

from collections.abc import Iterable

from ai_memory import __version__
from ai_memory.core import errors as core
from ai_memory.core.record import MemoryType

from .. import _wire as w
from ..models import (
    AuditOut,
    EpisodesOut,
    GovernanceRunOut,
    HealthOut,
    InteractionOut,
    LineageOut,
    NoteIn,
    NoteSaveOut,
    NotesOut,
    PersonaOut,
    TurnIn,
    WriteTriggersOut,
)
from .base import InProcessBase
from .errors import typed_errors

__all__ = ["GovernanceMethods"]


class GovernanceMethods(InProcessBase):
    # --- governed memory ----------------------------------------------------------------
    @typed_errors
    def record_interaction(
        self,
        text: str,
        *,
        scope: str,
        source_agent: str,
        session_id: str | None = None,
        at: str | int | float | None = None,
        wait: bool = False,
    ) -> InteractionOut:
        body = w.interaction_in(text, scope, source_agent, session_id, at)
        governance = self.container.governance
        result = governance.record_interaction(self.tenant, body.model_dump(exclude_unset=True))
        if wait:
            self._memory.wait_for(result.position)
        return InteractionOut.model_validate(result.to_json())

    @typed_errors
    def persona(
        self,
        scope: str,
        *,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
    ) -> PersonaOut:
        from ai_memory.service.time_travel import TimePoint

        at = TimePoint.parse(as_of, known_at)
        return PersonaOut.model_validate(self.container.governance.persona(self.tenant, scope, at))

    @typed_errors
    def episodes(self, scope: str) -> EpisodesOut:
        return EpisodesOut.model_validate(self.container.governance.episodes(self.tenant, scope))

    @typed_errors
    def lineage(
        self,
        memory_id: str,
        *,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
    ) -> LineageOut:
        from ai_memory.service.time_travel import TimePoint

        at = TimePoint.parse(as_of, known_at)
        return LineageOut.model_validate(
            self.container.governance.lineage(self.tenant, memory_id, at)
        )

    @typed_errors
    def write_triggers(self, turn: TurnIn | str) -> WriteTriggersOut:
        from ai_memory.core.governance import Turn, should_write
        from ai_memory.core.record import check_utf8

        fields = (TurnIn(text=turn) if isinstance(turn, str) else turn).model_dump()
        for name in ("text", "summary"):
            if fields[name] is not None:
                check_utf8(fields[name], name)
        suggestions = [
            {
                "trigger": str(x.trigger),
                "type": x.memory_type.value,
                "content": x.content,
                "reason": x.reason,
                "importance": x.importance,
            }
            for x in should_write(Turn(**fields))
        ]
        return WriteTriggersOut.model_validate({"suggestions": suggestions})

    @typed_errors
    def run_governance(self, *, wait: bool = False) -> GovernanceRunOut:
        transitions = self.container.governance.govern(self.tenant, wait=wait)
        return GovernanceRunOut.model_validate({"transitions": transitions})

    # --- notes --------------------------------------------------------------------------
    @typed_errors
    def save_note(
        self,
        agent: str,
        topic: str | Iterable[str],
        note: str,
        *,
        type: MemoryType | str | None = None,
    ) -> NoteSaveOut:
        topics = topic if isinstance(topic, str) else list(topic)
        body = NoteIn.model_validate({"agent": agent, "topic": topics, "note": note, "type": type})
        notes = self.container.notes
        r = notes.save(self.tenant, body.agent, body.topic, body.note, body.type)
        return NoteSaveOut.model_validate(
            {
                "id": r.id,
                "agent": r.agent,
                "topic": list(r.tags),
                "status": r.status,
                "version": r.version,
                "position": r.position,
                "notes_used": r.notes_used,
                "quota": notes.rules.quota,
                "redacted": list(r.redacted) or None,
            }
        )

    @typed_errors
    def recall_notes(
        self, agent: str, topic: str | None = None, *, min_position: int = 0
    ) -> NotesOut:
        # The page's JSON shape is the one every transport answers with.
        from ai_memory.service.notes import page_json

        self._reach(min_position)
        notes = self.container.notes
        page = notes.recall(self.tenant, agent, topic)
        return NotesOut.model_validate(page_json(page, notes.rules.quota))

    # --- operations ---------------------------------------------------------------------
    @typed_errors
    def audit(
        self,
        *,
        since: str | None = None,
        actor: str | None = None,
        action: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
    ) -> AuditOut:
        """The trail of this client's tenant (``tenant``, if given, must be it: an
        in-process client acts as one tenant)."""
        audit = self.container.services.audit
        if audit is None or (tenant is not None and tenant != self.tenant):
            raise core.Forbidden(
                "an in-process client reads the trail of its own tenant", code="tenant_forbidden"
            )
        page = audit.page(self.tenant, since=since, actor=actor, action=action, limit=limit)
        return AuditOut.model_validate(page.to_json())

    @typed_errors
    def health(self) -> HealthOut:
        return HealthOut.model_validate(self.container.services.health.report(__version__))
