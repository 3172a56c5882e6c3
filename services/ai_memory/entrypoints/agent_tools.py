"""The tools an agent calls, whatever the protocol: MCP lists them as tools, A2A as skills.

Tools: ``memory_write``, ``memory_search``, ``memory_read``, ``memory_forget``,
``memory_export``, ``notes_save``, ``notes_recall``. They call the services facade like the
HTTP API does; this module only checks arguments against the listed schemas
(``agent_tool_specs``), applies the guard rails (size limits, confirmed deletes) and
shapes results. Credentials are the service's business: the tenant's secret policy
(``service.secret_policy``) refuses or redacts them here exactly as over HTTP. Each
transport turns a ``ToolOutput`` (or ``error_output``) into its own message.

With API keys a transport passes the caller's principal: every tool then checks the key's
role and scopes exactly as the HTTP routes do (``forbidden`` errors carry the policy's
code); without one (stdio, open development mode) nothing is checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ai_memory.core.access import AccessPrincipal, Action
from ai_memory.core.errors import AiMemoryError, Gone, InvalidInput, RetryableError
from ai_memory.core.record import Tombstone, validate_content, validate_id, validate_scope
from ai_memory.service.facade import Services
from ai_memory.service.keys import KeyService
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.notes import NoteRules, NotesService, page_json

from .agent_tool_specs import (
    MAX_EXPORT_BYTES,
    cap_lines,
    check_arguments,
    tool_specs,
)

INSTRUCTIONS = (
    "Long-term memory shared across sessions and agents. Search before you answer "
    "questions about the user or earlier work; write only durable, self-contained facts, "
    "preferences, task outcomes and skills (never credentials); forget only when asked, "
    "with confirm: true. notes_save/notes_recall are your own small notebook."
)


# The caller's key when keys are in force; None: nothing to check (stdio, open mode).
Caller = AccessPrincipal | None


def _require(who: Caller, action: Action, scope: str | None) -> None:
    if who is not None:
        KeyService.require(who, action, scope)


@dataclass
class ToolOutput:
    """A tool's answer: structured data, and the text blocks shown to the model."""

    data: dict[str, Any]
    texts: list[str] = field(default_factory=list)

    def text_blocks(self) -> list[str]:
        return self.texts or [json.dumps(self.data, ensure_ascii=False)]


def error_output(error: AiMemoryError) -> ToolOutput:
    """A failed call's answer: the error's stable code and readable message, structured
    as ``{"error": {...}}`` and as one text ``Error <code>: <message>``."""
    detail: dict[str, Any] = {"code": error.code, "message": error.message}
    if isinstance(error, InvalidInput):
        detail |= {"field": error.field, "rule": error.rule}
    if isinstance(error, RetryableError):
        detail["retry_after"] = error.retry_after
    text = f"Error {error.code}: {error.message}"
    if isinstance(error, RetryableError):
        text += f" (temporary; retry after {error.retry_after:g}s)"
    return ToolOutput({"error": detail}, [text])


