"""``InProcessClient``: memories and search in process, over the parts of the other
areas (``transfer``, ``governance``, ``erasure``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ai_memory.core import errors as core
from ai_memory.core.record import MemoryState, MemoryType

from .. import _wire as w
from ..api import MemoryApi
from ..models import (
    BatchWriteOut,
    DeleteOut,
    MemoryIn,
    MemoryListOut,
    MemoryOut,
    SearchIn,
    SearchOut,
    WriteOut,
)
from .erasure import ErasureMethods
from .errors import preconditions, typed_errors
from .governance import GovernanceMethods
from .transfer import TransferMethods

__all__ = ["InProcessClient"]


class InProcessClient(TransferMethods, GovernanceMethods, ErasureMethods):
    """``MemoryClient``'s methods over ``container``'s services, as ``tenant`` (see
    ``InProcessBase``): each answers with the same model and raises the same typed error
    as the HTTP client."""

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

    @typed_errors
    def create(self, record: MemoryIn, *, wait: bool = False) -> WriteOut:
        result = self._memory.write(self.tenant, record.model_dump(exclude_unset=True))
        if wait:
            self._memory.wait_for(result.position)
        return WriteOut.model_validate(result.to_json())

    @typed_errors
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
        conditions = preconditions(if_match, if_none_match)
        result = self._memory.write(
            self.tenant, body, memory_id=memory_id, preconditions=conditions
        )
        if wait:
            self._memory.wait_for(result.position)
        return WriteOut.model_validate(result.to_json())

    @typed_errors
    def write_many(self, items: Iterable[w.BatchItem], *, wait: bool = False) -> BatchWriteOut:
        from ai_memory.service.batch_write import batch_report

        results = self._memory.write_many(self.tenant, w.batch_items(items), wait=wait)
        return BatchWriteOut.model_validate(batch_report(results))

    @typed_errors
    def get(self, memory_id: str, *, min_position: int = 0) -> MemoryOut:
        self._reach(min_position)
        return MemoryOut.model_validate(self._memory.get(self.tenant, memory_id).to_json())

    @typed_errors
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
            preconditions=preconditions(if_match, None),
        )
        if wait and not result.already_forgotten:
            self._memory.wait_for(result.position)
        return DeleteOut(
            id=result.memory_id,
            position=result.position,
            forgotten=True,
            already_forgotten=result.already_forgotten,
        )

    @typed_errors
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

    @typed_errors
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


if TYPE_CHECKING:  # checked by mypy, never run: this client is a MemoryApi

    def _is_a_memory_api(client: InProcessClient) -> MemoryApi:
        return client
