"""The tools an agent calls, whatever the protocol: MCP lists them as tools, A2A as skills.

Tools: ``memory_write``, ``memory_search``, ``memory_read``, ``memory_forget``,
``memory_export``, ``notes_save``, ``notes_recall``. They call the services facade like the
HTTP API does; this module only checks arguments against the listed schemas
(``agent_tool_specs``), applies the guard rails (size limits, confirmed deletes) and
shapes results. Credentials are the service's business: the tenant's secret policy
(``service.secret_policy``) refuses or redacts them here exactly as over HTTP. Each
transport turns a ``ToolOutput`` (or ``error_output``) into its own message.

A transport passes its caller (an API key's principal, or the deployment itself in open
development mode): the services judge it exactly as for the HTTP routes (``forbidden``
errors carry the policy's code); this module checks nothing of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ai_memory.core.errors import AiMemoryError, InvalidInput, RetryableError
from ai_memory.core.record import validate_content, validate_id, validate_scope
from ai_memory.service.access import Caller, Who, caller_of
from ai_memory.service.facade import Services
from ai_memory.service.memory_service import SearchRequest
from ai_memory.service.notes import NoteRules, page_json

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
        self.positions = services.positions  # positions shown as the caller's tokens
        self.notes = services.notes if rules is None else services.notes.with_rules(rules)
        self.specs = {s.name: s for s in tool_specs(self.service.limits, self.notes.rules)}
        self._impl: dict[str, Callable[[Caller, Mapping[str, Any]], ToolOutput]] = {
            "memory_write": self.memory_write,
            "memory_search": self.memory_search,
            "memory_read": self.memory_read,
            "memory_forget": self.memory_forget,
            "memory_export": self.memory_export,
            "notes_save": self.notes_save,
            "notes_recall": self.notes_recall,
        }

    def call(self, who: Who, name: str, arguments: Mapping[str, Any] | None) -> ToolOutput:
        """Check ``arguments`` against the tool's schema, then run it as ``who`` (the
        caller's key, or the deployment; a bare tenant name is the deployment's caller
        of that tenant)."""
        args = dict(arguments or {})
        if name == "memory_forget":
            args.setdefault("confirm", False)  # a missing confirm is refused with the how-to
        check_arguments(self.specs[name].input_schema, args)
        return self._impl[name](caller_of(who), args)

    def memory_write(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """Validate size first, then write (the tenant's secret policy applies in the
        service, as on every path) and wait until searchable."""
        validate_content(args["content"], self.service.limits)
        keys = ("type", "content", "scope", "source_agent", "tags", "ttl")
        body = {k: args[k] for k in keys if k in args}
        result = self.service.write(who, body, memory_id=args.get("id"), wait=True)
        status = "created" if result.created else "updated" if result.changed else "unchanged"
        shown = self.positions.shown_in(who, result.to_json())
        return ToolOutput({"id": result.record.id, "status": status, **shown})

    def memory_search(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """Hybrid search with reranking, as ``POST /v1/memories/search``."""
        request = SearchRequest.parse(args, self.service.limits)
        hits = self.service.search(who, request)
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

    def memory_read(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """One memory by id (``memory_not_found`` / ``memory_forgotten`` otherwise)."""
        memory_id = validate_id(args["id"], self.service.limits)
        return ToolOutput(self.service.get(who, memory_id).to_json())

    def memory_forget(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """Delete only with ``confirm: true``; otherwise show what would be deleted."""
        memory_id = validate_id(args["id"], self.service.limits)
        if args["confirm"] is not True:
            record = self.service.get(who, memory_id, to="forget").record  # or why not
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
        result = self.service.delete(who, memory_id, actor="mcp", reason=reason, wait=True)
        return ToolOutput(
            {
                "id": result.memory_id,
                "forgotten": True,
                "already_forgotten": result.already_forgotten,
                "position": self.positions.shown(who, result.position),
            }
        )

    def memory_export(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """The scope's NDJSON bundle, cut at ``MAX_EXPORT_BYTES`` with a note."""
        scope = validate_scope(args["scope"], self.service.limits)
        text, lines, truncated = cap_lines(self.transfer.export(who, [scope]))
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

    def notes_save(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """Save / replace / turn off a note, as ``PUT /v1/notes``."""
        r = self.notes.save(who, args["agent"], args["topic"], args["note"])
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

    def notes_recall(self, who: Caller, args: Mapping[str, Any]) -> ToolOutput:
        """Ranked notes for a topic plus all topics, as ``GET /v1/notes``."""
        page = self.notes.recall(who, args["agent"], args.get("topic"))
        shown = self.positions.shown_in(
            who, page_json(page, self.notes.rules.quota), ["recall_position"]
        )
        return ToolOutput(shown)