class AgentTools:
    """The tools as plain blocking calls over the services facade (thread-safe)."""

    def __init__(self, services: Services, rules: NoteRules | None = None) -> None:
        self.service = services.memory
        self.transfer = services.transfer
        self.notes = services.notes if rules is None else NotesService(self.service, rules)
        self.specs = {s.name: s for s in tool_specs(self.service.limits, self.notes.rules)}
        self._impl: dict[str, Callable[[str, Mapping[str, Any], Caller], ToolOutput]] = {
            "memory_write": self.memory_write,
            "memory_search": self.memory_search,
            "memory_read": self.memory_read,
            "memory_forget": self.memory_forget,
            "memory_export": self.memory_export,
            "notes_save": self.notes_save,
            "notes_recall": self.notes_recall,
        }

    def call(
        self,
        tenant: str,
        name: str,
        arguments: Mapping[str, Any] | None,
        principal: Caller = None,
    ) -> ToolOutput:
        """Check ``arguments`` against the tool's schema, then run it (as ``principal``,
        the caller's key, when keys are in force)."""
        args = dict(arguments or {})
        if name == "memory_forget":
            args.setdefault("confirm", False)  # a missing confirm is refused with the how-to
        check_arguments(self.specs[name].input_schema, args)
        return self._impl[name](tenant, args, principal)

    def memory_write(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """Validate size first, then write (the tenant's secret policy applies in the
        service, as on every path) and wait until searchable."""
        _require(who, "write", args.get("scope"))
        validate_content(args["content"], self.service.limits)
        keys = ("type", "content", "scope", "source_agent", "tags", "ttl")
        body = {k: args[k] for k in keys if k in args}
        result = self.service.write(
            tenant,
            body,
            memory_id=args.get("id"),
            wait=True,
            authorize=lambda scope: _require(who, "write", scope),
        )
        status = "created" if result.created else "updated" if result.changed else "unchanged"
        return ToolOutput({"id": result.record.id, "status": status, **result.to_json()})

    def memory_search(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """Hybrid search with reranking, as ``POST /v1/memories/search``."""
        request = SearchRequest.parse(args, self.service.limits)
        if who is not None:  # only where the key may read
            scopes = KeyService.search_scopes(who, request.scopes)
            request = replace(request, scopes=None if scopes is None else list(scopes))
        hits = self.service.search(tenant, request)
        results = [
            {
                "id": h.stored.record.id,
                "type": h.stored.record.type.value,
                "scope": h.stored.record.scope,
                "content": h.stored.record.content,
                "tags": list(h.stored.record.tags),
                "created_at": h.stored.to_json()["created_at"],
                "score": round(h.score, 4),
            }
            for h in hits
        ]
        return ToolOutput({"query": request.query, "count": len(results), "results": results})

    def memory_read(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """One memory by id (``memory_not_found`` / ``memory_forgotten`` otherwise)."""
        memory_id = validate_id(args["id"], self.service.limits)
        if who is not None:
            KeyService.require_role(who, "read")
        try:
            stored = self.service.get(tenant, memory_id)
        except Gone:
            self._require_forgotten(tenant, who, "read", memory_id)
            raise
        _require(who, "read", stored.record.scope)
        return ToolOutput(stored.to_json())

    def _require_forgotten(self, tenant: str, who: Caller, action: Action, memory_id: str) -> None:
        """As the HTTP routes: a key limited to some scopes hears that a memory was
        forgotten only if it may ``action`` in the tombstone's scope (``scope_forbidden``
        otherwise, as for a live memory there), so it never learns which ids exist in
        scopes it may not reach."""
        if who is not None and not who.every_scope:
            found = self.service.store.get(tenant, memory_id)
            if isinstance(found, Tombstone):
                KeyService.require(who, action, found.scope)

    def memory_forget(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """Delete only with ``confirm: true``; otherwise show what would be deleted."""
        memory_id = validate_id(args["id"], self.service.limits)
        if who is not None:
            KeyService.require_role(who, "forget")
            if not who.every_scope:  # a key limited to some scopes: whose memory is it?
                try:
                    scope = self.service.get(tenant, memory_id).record.scope
                    KeyService.require(who, "forget", scope)
                except Gone:  # already forgotten: forgetting again changes nothing
                    self._require_forgotten(tenant, who, "forget", memory_id)
        if args["confirm"] is not True:
            record = self.service.get(tenant, memory_id).record  # not found / gone: say so
            preview = record.content if len(record.content) <= 200 else record.content[:200] + "…"
            raise InvalidInput(
                "confirm",
                "must_be_true",
                f"nothing was deleted: memory_forget is permanent and needs confirm: true. "
                f"Memory {memory_id!r} ({record.type.value}, scope {record.scope}) says: "
                f"{preview!r}. If this is the memory to forget, call memory_forget again with "
                f'{{"id": "{memory_id}", "confirm": true}}.',
                code="confirmation_required",
            )
        reason = args.get("reason", "user_request")
        actor = "mcp" if who is None else who.actor
        result = self.service.delete(tenant, memory_id, actor=actor, reason=reason, wait=True)
        return ToolOutput(
            {
                "id": result.memory_id,
                "forgotten": True,
                "already_forgotten": result.already_forgotten,
                "position": result.position,
            }
        )

    def memory_export(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """The scope's NDJSON bundle, cut at ``MAX_EXPORT_BYTES`` with a note."""
        scope = validate_scope(args["scope"], self.service.limits)
        _require(who, "read", scope)
        text, lines, truncated = cap_lines(self.transfer.export(tenant, [scope]))
        data: dict[str, Any] = {"scope": scope, "lines": lines, "truncated": truncated}
        texts = [text]
        if truncated:
            data["note"] = (
                f"TRUNCATED: the bundle is larger than {MAX_EXPORT_BYTES} bytes; only the "
                f"first {lines} lines are shown and the checksummed trailer is missing, so "
                "this text is not a complete bundle. Export the full bundle over HTTP "
                f"(GET /v1/export?scope={scope}) or with `ai-memory export --scope {scope}`."
            )
            texts.append(data["note"])
        return ToolOutput(data, texts)

    def notes_save(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """Save / replace / turn off a note, as ``PUT /v1/notes``."""
        _require(who, "write", f"agent:{args['agent']}")  # a note lives in agent:<agent>
        r = self.notes.save(tenant, args["agent"], args["topic"], args["note"])
        return ToolOutput(
            {
                "id": r.id,
                "agent": r.agent,
                "topic": list(r.tags),
                "status": r.status,
                "version": r.version,
                "notes_used": r.notes_used,
                "quota": self.notes.rules.quota,
            }
            | ({"redacted": list(r.redacted)} if r.redacted else {})
        )

    def notes_recall(self, tenant: str, args: Mapping[str, Any], who: Caller) -> ToolOutput:
        """Ranked notes for a topic plus all topics, as ``GET /v1/notes``."""
        _require(who, "read", f"agent:{args['agent']}")
        page = self.notes.recall(tenant, args["agent"], args.get("topic"))
        return ToolOutput(page_json(page, self.notes.rules.quota))
