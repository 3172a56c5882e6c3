"""``InProcessClient``: the ``MemoryClient`` interface over the services of a container
in this process — no HTTP, no server. For embedded use (a tool that opens a data dir,
tests, notebooks) and for code written against the client that should run either way.

It answers with the same models and raises the same typed errors as the HTTP client:
each call does what the HTTP route does (the same service call, the same JSON shape,
the same read-your-writes wait) and a domain error becomes the SDK error of the status
the server would have answered. It needs the server's dependencies (``ai-memory[server]``);
``import ai_memory.sdk`` never imports this module.

    from ai_memory.bootstrap import build
    from ai_memory.sdk.in_process import InProcessClient

    container = build(settings)
    container.start()
    memory = InProcessClient(container)
"""

from __future__ import annotations

import functools
import json
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ai_memory import __version__
from ai_memory.core import errors as core
from ai_memory.core.preconditions import Preconditions
from ai_memory.core.record import DEFAULT_TENANT, MemoryState, MemoryType, validate_scope

from . import _wire as w
from . import errors as sdk
from .api import MemoryApi
from .models import (
    AuditOut,
    BatchWriteOut,
    ChangeOut,
    DeleteOut,
    EpisodesOut,
    GovernanceRunOut,
    HealthOut,
    ImportOut,
    InteractionOut,
    LineageOut,
    MemoryIn,
    MemoryListOut,
    MemoryOut,
    NoteIn,
    NoteSaveOut,
    NotesOut,
    PersonaOut,
    SearchIn,
    SearchOut,
    TurnIn,
    WriteOut,
    WriteTriggersOut,
)

if TYPE_CHECKING:
    from ai_memory.bootstrap import Container

__all__ = ["InProcessClient"]

P = ParamSpec("P")
T = TypeVar("T")
_BATCH = 500  # import lines handed to the session at a time (the HTTP route's batch)

# The status the HTTP edge answers for each domain error, and the SDK class for it.
_AS_SDK: tuple[tuple[type[core.AiMemoryError], int, type[sdk.ApiError]], ...] = (
    (core.InvalidInput, 422, sdk.InvalidInputError),
    (core.NotFound, 404, sdk.NotFoundError),
    (core.Gone, 410, sdk.GoneError),
    (core.PreconditionFailed, 412, sdk.PreconditionFailedError),  # before its Conflict
    (core.Conflict, 409, sdk.ConflictError),
    (core.Timeout, 503, sdk.WaitTimeoutError),
    (core.Unavailable, 503, sdk.UnavailableError),
)


def as_sdk_error(error: core.AiMemoryError) -> sdk.ApiError:
    """The typed error the HTTP client would raise for the problem ``error`` becomes."""
    for domain, status, cls in _AS_SDK:
        if isinstance(error, domain):
            return cls(
                error.message,
                status=status,
                code=error.code,
                field=getattr(error, "field", ""),
                rule=getattr(error, "rule", ""),
                retry_after=float(getattr(error, "retry_after", 0.0)),
            )
    return sdk.ServerError(error.message, status=500, code=error.code)


def _conditions(
    if_match: w.Version | None, if_none_match: w.Version | None
) -> Preconditions | None:
    """The headers the HTTP client would send, parsed as the route parses them."""
    headers = w.conditions(if_match, if_none_match)
    if not headers:
        return None
    return Preconditions.parse(headers.get("If-Match"), headers.get("If-None-Match"))


def _typed_errors(method: Callable[P, T]) -> Callable[P, T]:
    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(*args, **kwargs)
        except sdk.ApiError:
            raise
        except core.AiMemoryError as e:
            raise as_sdk_error(e) from e

    return call


