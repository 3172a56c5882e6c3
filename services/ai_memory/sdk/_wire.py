"""One description of every HTTP call, shared by the sync and the async client.

Each builder returns a ``Call``: method, path, query, JSON body, whether it is safe to
repeat, and how to read the answer. The clients only add transport and retries.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from .errors import ServerError, error_from_response
from .models import (
    AuditOut,
    BatchWriteOut,
    ChangeOut,
    DeleteOut,
    EpisodesOut,
    GovernanceRunOut,
    HealthOut,
    ImportOut,
    InteractionIn,
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
    UsageOut,
    WriteOut,
    WriteTriggersOut,
)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Params = dict[str, str | int | bool | list[str]]
#: One item of ``write_many``: a typed record, or any JSON object (checked by the server,
#: item by item, so one bad item is reported on its own instead of failing the batch).
BatchItem = MemoryIn | Mapping[str, Any]
#: What ``import_bundle`` accepts: a file, a whole bundle, or its lines.
ImportSource = os.PathLike[str] | bytes | Iterable[str | bytes | Mapping[str, Any]]
#: What ``AsyncMemoryClient.import_bundle`` accepts: the same, or an async iterable of lines.
AsyncImportSource = ImportSource | AsyncIterable[str | bytes]
#: A memory's version for ``if_match``: its number, ``"*"``, or an ETag as sent.
Version = int | str
NDJSON = "application/x-ndjson"
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Call(Generic[T]):
    """One HTTP request and how to read its answer."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: Params | None = None
    json: Any = None
    idempotent: bool = True
    headers: dict[str, str] | None = None


def check(response: httpx.Response) -> httpx.Response:
    """Raise the typed error for a failure status (the body must have been read)."""
    if response.status_code >= 400:
        raise error_from_response(response)
    return response


def model(
    cls: type[M], decode: Callable[[bytes], Any] | None = None
) -> Callable[[httpx.Response], M]:
    """A parser: the answer's JSON body validated as ``cls``; with ``decode``, the body
    is read by it first (e.g. strictly, for a signed document)."""

    def parse(response: httpx.Response) -> M:
        check(response)
        try:
            if decode is not None:
                return cls.model_validate(decode(response.content))
            return cls.model_validate_json(response.content)
        except ValueError as exc:
            raise ServerError(
                f"unexpected answer from {response.request.url.path}: {exc}",
                status=response.status_code,
                code="unexpected_response",
            ) from exc

    return parse


def _id(memory_id: str) -> str:
    return quote(memory_id, safe="")


def _body(record: MemoryIn, *, drop_id: bool) -> dict[str, Any]:
    body = record.model_dump(mode="json", exclude_unset=True)
    if drop_id:
        body.pop("id", None)
    return body


def _wait(wait: bool) -> Params:
    return {"wait": "true"} if wait else {}


def create(record: MemoryIn, wait: bool) -> Call[WriteOut]:
    """``POST /v1/memories`` — idempotent only when the record carries an id."""
    body = _body(record, drop_id=False)
    return Call("POST", "/v1/memories", model(WriteOut), _wait(wait), body, "id" in body)


def upsert(
    memory_id: str,
    record: MemoryIn,
    wait: bool,
    if_match: Version | None = None,
    if_none_match: Version | None = None,
) -> Call[WriteOut]:
    """``PUT /v1/memories/{id}`` — idempotent, unless conditional: a conditional write
    that may have landed is not sent again (the repeat would answer 412 for the
    caller's own write)."""
    body = _body(record, drop_id=True)
    headers = conditions(if_match, if_none_match)
    path = f"/v1/memories/{_id(memory_id)}"
    return Call("PUT", path, model(WriteOut), _wait(wait), body, not headers, headers or None)


