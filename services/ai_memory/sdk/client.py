"""``MemoryClient``: the typed client of the ai-memory HTTP API — the one place each SDK
method is written.

One method per endpoint; answers are pydantic models (``ai_memory.sdk.models``), failures
typed exceptions (``ai_memory.sdk.errors``), and 429/503/transport failures are retried
as ``ai_memory.sdk.retry`` describes. What each request is (method, path, query, body,
whether a retry is safe, how to read the answer) is built in ``_wire``; a method here
only names the call.

``AsyncMemoryClient`` (``async_client.py``) is generated from this module by
``_generate_async`` (``python services/ai_memory/sdk/_generate_async.py``), as qdrant-client does:
the twin differs only in ``async``/``await`` and the async names of httpx, and a shared
base class cannot type both (a method answers ``T`` in one and ``Awaitable[T]`` in the
other, which Python's types cannot say once), so it would repeat every signature. A test
keeps the committed twin equal to the generator's output. Embedded use is not a third
client: ``ai_memory.sdk.in_process`` runs this class over the HTTP app in this process.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import _erasure as e
from . import _webhook_calls as wh
from . import _wire as w
from . import models as m
from .errors import ConnectionFailedError
from .retry import RetryPolicy

__all__ = ["DEFAULT_URL", "MemoryClient"]

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8080"


def with_api_key(headers: dict[str, str] | None, api_key: str | None) -> dict[str, str] | None:
    """The request headers carrying ``api_key`` as ``Authorization: Bearer`` (a server with
    keys refuses requests without one; a server in open development mode ignores it)."""
    if not api_key:
        return headers
    return {**(headers or {}), "Authorization": f"Bearer {api_key}"}


class MemoryClient:
    """A client of one ai-memory server.

    ``timeout`` is per request in seconds (``None``: no limit, e.g. for a large import);
    ``retries`` is a retry count or a ``RetryPolicy``; ``transport`` replaces the network
    (``httpx.MockTransport`` in tests; ``ai_memory.sdk.in_process`` runs the HTTP app in
    this process). Use it as a context manager, or call ``close``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        timeout: float | None = 30.0,
        retries: int | RetryPolicy = 3,
        transport: httpx.BaseTransport | None = None,
        headers: dict[str, str] | None = None,
        api_key: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = RetryPolicy.of(retries)
        headers = with_api_key(headers, api_key)
        self._http = httpx.Client(
            base_url=self.base_url, timeout=timeout, transport=transport, headers=headers
        )

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # --- transport ----------------------------------------------------------------------
    def _send(
        self,
        method: str,
        path: str,
        *,
        params: w.Params | None = None,
        json: Any = None,
        content: Any = None,
        headers: dict[str, str] | None = None,
        idempotent: bool = True,
        stream: bool = False,
    ) -> httpx.Response:
        """Send with retries; a failure status raises its typed error."""
        attempt = 0
        while True:
            body = content() if callable(content) else content
            request = self._http.build_request(
                method, path, params=params, json=json, content=body, headers=headers
            )
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = self.retry.after_error(exc, attempt, idempotent=idempotent)
                if delay is None:
                    raise ConnectionFailedError(
                        f"{method} {path}: {exc!r}", code="connection_failed"
                    ) from exc
            else:
                delay = self.retry.after_response(response, attempt, idempotent=idempotent)
                if delay is None:
                    if response.status_code >= 400:
                        response.read()
                        response.close()
                        w.check(response)
                    return response
                response.close()
            self.retry.sleep(delay)
            attempt += 1

    def _call(self, call: w.Call[T]) -> T:
        response = self._send(
            call.method,
            call.path,
            params=call.params,
            json=call.json,
            headers=call.headers,
            idempotent=call.idempotent,
        )
        return call.parse(response)

    # --- memories -----------------------------------------------------------------------
    def write(
        self,
        content: str,
        *,
        scope: str,
        source_agent: str,
        type: m.MemoryType | str = m.MemoryType.FACT,
        id: str | None = None,
        tags: Sequence[str] | None = None,
        meta: dict[str, Any] | None = None,
        ttl: int | None = None,
        created_at: str | int | float | None = None,
        wait: bool = False,
        if_match: w.Version | None = None,
    ) -> m.WriteOut:
        """Write a memory with an idempotent ``PUT`` (a UUID is generated when ``id`` is
        None), so it is safe to retry; ``record.id`` of the answer is the id.
        ``if_match`` (a version read before, or ``"*"``) writes only if the memory is
        still at it: ``PreconditionFailedError`` (412) otherwise."""
        record = w.memory_in(content, scope, source_agent, type, tags, meta, ttl, created_at)
        return self.upsert(id or str(uuid.uuid4()), record, wait=wait, if_match=if_match)

    def create(self, record: m.MemoryIn, *, wait: bool = False) -> m.WriteOut:
        """``POST /v1/memories``: create (the server picks the id when ``record.id`` is
        unset; such a request is never retried once it may have reached the server)."""
        return self._call(w.create(record, wait))

    def upsert(
        self,
        memory_id: str,
        record: m.MemoryIn,
        *,
        wait: bool = False,
        if_match: w.Version | None = None,
        if_none_match: w.Version | None = None,
    ) -> m.WriteOut:
        """``PUT /v1/memories/{id}``: create (201) or update; unchanged → ``changed=False``.
        ``if_match``: only while the memory is at this version (``"*"``: exists);
        ``if_none_match="*"``: create only. A failed condition is
        ``PreconditionFailedError`` (412)."""
        return self._call(w.upsert(memory_id, record, wait, if_match, if_none_match))

    def write_many(self, items: Iterable[w.BatchItem], *, wait: bool = False) -> m.BatchWriteOut:
        """``POST /v1/memories:batch``: upsert up to 1,000 memories (``MemoryIn`` or
        dicts) in one request. Each item answers for itself in ``results`` (in order:
        ``status`` 201/200, or 4xx with its ``problem``); refused items raise nothing.
        Items without an id get a UUID, so a batch naming each memory once is retried
        safely (a retry writes nothing twice); one naming a memory twice is not retried."""
        return self._call(w.write_many(items, wait))

    def get(self, memory_id: str, *, min_position: int = 0) -> m.MemoryOut:
        """``GET /v1/memories/{id}``; ``NotFoundError`` (404), ``GoneError`` (410)."""
        return self._call(w.get(memory_id, min_position))

    def delete(
        self,
        memory_id: str,
        *,
        reason: str | None = None,
        wait: bool = False,
        if_match: w.Version | None = None,
    ) -> m.DeleteOut:
        """``DELETE /v1/memories/{id}``: forget for good (the id is never reused);
        with ``if_match``, only while the memory is at that version (412 otherwise)."""
        return self._call(w.delete(memory_id, reason, wait, if_match))

    def list_memories(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        type: m.MemoryType | str | Sequence[m.MemoryType | str] | None = None,
        state: m.MemoryState | str | Sequence[m.MemoryState | str] | None = None,
        tag: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
        min_position: int = 0,
    ) -> m.MemoryListOut:
        """``GET /v1/memories``: one page in id order (``state`` active by default);
        pass ``next_cursor`` as ``cursor`` for the next, until it is None."""
        params = w.list_params(scope, type, state, tag, cursor, limit, min_position)
        return self._call(w.list_memories(params))

    def iter_memories(
        self,
        *,
        scope: str | Sequence[str] | None = None,
        type: m.MemoryType | str | Sequence[m.MemoryType | str] | None = None,
        state: m.MemoryState | str | Sequence[m.MemoryState | str] | None = None,
        tag: str | None = None,
        page_size: int = 200,
        min_position: int = 0,
    ) -> Iterator[m.MemoryOut]:
        """Every matching memory, page by page (``list_memories`` following the cursor).
        One written meanwhile after the current page is met; one behind it is not."""
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
        types: Sequence[m.MemoryType | str] | None = None,
        top_k: int = 10,
        mode: str = "hybrid",
        states: Sequence[m.MemoryState | str] | None = None,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
        rerank: bool = True,
        min_position: int = 0,
        context: bool = True,
        dates: bool = True,
    ) -> m.SearchOut:
        """``POST /v1/memories/search``: hybrid (or ``semantic``/``keyword``) search; each
        hit carries its ``score``, ``components`` and rerank ``explanation``; ``context``:
        interactions also score by their neighbouring turns; ``dates``: memories created in
        the periods the query names ("in March 2023") also compete in their own right."""
        request = w.search_in(
            query, scope, tags, types, top_k, mode, states, as_of, rerank, known_at, context, dates
        )
        return self.search_request(request, min_position=min_position)

    def search_request(self, request: m.SearchIn, *, min_position: int = 0) -> m.SearchOut:
        """``POST /v1/memories/search`` with a prepared ``SearchIn``."""
        return self._call(w.search(request, min_position))

    # --- change feed --------------------------------------------------------------------
    def changes(
        self,
        scope: str | Sequence[str] | None = None,
        *,
        since: str | None = None,
        follow: bool = True,
        limit: int = 100,
        poll_timeout: float = 20.0,
    ) -> Iterator[m.ChangeOut]:
        """``GET /v1/changes``: what changed in ``scope`` (every scope the key may read
        when None), oldest first — never content. Each entry's ``cursor`` resumes right
        after it (``since=``): keep the last one handled and a restart misses nothing and
        repeats nothing; ``since="now"`` skips the history. ``follow``: long-poll for new
        changes (``poll_timeout`` s a request, below the client's timeout) until the
        caller leaves the loop; otherwise stop once caught up."""
        cursor = since
        while True:
            params = w.changes_params(scope, cursor, limit, poll_timeout if follow else 0.0)
            response = self._send("GET", "/v1/changes", params=params)
            entries, cursor, more = w.changes_page(response.text)
            yield from entries
            if not (more or follow):
                return

    # --- export / import ----------------------------------------------------------------
    def export_lines(self, scope: str | Sequence[str] | None = None) -> Iterator[str]:
        """``GET /v1/export``: the NDJSON bundle streamed line by line (header, records,
        tombstones, trailer). Only opening the stream is retried."""
        response = self._send("GET", "/v1/export", params=w.export_params(scope), stream=True)
        try:
            for line in response.iter_lines():
                if line:
                    yield line
        finally:
            response.close()

    def export_to(self, path: str | Path, scope: str | Sequence[str] | None = None) -> int:
        """Stream the bundle into a file; returns the number of lines written."""
        count = 0
        with Path(path).open("w", encoding="utf-8") as f:
            for line in self.export_lines(scope):
                f.write(line + "\n")
                count += 1
        return count

    def import_bundle(
        self, source: w.ImportSource, *, wait: bool = False, source_name: str | None = None
    ) -> m.ImportOut:
        """``POST /v1/import``: stream a bundle from a file (``Path``), ``bytes`` or an
        iterable of lines (str, bytes or record dicts; ``AsyncMemoryClient`` also takes an
        async iterable of lines); returns the report. Idempotent, so retried unless
        ``source`` is a one-shot iterator."""
        body, replayable = w.import_body(source)
        response = self._send(
            "POST",
            "/v1/import",
            params=w.import_params(wait, source_name),
            content=body,
            headers={"content-type": w.NDJSON},
            idempotent=replayable,
        )
        return w.import_report()(response)

    # --- governed memory ----------------------------------------------------------------
    def record_interaction(
        self,
        text: str,
        *,
        scope: str,
        source_agent: str,
        session_id: str | None = None,
        at: str | int | float | None = None,
        wait: bool = False,
    ) -> m.InteractionOut:
        """``POST /v1/interactions``: keep a raw turn (L0) and extract memories (L1)."""
        return self._call(
            w.interaction(w.interaction_in(text, scope, source_agent, session_id, at), wait)
        )

    def persona(
        self,
        scope: str,
        *,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
    ) -> m.PersonaOut:
        """``GET /v1/persona``: L3, the active preferences, goals, facts, skills, tasks —
        as true at ``as_of`` and known at ``known_at`` when given."""
        return self._call(w.persona(scope, as_of, known_at))

    def episodes(self, scope: str) -> m.EpisodesOut:
        """``GET /v1/episodes``: L2, extracted memories grouped by conversation."""
        return self._call(w.episodes(scope))

    def lineage(
        self,
        memory_id: str,
        *,
        as_of: str | int | float | None = None,
        known_at: str | int | float | None = None,
    ) -> m.LineageOut:
        """``GET /v1/memories/{id}/lineage``: supersession and every state change."""
        return self._call(w.lineage(memory_id, as_of, known_at))

    def write_triggers(self, turn: m.TurnIn | str) -> m.WriteTriggersOut:
        """``POST /v1/write-triggers``: whether and what to write for a turn (advisory)."""
        body = m.TurnIn(text=turn) if isinstance(turn, str) else turn
        return self._call(w.write_triggers(body))

    def run_governance(self, *, wait: bool = False) -> m.GovernanceRunOut:
        """``POST /v1/governance/run``: one governor pass now."""
        return self._call(w.governance_run(wait))

    # --- notes --------------------------------------------------------------------------
    def save_note(
        self,
        agent: str,
        topic: str | Iterable[str],
        note: str,
        *,
        type: m.MemoryType | str | None = None,
    ) -> m.NoteSaveOut:
        """``PUT /v1/notes``: save or replace the note on a topic (``note="off"`` deletes)."""
        topics = topic if isinstance(topic, str) else list(topic)
        body = m.NoteIn.model_validate(
            {"agent": agent, "topic": topics, "note": note, "type": type}
        )
        return self._call(w.save_note(body))

    def recall_notes(
        self, agent: str, topic: str | None = None, *, min_position: int = 0
    ) -> m.NotesOut:
        """``GET /v1/notes``: the best 3 notes for a topic and all your topics."""
        return self._call(w.recall_notes(agent, topic, min_position))

    # --- operations ---------------------------------------------------------------------
    def audit(
        self,
        *,
        since: str | None = None,
        actor: str | None = None,
        action: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
    ) -> m.AuditOut:
        """``GET /v1/audit`` (an admin key, or an operator naming ``tenant``): who did
        what in the tenant, oldest first — never content. Continue with
        ``since=page.next`` while ``page.more``."""
        return self._call(w.audit(since, actor, action, limit, tenant))

    def usage(self, *, tenant: str | None = None) -> m.UsageOut:
        """``GET /v1/usage`` (an admin key, or an operator naming ``tenant``): the
        tenant's stored memories, the UTF-8 bytes of their content, its quota, and up to
        which log position of each partition that is counted."""
        return self._call(w.usage(tenant))

    def health(self) -> m.HealthOut:
        """``GET /healthz``: log position, each projection's position and lag."""
        return self._call(w.health())

    # --- subject erasure (an admin key of the tenant; others get ``ForbiddenError``) ----
    def erase(
        self,
        *,
        reason: str,
        scope: str | None = None,
        source_agent: str | None = None,
        ids: Sequence[str] | None = None,
        interaction_ids: Sequence[str] | None = None,
        everything: bool = False,
        erasure_id: str | None = None,
        wait: bool = False,
    ) -> m.ErasureOut:
        """``POST /v1/erasures``: forget everything of one subject — exactly one of
        ``scope``, ``source_agent``, memory ``ids``, raw ``interaction_ids`` or
        ``everything`` of the tenant — its memories, raw turns, notes, episodes and
        persona, destroying their data keys. ``reason`` is recorded on the log and in the
        receipt. The same ``erasure_id`` again is the same erasure (``already_done``)."""
        body = e.erasure_in(
            reason, scope, source_agent, ids, interaction_ids, everything, erasure_id
        )
        return self._call(e.erase_call(body, wait))

    def erasure_receipt(self, erasure_id: str) -> m.ErasureReceipt:
        """``GET /v1/erasures/{id}``: the signed receipt (``.raw`` is the document as
        served; check it offline with ``verify_receipt``)."""
        return self._call(e.receipt_call(erasure_id))

    def erasure_public_key(self) -> m.ErasurePublicKeyOut:
        """``GET /v1/erasures/public-key``: the Ed25519 key (``.pem``) verifying receipts."""
        return self._call(e.public_key_call())

    def forget_interaction(
        self, interaction_id: str, *, reason: str = e.FORGET_INTERACTION_REASON, wait: bool = False
    ) -> m.ErasureOut:
        """``DELETE /v1/interactions/{id}``: forget one raw turn and every memory
        extracted from it (an erasure; ``erasure_receipt`` of its id is the receipt)."""
        return self._call(e.forget_interaction_call(interaction_id, reason, wait))

    # --- webhooks (an admin key of the tenant; others get ``ForbiddenError``) -----------
    def create_webhook(
        self,
        url: str,
        *,
        scopes: Sequence[str],
        kinds: Sequence[str] | None = None,
        description: str = "",
    ) -> m.WebhookCreated:
        """``POST /v1/webhooks``: deliver the changes of ``scopes`` (``["*"]``: every
        scope of the tenant) from now on to ``url``, signed. ``kinds``: a subset of
        ``written``, ``state_changed``, ``forgotten`` (all by default). The answer's
        ``secret`` verifies deliveries (``ai_memory.sdk.webhooks.verify_webhook``) and is
        never shown again. Not retried (a repeat would subscribe twice)."""
        return self._call(wh.create_call(wh.webhook_in(url, scopes, kinds, description)))

    def list_webhooks(self) -> m.WebhookList:
        """``GET /v1/webhooks``: the tenant's webhooks and their delivery state."""
        return self._call(wh.list_call())

    def get_webhook(self, webhook_id: str) -> m.WebhookOut:
        """``GET /v1/webhooks/{id}``: active or paused (and why), the cursor acknowledged,
        the last attempt, consecutive failures; ``NotFoundError`` (404) otherwise."""
        return self._call(wh.get_call(webhook_id))

    def delete_webhook(self, webhook_id: str) -> None:
        """``DELETE /v1/webhooks/{id}``: stop delivering for good."""
        self._call(wh.delete_call(webhook_id))

    def resume_webhook(self, webhook_id: str) -> m.WebhookOut:
        """``POST /v1/webhooks/{id}:resume``: deliver again from the last change the
        receiver acknowledged (nothing written meanwhile is skipped)."""
        return self._call(wh.resume_call(webhook_id))