class InProcessClient:
    """``MemoryClient``'s methods over ``container``'s services, as ``tenant``.

    ``actor`` replaces the actor the HTTP routes record for deletes and imports
    (``api`` / ``import``), e.g. ``"migrate"``. The container belongs to the caller:
    ``close`` does not close it."""

    def __init__(
        self, container: Container, *, tenant: str = DEFAULT_TENANT, actor: str | None = None
    ) -> None:
        self.container = container
        self.tenant = tenant
        self.actor = actor
        self._memory = container.service

    def __enter__(self) -> InProcessClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release: the container is the caller's."""

    def _reach(self, min_position: int) -> None:
        if min_position:
            self._memory.check_position(min_position)
            self._memory.wait_for(min_position)

    # --- memories -----------------------------------------------------------------------
    def write(
        self,
        content: str,
        *,
        scope: str,
        source_agent: str,
        type: MemoryType | str = MemoryType.FACT,
        id: str | None = None,
        tags: Sequence[str] | None = None,
        meta: dict[str, Any] | None = None,
        ttl: int | None = None,
        created_at: str | int | float | None = None,
        wait: bool = False,
        if_match: w.Version | None = None,
    ) -> WriteOut:
        """As ``MemoryClient.write``: an upsert under ``id`` (a UUID when None)."""
        record = w.memory_in(content, scope, source_agent, type, tags, meta, ttl, created_at)
        return self.upsert(id or str(uuid.uuid4()), record, wait=wait, if_match=if_match)

    @_typed_errors
    def create(self, record: MemoryIn, *, wait: bool = False) -> WriteOut:
        result = self._memory.write(self.tenant, record.model_dump(exclude_unset=True))
        if wait:
            self._memory.wait_for(result.position)
        return WriteOut.model_validate(result.to_json())

    @_typed_errors
    def upsert(
        self,
        memory_id: str,
        record: MemoryIn,
        *,
        wait: bool = False,
        if_match: w.Version | None = None,
        if_none_match: w.Version | None = None,
    ) -> WriteOut:
        body = record.model_dump(exclude_unset=True)
        body.pop("id", None)  # the id is the path's, as on ``PUT /v1/memories/{id}``
        conditions = _conditions(if_match, if_none_match)
        result = self._memory.write(
            self.tenant, body, memory_id=memory_id, preconditions=conditions
        )
        if wait:
            self._memory.wait_for(result.position)
        return WriteOut.model_validate(result.to_json())

    @_typed_errors
    def write_many(self, items: Iterable[w.BatchItem], *, wait: bool = False) -> BatchWriteOut:
        from ai_memory.service.batch_write import batch_report

        results = self._memory.write_many(self.tenant, w.batch_items(items), wait=wait)
        return BatchWriteOut.model_validate(batch_report(results))

    @_typed_errors
    def get(self, memory_id: str, *, min_position: int = 0) -> MemoryOut:
        self._reach(min_position)
        return MemoryOut.model_validate(self._memory.get(self.tenant, memory_id).to_json())

    @_typed_errors
    def delete(
        self,
        memory_id: str,
        *,
        reason: str | None = None,
        wait: bool = False,
        if_match: w.Version | None = None,
    ) -> DeleteOut:
        result = self._memory.delete(
            self.tenant,
            memory_id,
            actor=self.actor or "api",
            reason=reason or "user_request",
            preconditions=_conditions(if_match, None),
        )
        if wait and not result.already_forgotten:
            self._memory.wait_for(result.position)
        return DeleteOut(
            id=result.memory_id,
            position=result.position,
            forgotten=True,
            already_forgotten=result.already_forgotten,
        )

    @_typed_errors
    def list_memories(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        type: MemoryType | str | Sequence[MemoryType | str] | None = None,
        state: MemoryState | str | Sequence[MemoryState | str] | None = None,
        tag: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
        min_position: int = 0,
    ) -> MemoryListOut:
        """As ``GET /v1/memories`` with a key of every scope of the tenant."""
        from ai_memory.service.listing import ListRequest

        params = w.list_params(scope, type, state, tag, cursor, limit, min_position)
        listed = {k: v for k, v in params.items() if isinstance(v, list)}
        request = ListRequest.parse(
            self._memory.limits,
            scopes=listed.get("scope"),
            types=listed.get("type"),
            states=listed.get("state"),
            tag=tag,
            cursor=cursor,
            limit=limit,
        )
        self._reach(min_position)
        page = self._memory.list_memories(self.tenant, request)
        return MemoryListOut.model_validate(page.to_json())

    def iter_memories(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        type: MemoryType | str | Sequence[MemoryType | str] | None = None,
        state: MemoryState | str | Sequence[MemoryState | str] | None = None,
        tag: str | None = None,
        page_size: int = 200,
        min_position: int = 0,
    ) -> Iterator[MemoryOut]:
        """Every matching memory, page by page, as ``MemoryClient.iter_memories``."""
        cursor: str | None = None
        while True:
            page = self.list_memories(
                scope=scope,
                type=type,
                state=state,
                tag=tag,
                cursor=cursor,
                limit=page_size,
                min_position=min_position,
            )
            yield from page.items
            if page.next_cursor is None:
                return
            cursor, min_position = page.next_cursor, 0

    def search(
        self,
        query: str,
        *,
        scope: str | None = None,
        tags: Sequence[str] | None = None,
        types: Sequence[MemoryType | str] | None = None,
        top_k: int = 10,
        mode: str = "hybrid",
        states: Sequence[MemoryState | str] | None = None,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
        rerank: bool = True,
        min_position: int = 0,
    ) -> SearchOut:
        request = w.search_in(
            query, scope, tags, types, top_k, mode, states, as_of, rerank, known_at
        )
        return self.search_request(request, min_position=min_position)

    @_typed_errors
    def search_request(self, request: SearchIn, *, min_position: int = 0) -> SearchOut:
        from ai_memory.service.memory_service import SearchRequest

        limit = self.container.settings.max_query_chars
        if len(request.query) > limit:
            raise core.InvalidInput(
                "query",
                "max_length",
                f"query is {len(request.query)} characters; the limit is {limit}",
                code="query_too_long",
            )
        parsed = SearchRequest.parse(request.model_dump(exclude_none=True), self._memory.limits)
        self._reach(min_position)
        hits = self._memory.search(self.tenant, parsed)
        return SearchOut.model_validate(
            {
                "results": [
                    {
                        "record": h.stored.to_json(),
                        "score": h.score,
                        "components": h.components,
                        "explanation": h.explanation,
                    }
                    for h in hits
                ]
            }
        )

    # --- change feed --------------------------------------------------------------------
    def changes(
        self,
        scope: str | Sequence[str] | None = None,
        *,
        since: str | None = None,
        follow: bool = True,
        limit: int = 100,
        poll_timeout: float = 20.0,
    ) -> Iterator[ChangeOut]:
        """The change feed of this client's tenant, as ``GET /v1/changes`` serves it."""
        feed = self.container.services.changes
        if feed is None:
            raise sdk.NotFoundError("no change feed here", code="changes_unavailable")
        wanted = w.export_params(scope).get("scope")
        scopes = None
        if isinstance(wanted, list):
            scopes = [validate_scope(s, self._memory.limits) for s in wanted]
        cursor = feed.start() if since == "now" else since
        while True:
            try:
                page = feed.page(self.tenant, scopes, since=cursor, limit=limit)
            except core.AiMemoryError as e:  # a generator: the decorator cannot reach here
                raise as_sdk_error(e) from e
            for change in page.changes:
                yield ChangeOut.model_validate(change.to_json())
            cursor = page.next
            if page.more or (page.changes and follow):
                continue
            if not follow:
                return
            feed.wait_blocking(cursor, poll_timeout)

    # --- export / import ----------------------------------------------------------------
    def export_lines(self, scope: str | Sequence[str] | None = None) -> Iterator[str]:
        """The NDJSON bundle line by line, as ``GET /v1/export`` streams it."""
        from ai_memory.service.transfer import export_lines

        wanted = w.export_params(scope).get("scope")
        try:
            scopes = (
                [validate_scope(s, self._memory.limits) for s in wanted]
                if isinstance(wanted, list)
                else None
            )
        except core.AiMemoryError as e:
            raise as_sdk_error(e) from e
        yield from export_lines(self._memory, self.tenant, scopes)

    def export_to(self, path: str | Path, scope: str | Sequence[str] | None = None) -> int:
        count = 0
        with Path(path).open("w", encoding="utf-8") as f:
            for line in self.export_lines(scope):
                f.write(line + "\n")
                count += 1
        return count

    @_typed_errors
    def import_bundle(
        self, source: w.ImportSource, *, wait: bool = False, source_name: str | None = None
    ) -> ImportOut:
        """Feed the bundle to an import session in batches, as ``POST /v1/import`` does."""
        from ai_memory.service.transfer import ImportSession

        session = ImportSession(
            self._memory,
            self.tenant,
            actor=self.actor or "import",
            source=source_name or "ndjson",
        )
        batch: list[tuple[int, str | bytes]] = []
        for number, line in enumerate(_lines(source), start=1):
            if line.strip():
                batch.append((number, line))
            if len(batch) >= _BATCH:
                session.feed(batch)
                batch = []
        if batch:
            session.feed(batch)
        return ImportOut.model_validate(session.finish(wait=wait).to_json())

    # --- governed memory ----------------------------------------------------------------
    @_typed_errors
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

    @_typed_errors
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

    @_typed_errors
    def episodes(self, scope: str) -> EpisodesOut:
        return EpisodesOut.model_validate(self.container.governance.episodes(self.tenant, scope))

    @_typed_errors
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

    @_typed_errors
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

    @_typed_errors
    def run_governance(self, *, wait: bool = False) -> GovernanceRunOut:
        transitions = self.container.governance.govern(self.tenant, wait=wait)
        return GovernanceRunOut.model_validate({"transitions": transitions})

    # --- notes --------------------------------------------------------------------------
    @_typed_errors
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

    @_typed_errors
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
    @_typed_errors
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

    @_typed_errors
    def health(self) -> HealthOut:
        return HealthOut.model_validate(self.container.services.health.report(__version__))


def _lines(source: w.ImportSource) -> Iterator[str | bytes]:
    """The bundle's lines from what ``import_bundle`` accepts: text, or the raw bytes of a
    line that is not UTF-8 (the import session rejects those, naming the line)."""
    for line in _raw_lines(source):
        if isinstance(line, bytes):
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError:
                yield line
        else:
            yield line


def _raw_lines(source: w.ImportSource) -> Iterator[str | bytes]:
    if isinstance(source, str):
        raise TypeError("pass Path(...) to import a file, or an iterable of lines")
    if isinstance(source, bytes):
        yield from source.splitlines()
        return
    if isinstance(source, os.PathLike):
        with Path(source).open("rb") as f:
            for raw in f:
                yield raw.rstrip(b"\r\n")
        return
    for line in source:
        if isinstance(line, Mapping):
            yield json.dumps(line, ensure_ascii=False, separators=(",", ":"))
        elif isinstance(line, bytes):
            yield line.rstrip(b"\r\n")
        else:
            yield line.rstrip("\r\n")


if TYPE_CHECKING:  # checked by mypy, never run: this client is a MemoryApi

    def _is_a_memory_api(client: InProcessClient) -> MemoryApi:
        return client