def batch_items(items: Iterable[BatchItem]) -> list[Any]:
    """The wire form of ``write_many``'s items. An item without an id gets a UUID here,
    so the batch is an idempotent upsert and a retry writes nothing twice."""
    out: list[Any] = []
    for item in items:
        body: Any = (
            item.model_dump(mode="json", exclude_unset=True)
            if isinstance(item, MemoryIn)
            else dict(item)
            if isinstance(item, Mapping)
            else item  # not an object: the server refuses this item and keeps the rest
        )
        if isinstance(body, dict) and body.get("id") is None:
            body["id"] = str(uuid.uuid4())
        out.append(body)
    return out


def write_many(items: Iterable[BatchItem], wait: bool) -> Call[BatchWriteOut]:
    """``POST /v1/memories:batch`` — idempotent when every item names a different memory
    (each carries an id). Items apply in order, so a batch naming one memory twice is
    two upserts: repeating it would add versions, and it is not retried."""
    wire_items = batch_items(items)
    # (An item that is not an object is refused, however often it is sent.)
    ids = [repr(i["id"]) for i in wire_items if isinstance(i, dict)]
    once = len(set(ids)) == len(ids)
    body = {"items": wire_items}
    return Call("POST", "/v1/memories:batch", model(BatchWriteOut), _wait(wait), body, once)


def get(memory_id: str, min_position: int) -> Call[MemoryOut]:
    """``GET /v1/memories/{id}``."""
    params: Params = {"min_position": min_position} if min_position else {}
    return Call("GET", f"/v1/memories/{_id(memory_id)}", model(MemoryOut), params)


def delete(
    memory_id: str, reason: str | None, wait: bool, if_match: Version | None = None
) -> Call[DeleteOut]:
    """``DELETE /v1/memories/{id}`` — idempotent (``already_forgotten`` the second time),
    unless conditional (see ``upsert``)."""
    params = _wait(wait) | ({"reason": reason} if reason else {})
    headers = conditions(if_match, None)
    path = f"/v1/memories/{_id(memory_id)}"
    return Call("DELETE", path, model(DeleteOut), params, None, not headers, headers or None)


def entity_tag(value: Version) -> str:
    """An ``If-Match`` value: a version (``3`` → ``"3"``, the memory's ETag), ``*``, or
    an entity tag as the server sent it."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f'"{value}"'
    text = str(value).strip()
    return f'"{text}"' if text.isdigit() else text


def conditions(if_match: Version | None, if_none_match: Version | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if if_match is not None:
        headers["If-Match"] = entity_tag(if_match)
    if if_none_match is not None:
        headers["If-None-Match"] = entity_tag(if_none_match)
    return headers


def list_params(
    scope: str | Sequence[str] | None,
    type: str | Sequence[str] | None,
    state: str | Sequence[str] | None,
    tag: str | None,
    cursor: str | None,
    limit: int,
    min_position: int,
) -> Params:
    """Query of ``GET /v1/memories`` (enum members are sent by value)."""
    params: Params = {"limit": limit}
    for name, value in (("scope", scope), ("type", type), ("state", state)):
        if value is not None:
            values = [value] if isinstance(value, str) else list(value)
            params[name] = [str(getattr(v, "value", v)) for v in values]
    if tag is not None:
        params["tag"] = tag
    if cursor:
        params["cursor"] = cursor
    if min_position:
        params["min_position"] = min_position
    return params


def list_memories(params: Params) -> Call[MemoryListOut]:
    """``GET /v1/memories`` — a read."""
    return Call("GET", "/v1/memories", model(MemoryListOut), params)


def search(request: SearchIn, min_position: int) -> Call[SearchOut]:
    """``POST /v1/memories/search`` — a read."""
    params: Params = {"min_position": min_position} if min_position else {}
    body = request.model_dump(mode="json", exclude_none=True)
    return Call("POST", "/v1/memories/search", model(SearchOut), params, body)


def export_params(scope: str | Sequence[str] | None) -> Params:
    """Query of ``GET /v1/export``: one or more scopes, or everything."""
    if scope is None:
        return {}
    return {"scope": [scope] if isinstance(scope, str) else list(scope)}


def changes_params(
    scope: str | Sequence[str] | None, since: str | None, limit: int, timeout: float
) -> Params:
    """Query of one long-poll of ``GET /v1/changes``."""
    params: Params = {**export_params(scope), "limit": limit, "timeout": str(timeout)}
    if since:
        params["since"] = since
    return params


def changes_page(text: str) -> tuple[list[ChangeOut], str, bool]:
    """An NDJSON answer of ``GET /v1/changes`` → (entries, next cursor, more)."""
    *entries, trailer = (json.loads(line) for line in text.splitlines() if line)
    return [ChangeOut.model_validate(e) for e in entries], trailer["next"], trailer["more"]


def import_params(wait: bool, source: str | None) -> Params:
    """Query of ``POST /v1/import``."""
    return _wait(wait) | ({"source": source} if source else {})


def import_body(source: ImportSource) -> tuple[Callable[[], Iterable[bytes]], bool]:
    """A factory of the NDJSON body and whether it can be produced again (for retries)."""
    if isinstance(source, str):
        raise TypeError("pass Path(...) to import a file, or an iterable of lines")
    if isinstance(source, bytes):
        data = source
        return (lambda: [data]), True
    if isinstance(source, os.PathLike):
        path = Path(source)
        return (lambda: _file_chunks(path)), True
    lines = source
    replayable = isinstance(lines, Sequence)
    return (lambda: _encode_lines(lines)), replayable


def async_import_body(
    source: AsyncImportSource,
) -> tuple[Callable[[], AsyncIterator[bytes]], bool]:
    """``import_body`` for the async client (httpx's ``AsyncClient`` streams only async
    iterables); an async iterable of lines is one-shot, so never retried."""
    if isinstance(source, AsyncIterable):
        lines = source
        return (lambda: _encode_async(lines)), False
    body, replayable = import_body(source)
    return (lambda: _to_async(body())), replayable


async def _to_async(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def _encode_async(lines: AsyncIterable[str | bytes]) -> AsyncIterator[bytes]:
    async for line in lines:
        raw = line.encode("utf-8") if isinstance(line, str) else line
        yield raw if raw.endswith(b"\n") else raw + b"\n"


def _file_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            yield chunk


def _encode_lines(lines: Iterable[str | bytes | Mapping[str, Any]]) -> Iterator[bytes]:
    for line in lines:
        if isinstance(line, Mapping):
            raw = json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()
        elif isinstance(line, str):
            raw = line.encode("utf-8")
        else:
            raw = line
        yield raw if raw.endswith(b"\n") else raw + b"\n"


def interaction(body: InteractionIn, wait: bool) -> Call[InteractionOut]:
    """``POST /v1/interactions`` — not idempotent (each call is a new turn)."""
    payload = body.model_dump(mode="json", exclude_unset=True)
    return Call(
        "POST", "/v1/interactions", model(InteractionOut), _wait(wait), payload, idempotent=False
    )


Moment = str | int | float | None  # a timestamp for as_of / known_at


def _times(as_of: Moment, known_at: Moment) -> Params:
    return {k: str(v) for k, v in (("as_of", as_of), ("known_at", known_at)) if v is not None}


def persona(scope: str, as_of: Moment = None, known_at: Moment = None) -> Call[PersonaOut]:
    """``GET /v1/persona``."""
    params: Params = {"scope": scope, **_times(as_of, known_at)}
    return Call("GET", "/v1/persona", model(PersonaOut), params)


def episodes(scope: str) -> Call[EpisodesOut]:
    """``GET /v1/episodes``."""
    return Call("GET", "/v1/episodes", model(EpisodesOut), {"scope": scope})


def lineage(memory_id: str, as_of: Moment = None, known_at: Moment = None) -> Call[LineageOut]:
    """``GET /v1/memories/{id}/lineage``."""
    path = f"/v1/memories/{_id(memory_id)}/lineage"
    return Call("GET", path, model(LineageOut), _times(as_of, known_at) or None)


def write_triggers(turn: TurnIn) -> Call[WriteTriggersOut]:
    """``POST /v1/write-triggers`` — pure advice, safe to repeat."""
    body = turn.model_dump(mode="json")
    return Call("POST", "/v1/write-triggers", model(WriteTriggersOut), None, body)


def governance_run(wait: bool) -> Call[GovernanceRunOut]:
    """``POST /v1/governance/run`` — a second pass right after finds nothing to do."""
    return Call("POST", "/v1/governance/run", model(GovernanceRunOut), _wait(wait))


def save_note(note: NoteIn) -> Call[NoteSaveOut]:
    """``PUT /v1/notes`` — idempotent (the same note twice is ``unchanged``)."""
    body = note.model_dump(mode="json", exclude_none=True)
    return Call("PUT", "/v1/notes", model(NoteSaveOut), None, body)


def recall_notes(agent: str, topic: str | None, min_position: int) -> Call[NotesOut]:
    """``GET /v1/notes``."""
    params: Params = {"agent": agent}
    if topic is not None:
        params["topic"] = topic
    if min_position:
        params["min_position"] = min_position
    return Call("GET", "/v1/notes", model(NotesOut), params)


def audit(
    since: str | None, actor: str | None, action: str | None, limit: int, tenant: str | None
) -> Call[AuditOut]:
    """``GET /v1/audit``."""
    params: Params = {"limit": limit}
    for name, value in (("since", since), ("actor", actor), ("action", action), ("tenant", tenant)):
        if value is not None:
            params[name] = value
    return Call("GET", "/v1/audit", model(AuditOut), params)


def usage(tenant: str | None) -> Call[UsageOut]:
    """``GET /v1/usage``."""
    params: Params = {} if tenant is None else {"tenant": tenant}
    return Call("GET", "/v1/usage", model(UsageOut), params)


def health() -> Call[HealthOut]:
    """``GET /healthz``."""
    return Call("GET", "/healthz", model(HealthOut))


def import_report() -> Callable[[httpx.Response], ImportOut]:
    """The parser of ``POST /v1/import``."""
    return model(ImportOut)


# --- request models from keyword arguments (shared by every client) --------------------
def memory_in(
    content: str,
    scope: str,
    source_agent: str,
    type: Any,
    tags: Sequence[str] | None,
    meta: dict[str, Any] | None,
    ttl: int | None,
    created_at: str | int | float | None,
) -> MemoryIn:
    """The record of a ``write(...)`` call (unset options stay unset)."""
    fields: dict[str, Any] = {
        "type": type,
        "content": content,
        "scope": scope,
        "source_agent": source_agent,
    }
    optional = {"meta": meta, "ttl": ttl, "created_at": created_at}
    fields |= {k: v for k, v in optional.items() if v is not None}
    if tags is not None:
        fields["tags"] = list(tags)
    return MemoryIn.model_validate(fields)


def search_in(
    query: str,
    scope: str | None,
    tags: Sequence[str] | None,
    types: Sequence[Any] | None,
    top_k: int,
    mode: str,
    states: Sequence[Any] | None,
    as_of: str | int | float | None,
    rerank: bool,
    known_at: str | int | float | None = None,
    context: bool = True,
    dates: bool = True,
) -> SearchIn:
    """The request of a ``search(...)`` call."""
    return SearchIn.model_validate(
        {
            "query": query,
            "scope": scope,
            "tags": None if tags is None else list(tags),
            "types": None if types is None else list(types),
            "top_k": top_k,
            "mode": mode,
            "states": None if states is None else list(states),
            "as_of": as_of,
            "known_at": known_at,
            "rerank": rerank,
            "context": context,
            "dates": dates,
        }
    )


def interaction_in(
    text: str,
    scope: str,
    source_agent: str,
    session_id: str | None,
    at: str | int | float | None,
) -> InteractionIn:
    """The body of a ``record_interaction(...)`` call."""
    fields = {"session_id": session_id, "at": at}
    return InteractionIn.model_validate(
        {"text": text, "scope": scope, "source_agent": source_agent}
        | {k: v for k, v in fields.items() if v is not None}
    )
