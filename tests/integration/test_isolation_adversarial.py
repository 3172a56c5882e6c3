"""Adversarial isolation over real HTTP: every operation of the API, tried by every kind
of key of tenant ``acme`` against the data of tenant ``globex`` (its exact ids, its scope
names, its agents) and against acme's own scopes outside the key's allow-list.

What is asserted, for every (operation, attack, principal):

* the status is the documented one (auth.py): 401 with ``WWW-Authenticate`` and one
  undistinguishable answer for a missing, malformed, revoked, expired or forged key;
  403 with a stable code for a role or scope refusal; 404 for an id the tenant does not
  have (never 410 or 200 for another tenant's id);
* the raw answer (headers and the whole body, streamed exports included) carries none of
  globex's canaries, ids, agents, scopes or topics, and no count of its data;
* after all attacks globex's data is exactly what it was (``test_zz_…``).

The operations come from the app itself: ``OPERATIONS`` must list every operation of the
OpenAPI document and every route left out of it, or ``test_every_operation_is_attacked``
fails — a new route cannot be added without saying how it is attacked here.
"""

from __future__ import annotations

import base64
import itertools
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from ai_memory.bootstrap import build
from ai_memory.core.listing import encode_cursor
from ai_memory.settings import Settings
from tests.isolation_probe import (
    ACME,
    BROKEN,
    CODES_401,
    CODES_403,
    GLOBEX,
    PRINCIPALS,
    READER_SCOPE,
    WRITER_SCOPE,
    LiveServer,
    World,
    issue,
    leaks,
    problem_code,
    raw_of,
    worlds,
)

Statuses = frozenset[int]
Check = Callable[[World, str, httpx.Response], object]
NDJSON = "application/x-ndjson"
GX, AC = GLOBEX.memory, ACME.memory
# Which scopes each scope-limited key may read (public is readable by every key).
READABLE = {"writer": {WRITER_SCOPE, "public"}, "reader": {READER_SCOPE, "public"}}


def expect(
    admin: int | set[int],
    writer: int | set[int],
    reader: int | set[int],
    operator: int | set[int] = 403,
) -> dict[str, Statuses]:
    """The documented statuses per valid acme key (broken keys: always 401)."""

    def as_set(v: int | set[int]) -> Statuses:
        return frozenset({v} if isinstance(v, int) else v)

    return {
        "admin": as_set(admin),
        "writer": as_set(writer),
        "reader": as_set(reader),
        "operator": as_set(operator),
    }


ANY_KEY = expect(200, 200, 200, 200)
# An id or scope that is no id or scope at all: refused as input (422), by the door (403:
# an undecodable path is no route it knows) or as no route (404); never an answer.
TRICK = expect({404, 422}, {403, 404, 422}, {403, 404, 422}, {403, 404, 422})
SCOPE_TRICK = expect(422, {403, 422}, {403, 422}, {403, 422})


def literal(admin: int) -> dict[str, Statuses]:
    """``user:*`` is a scope name like any other for a memory (core/record.py): only the
    keys' allow-lists read it as a pattern, so an admin may use it; a narrower key never
    reaches every user scope through it."""
    return expect(admin, 403, 403)


@dataclass(frozen=True)
class Attack:
    name: str
    method: str
    path: str  # as sent: percent escapes are kept
    expect: Mapping[str, Statuses]
    params: Mapping[str, Any] | None = None
    json: Any = None
    content: str | None = None
    content_type: str | None = None
    check: Check | None = None
    # Victim markers this request writes into acme on purpose (an id guessed and written
    # in the attacker's own tenant is no leak when acme reads it back later).
    plants: tuple[str, ...] = ()
    # Keys whose role crosses tenants by design (an operator reads any tenant's audit
    # trail: ids and scopes, never content): globex's ids are no leak to them, its
    # canaries still are.
    cross_tenant: frozenset[str] = frozenset()
    # An answer that may stay open (an SSE stream): read for this long, then judge what
    # arrived.
    stream_seconds: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def memory(scope: str, content: str = "Acme writes about oolong tea.", **kw: Any) -> dict[str, Any]:
    return {"type": "fact", "content": content, "scope": scope, "source_agent": "ac-agent", **kw}


# --- checks on successful answers: what a key sees is its own tenant, its own scopes --------


def acme_ids(world: World) -> set[str]:
    return {m.id for m in ACME.memories} | world.planted


def results_are_own(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code != 200:
        return
    for hit in response.json()["results"]:
        record = hit["record"]
        assert "CANARY-GLOBEX" not in record["content"]
        if principal in READABLE:
            assert record["scope"] in READABLE[principal], record


def export_is_own(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code != 200:
        return
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "trailer"
    body = lines[1:-1]
    records = [x for x in body if x.get("kind", "record") == "record"]
    # The trailer counts what this tenant exported, nothing more.
    assert lines[-1]["counts"] == {
        "records": len(records),
        "tombstones": len(body) - len(records),
    }
    for line in body:
        scope = line["record"]["scope"] if "record" in line else line["scope"]
        if principal in READABLE:
            assert scope in READABLE[principal], line


def created_fresh(world: World, principal: str, response: httpx.Response) -> None:
    """An upsert of globex's id makes (or finds, if acme's admin made it first) an acme
    memory: version 1 with acme's content, never globex's memory."""
    if response.status_code in (200, 201):
        record = response.json()["record"]
        assert record["version"] == 1 and record["content"].startswith("Acme"), record


def notes_are_own(world: World, principal: str, response: httpx.Response) -> None:
    """The agent's notes in acme only: what acme's admin counts, nothing of globex's."""
    if response.status_code not in (200, 201):
        return
    body = response.json()
    agent = body["agent"]
    with world.client("admin") as admin:
        page = admin.get("/v1/notes", params={"agent": agent}).json()
    assert body["notes_used"] == len(page["your_topics"])


def batch_items(*statuses: set[int]) -> Check:
    def check(world: World, principal: str, response: httpx.Response) -> None:
        if response.status_code != 200:
            return
        got = [item["status"] for item in response.json()["results"]]
        # acme's admin may write everywhere: its items meet acme's own memories (moved
        # scope 409, forgotten 410) or are invalid (422).
        others = {200, 201, 409, 410, 422}
        wanted = statuses if principal == "writer" else [others] * len(statuses)
        assert len(got) == len(wanted) and all(g in w for g, w in zip(got, wanted, strict=True))

    return check


def import_report(writer_rejected: int) -> Check:
    def check(world: World, principal: str, response: httpx.Response) -> None:
        if response.status_code != 200:
            return
        report = response.json()
        if principal == "writer":
            codes = [e["code"] for e in report["errors"]]
            assert codes.count("scope_forbidden") == writer_rejected, report

    return check


# --- the operations and how each is attacked -------------------------------------------------


def attacks_write() -> list[Attack]:
    p = "POST"
    path = "/v1/memories"
    return [
        Attack(
            "foreign scope name, tenant in meta",
            p,
            path,
            expect(201, 403, 403),
            json=memory(GLOBEX.own_scope, meta={"tenant": GLOBEX.name}),
            plants=(GLOBEX.own_scope, GLOBEX.name),
        ),
        Attack(
            "tenant field in the body",
            p,
            path,
            expect(422, 422, 422, 422),
            json={**memory(WRITER_SCOPE), "tenant": GLOBEX.name},
        ),
        Attack("wildcard scope", p, path, literal(201), json=memory("user:*")),
        Attack("any scope", p, path, SCOPE_TRICK, json=memory("*")),
        Attack("empty scope", p, path, SCOPE_TRICK, json=memory("")),
        Attack("outside the allow-list", p, path, expect(201, 403, 403), json=memory("team:data")),
        Attack(
            "own team:data id in the body",
            p,
            path,
            expect(409, 403, 403),
            json=memory(WRITER_SCOPE, id=AC("data").id),
        ),
        Attack("public is read-only", p, path, expect(201, 403, 403), json=memory("public")),
    ]


def attacks_upsert() -> list[Attack]:
    p = "PUT"
    return [
        Attack(
            "globex's exact id",
            p,
            f"/v1/memories/{GX('write-target').id}",
            expect(201, 403, 403),
            json=memory(READER_SCOPE),
            check=created_fresh,
            plants=(GX("write-target").id,),
        ),
        Attack(
            "globex's exact id in an allowed scope",
            p,
            f"/v1/memories/{GX('bob').id}",
            expect(201, {200, 201}, 403),
            json=memory(WRITER_SCOPE),
            check=created_fresh,
            plants=(GX("bob").id,),
        ),
        # A precondition is judged against acme's memory of that id (none): never
        # against globex's version 1, which would let the write through.
        Attack(
            "globex's id at globex's version",
            p,
            f"/v1/memories/{GX('alice').id}",
            expect(412, 412, 403),
            json=memory(WRITER_SCOPE),
            headers={"If-Match": '"1"'},
        ),
        # acme's own memories outside the writer's scopes: refused before anything is
        # told of them (not 409 scope_immutable, 410 memory_forgotten or 412 by version).
        Attack(
            "own team:data id, into the writer's scope",
            p,
            f"/v1/memories/{AC('data').id}",
            expect(409, 403, 403),
            json=memory(WRITER_SCOPE),
        ),
        Attack(
            "own forgotten team:data id",
            p,
            f"/v1/memories/{AC('gone').id}",
            expect(410, 403, 403),
            json=memory(WRITER_SCOPE),
        ),
        Attack(
            "own team:data id at its version",
            p,
            f"/v1/memories/{AC('data').id}",
            expect(409, 403, 403),
            json=memory(WRITER_SCOPE),
            headers={"If-Match": '"1"'},
        ),
        Attack(
            "the shared id, moved to another scope",
            p,
            "/v1/memories/shared-1",
            expect(409, 403, 403),
            json=memory(READER_SCOPE),
        ),
        Attack(
            "dot-dot slash", p, f"/v1/memories/..%2F{GX('alice').id}", TRICK, json=memory("x:y")
        ),
        Attack("NUL", p, f"/v1/memories/{GX('alice').id}%00", TRICK, json=memory(WRITER_SCOPE)),
    ]


def read_tricks(method: str, suffix: str = "") -> list[Attack]:
    gx = GX("alice").id
    return [
        Attack("dot-dot slash", method, f"/v1/memories/..%2F{gx}{suffix}", TRICK),
        Attack("encoded dots", method, f"/v1/memories/%2E%2E%2F{gx}{suffix}", TRICK),
        Attack("NUL", method, f"/v1/memories/{gx}%00{suffix}", TRICK),
        Attack("double encoding", method, f"/v1/memories/..%252F{gx}{suffix}", TRICK),
    ]


def attacks_read() -> list[Attack]:
    g = "GET"
    not_found = expect(404, 404, 404)
    return [
        Attack("globex's exact id", g, f"/v1/memories/{GX('alice').id}", not_found),
        Attack("globex's forgotten id", g, f"/v1/memories/{GX('gone').id}", not_found),
        # A 304 would say globex's memory exists at that version.
        Attack(
            "globex's id, if not at globex's version",
            g,
            f"/v1/memories/{GX('alice').id}",
            not_found,
            headers={"If-None-Match": '"1"'},
        ),
        Attack("globex's own-scope id", g, f"/v1/memories/{GX('rota').id}", not_found),
        Attack("globex's public id", g, f"/v1/memories/{GX('public').id}", not_found),
        # acme's shared-1 is in user:alice; globex's (team:data) must not answer the reader.
        Attack("the shared id", g, "/v1/memories/shared-1", expect(200, 200, 403)),
        Attack("own team:data", g, f"/v1/memories/{AC('data').id}", expect(200, 403, 200)),
        Attack("own user:alice", g, f"/v1/memories/{AC('alice').id}", expect(200, 200, 403)),
        Attack("own user:bob", g, f"/v1/memories/{AC('bob').id}", expect(200, 403, 403)),
        Attack("own public", g, f"/v1/memories/{AC('public').id}", expect(200, 200, 200)),
        Attack(
            "own forgotten, another scope",
            g,
            f"/v1/memories/{AC('gone').id}",
            expect(410, 403, 410),
        ),
        *read_tricks(g),
    ]


def attacks_forget() -> list[Attack]:
    d = "DELETE"
    return [
        Attack(
            "globex's exact id", d, f"/v1/memories/{GX('delete-target').id}", expect(404, 404, 403)
        ),
        Attack("globex's forgotten id", d, f"/v1/memories/{GX('gone').id}", expect(404, 404, 403)),
        Attack(
            "globex's id at globex's version",
            d,
            f"/v1/memories/{GX('alice').id}",
            expect({404, 412}, {404, 412}, 403),
            headers={"If-Match": '"1"'},
        ),
        Attack("own team:data", d, f"/v1/memories/{AC('write-target').id}", expect(200, 403, 403)),
        *read_tricks(d),
    ]


def attacks_lineage() -> list[Attack]:
    g = "GET"
    lineage = "/v1/memories/{}/lineage"
    return [
        Attack("globex's exact id", g, lineage.format(GX("alice").id), expect(404, 404, 404)),
        Attack("globex's forgotten id", g, lineage.format(GX("gone").id), expect(404, 404, 404)),
        Attack("the shared id", g, lineage.format("shared-1"), expect(200, 200, 403)),
        Attack("own team:data", g, lineage.format(AC("data").id), expect(200, 403, 200)),
        Attack("own forgotten", g, lineage.format(AC("gone").id), expect(200, 403, 403)),
        *read_tricks(g, "/lineage"),
    ]


def search(**kw: Any) -> dict[str, Any]:
    return {"query": "oolong tea office", "mode": "hybrid", "top_k": 100, **kw}


def attacks_search() -> list[Attack]:
    p, path = "POST", "/v1/memories/search"
    own = results_are_own
    return [
        Attack(
            "every scope the key may read", p, path, expect(200, 200, 200), json=search(), check=own
        ),
        Attack(
            "keyword only, every state",
            p,
            path,
            expect(200, 200, 200),
            json=search(mode="keyword", states=["active", "historical", "archived", "forgotten"]),
            check=own,
        ),
        Attack(
            "as of a past time",
            p,
            path,
            expect(200, 200, 200),
            json=search(as_of="2026-03-12T09:31:00Z"),
            check=own,
        ),
        Attack(
            "globex's scope name",
            p,
            path,
            expect(200, 403, 403),
            json=search(scope=GLOBEX.own_scope),
        ),
        Attack("public", p, path, expect(200, 200, 200), json=search(scope="public"), check=own),
        Attack(
            "outside the allow-list (team)",
            p,
            path,
            expect(200, 403, 200),
            json=search(scope="team:data"),
        ),
        Attack(
            "outside the allow-list (user)",
            p,
            path,
            expect(200, 200, 403),
            json=search(scope="user:alice"),
        ),
        Attack("wildcard scope", p, path, literal(200), json=search(scope="user:*")),
        Attack("any scope", p, path, SCOPE_TRICK, json=search(scope="*")),
        Attack("empty scope", p, path, SCOPE_TRICK, json=search(scope="")),
        Attack(
            "tenant field", p, path, expect(422, 422, 422, 422), json=search(tenant=GLOBEX.name)
        ),
        Attack(
            "globex's tag",
            p,
            path,
            expect(200, 200, 200),
            json=search(tags=["gx-topic"]),
            check=own,
        ),
    ]


def listed_are_own(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code != 200:
        return
    for item in response.json()["items"]:
        if principal in READABLE:
            assert item["scope"] in READABLE[principal], item


def attacks_list() -> list[Attack]:
    g, path = "GET", "/v1/memories"
    own = listed_are_own
    every_state = ["active", "historical", "archived", "forgotten"]
    return [
        Attack("everything the key may read", g, path, expect(200, 200, 200), check=own),
        Attack(
            "every state, largest page",
            g,
            path,
            expect(200, 200, 200),
            params={"state": every_state, "limit": 1000},
            check=own,
        ),
        Attack(
            "globex's scope name",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": GLOBEX.own_scope},
            check=own,
        ),
        Attack(
            "mixed allowed and forbidden",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": [WRITER_SCOPE, READER_SCOPE]},
            check=own,
        ),
        Attack("public", g, path, expect(200, 200, 200), params={"scope": "public"}, check=own),
        Attack(
            "globex's tag", g, path, expect(200, 200, 200), params={"tag": "gx-topic"}, check=own
        ),
        # A cursor is only "continue after this id": one naming globex's id pages acme.
        Attack(
            "a cursor at globex's id",
            g,
            path,
            expect({200, 422}, {200, 422}, {200, 422}),
            params={"cursor": encode_cursor(GX("alice").id)},
            check=own,
        ),
        Attack("forged cursor", g, path, expect(422, 422, 422), params={"cursor": "Z3gtYWxpY2U"}),
        Attack("wildcard scope", g, path, literal(200), params={"scope": "user:*"}, check=own),
        Attack("any scope", g, path, SCOPE_TRICK, params={"scope": "*"}),
        Attack(
            "tenant parameter",
            g,
            path,
            expect(200, 200, 200),
            params={"tenant": GLOBEX.name},
            check=own,
        ),
    ]


def changes_are_own(world: World, principal: str, response: httpx.Response) -> None:
    """Feed entries (NDJSON lines or SSE data) only of the key's scopes (globex's ids are
    caught by the leak scan of the raw answer)."""
    if response.status_code != 200:
        return
    lines = [
        line.removeprefix("data: ")
        for line in response.text.splitlines()
        if line.startswith(("{", "data: "))
    ]
    victim_actors = {f"key:{k}" for k in world.victim_key_ids()}
    for entry in map(json.loads, lines):
        if "kind" not in entry:
            assert set(entry) == {"next", "more"}, entry  # the NDJSON trailer
            continue
        assert entry["actor"] not in victim_actors, entry
        if principal in READABLE:
            assert entry["scope"] in READABLE[principal], entry


def attacks_changes() -> list[Attack]:
    g, path = "GET", "/v1/changes"
    own = changes_are_own
    sse = {"Accept": "text/event-stream"}
    return [
        Attack(
            "everything the key may read",
            g,
            path,
            expect(200, 200, 200),
            params={"limit": 1000},
            check=own,
        ),
        Attack(
            "globex's scope name",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": GLOBEX.own_scope},
            check=own,
        ),
        Attack(
            "mixed allowed and forbidden",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": [WRITER_SCOPE, READER_SCOPE]},
            check=own,
        ),
        Attack("public", g, path, expect(200, 200, 200), params={"scope": "public"}, check=own),
        Attack("wildcard scope", g, path, literal(200), params={"scope": "user:*"}, check=own),
        Attack("any scope", g, path, SCOPE_TRICK, params={"scope": "*"}),
        Attack(
            "tenant parameter",
            g,
            path,
            expect(200, 200, 200),
            params={"tenant": GLOBEX.name, "limit": 1000},
            check=own,
        ),
        Attack("forged cursor", g, path, expect(422, 422, 422), params={"since": "YzE6MA"}),
        Attack(
            "server-sent events",
            g,
            path,
            expect(200, 200, 200),
            params={"timeout": 30},  # no heartbeat while the attack reads
            headers=sse,
            stream_seconds=1.0,
            check=own,
        ),
        Attack(
            "forged Last-Event-ID",
            g,
            path,
            expect(422, 422, 422),
            headers={**sse, "Last-Event-ID": "YzF8MDowfDE6MA"},
        ),
    ]


def attacks_export() -> list[Attack]:
    g, path = "GET", "/v1/export"
    own = export_is_own
    return [
        Attack("everything the key may read", g, path, expect(200, 200, 200), check=own),
        Attack(
            "globex's scope name",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": GLOBEX.own_scope},
            check=own,
        ),
        Attack(
            "outside the allow-list",
            g,
            path,
            expect(200, 403, 200),
            params={"scope": READER_SCOPE},
            check=own,
        ),
        Attack("public", g, path, expect(200, 200, 200), params={"scope": "public"}, check=own),
        Attack(
            "mixed allowed and forbidden",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": [WRITER_SCOPE, READER_SCOPE]},
            check=own,
        ),
        Attack("wildcard scope", g, path, literal(200), params={"scope": "user:*"}),
        Attack("any scope", g, path, SCOPE_TRICK, params={"scope": "*"}),
        Attack(
            "tenant parameter",
            g,
            path,
            expect(200, 200, 200),
            params={"tenant": GLOBEX.name},
            check=own,
        ),
    ]


def bundle_lines() -> str:
    """An import aimed at globex: its tenant named in a header and in lines, its ids,
    its scopes, and a tombstone for one of its memories."""
    lines: list[dict[str, Any]] = [
        {
            "kind": "header",
            "format": "ai-memory.bundle",
            "format_version": 1,
            "filters": {"scopes": None, "tenant": GLOBEX.name},
        },
        {**memory(WRITER_SCOPE), "id": GX("import-target").id},
        {**memory(WRITER_SCOPE), "id": "ac-imported-tenant", "tenant": GLOBEX.name},
        {**memory(READER_SCOPE), "id": "ac-imported-data"},
        {**memory(GLOBEX.own_scope), "id": "ac-imported-ops"},
        {"kind": "tombstone", "id": GX("delete-target").id, "scope": WRITER_SCOPE},
        {"kind": "tombstone", "id": GX("alice").id, "scope": READER_SCOPE},
        # acme's own memories outside the writer's scopes, aimed at from its own scope.
        {**memory(WRITER_SCOPE), "id": AC("data").id},
        {**memory(WRITER_SCOPE), "id": AC("gone").id},
    ]
    return "".join(json.dumps(x) + "\n" for x in lines)


def attacks_import() -> list[Attack]:
    return [
        Attack(
            "lines aimed at globex",
            "POST",
            "/v1/import",
            expect(200, 200, 403),
            params={"wait": "true"},
            content=bundle_lines(),
            content_type=NDJSON,
            check=import_report(writer_rejected=5),
            plants=(
                GX("import-target").id,
                GX("delete-target").id,
                GX("alice").id,
                GLOBEX.own_scope,
            ),
        )
    ]


def attacks_batch() -> list[Attack]:
    items = [
        {**memory(WRITER_SCOPE), "id": GX("batch-target").id},
        {**memory(READER_SCOPE), "id": GX("write-target").id},
        {**memory(GLOBEX.own_scope), "id": "ac-batch-ops"},
        {**memory(WRITER_SCOPE), "id": "ac-batch-tenant", "tenant": GLOBEX.name},
        {**memory(WRITER_SCOPE), "id": AC("data").id},
        {**memory(WRITER_SCOPE), "id": AC("gone").id},
    ]
    return [
        Attack(
            "mixed allowed and forbidden items",
            "POST",
            "/v1/memories:batch",
            expect(200, 200, 403),
            json={"items": items},
            check=batch_items({200, 201}, {403}, {403}, {422}, {403}, {403}),
            plants=(GX("batch-target").id, GX("write-target").id, GLOBEX.own_scope),
        ),
        Attack(
            "tenant beside the items",
            "POST",
            "/v1/memories:batch",
            expect(422, 422, 422, 422),
            json={"items": items[:1], "tenant": GLOBEX.name},
        ),
    ]


def note(agent: str, topic: str = "deploy") -> dict[str, Any]:
    return {"agent": agent, "topic": [topic], "note": f"{agent} keeps acme notes on {topic}."}


def attacks_save_note() -> list[Attack]:
    p, path = "PUT", "/v1/notes"
    return [
        Attack(
            "globex's agent",
            p,
            path,
            expect(201, 403, 403),
            json=note(GLOBEX.agent),
            check=notes_are_own,
            plants=(GLOBEX.agent,),
        ),
        Attack(
            "an agent both have",
            p,
            path,
            expect(200, 403, 403),
            json=note("planner"),
            check=notes_are_own,
        ),
        Attack(
            "a wildcard agent", p, path, expect({201, 422}, {403, 422}, {403, 422}), json=note("*")
        ),
    ]


def attacks_recall_notes() -> list[Attack]:
    g, path = "GET", "/v1/notes"
    return [
        Attack(
            "globex's agent",
            g,
            path,
            expect(200, 403, 403),
            params={"agent": GLOBEX.agent},
            check=notes_are_own,
        ),
        Attack(
            "an agent both have",
            g,
            path,
            expect(200, 403, 403),
            params={"agent": "planner", "topic": "gx-topic deploy"},
            check=notes_are_own,
        ),
        Attack(
            "a wildcard agent",
            g,
            path,
            expect({200, 422}, {403, 422}, {403, 422}),
            params={"agent": "*"},
        ),
    ]


def turn(scope: str, **kw: Any) -> dict[str, Any]:
    return {"scope": scope, "source_agent": "ac-agent", "text": "I prefer green tea now.", **kw}


def attacks_interactions() -> list[Attack]:
    p, path = "POST", "/v1/interactions"
    return [
        Attack(
            "globex's scope and session",
            p,
            path,
            expect(201, 403, 403),
            params={"wait": "true"},
            json=turn(GLOBEX.own_scope, session_id="gx-episode-1"),
            plants=(GLOBEX.own_scope, "gx-episode"),
        ),
        Attack("outside the allow-list", p, path, expect(201, 403, 403), json=turn(READER_SCOPE)),
        Attack(
            "tenant field",
            p,
            path,
            expect(422, 422, 422, 422),
            json=turn(WRITER_SCOPE, tenant=GLOBEX.name),
        ),
        Attack("wildcard scope", p, path, literal(201), json=turn("user:*")),
    ]


def attacks_erase() -> list[Attack]:
    """An erasure is an admin's of its own tenant: globex's scope or ids erase nothing of
    globex (acme has none of them), and no other key may erase at all."""
    p, path = "POST", "/v1/erasures"
    gx_ids = [GX("alice").id, GX("gone").id]
    return [
        Attack(
            "globex's scope name",
            p,
            path,
            expect({200, 201}, 403, 403),
            # acme's own memories planted under that name go; globex's stay (test_zz_…)
            json={"scope": GLOBEX.own_scope, "reason": "probe", "erasure_id": "era-gx-scope"},
            plants=(GLOBEX.own_scope,),
        ),
        Attack(
            "globex's exact ids",
            p,
            path,
            expect({200, 201}, 403, 403),
            json={"ids": gx_ids, "reason": "probe", "erasure_id": "era-gx-ids"},
            check=erased_nothing,
            plants=tuple(gx_ids),
        ),
        Attack("tenant field", p, path, expect(422, 403, 403), json={"tenant": GLOBEX.name}),
    ]


def erased_nothing(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code in (200, 201):
        assert response.json()["memories"] == 0, response.text


def attacks_receipt() -> list[Attack]:
    g = "GET"
    return [
        Attack("an id acme never used", g, "/v1/erasures/era-gx-only", expect(404, 403, 403)),
        Attack("acme's own", g, "/v1/erasures/era-gx-ids", expect(200, 403, 403)),
        Attack("a trick id", g, "/v1/erasures/..%2f..", TRICK),
    ]


def attacks_forget_interaction() -> list[Attack]:
    d = "DELETE"
    return [
        Attack("an unknown turn", d, "/v1/interactions/gx-turn-1", expect(404, 403, 403)),
        Attack("a trick id", d, "/v1/interactions/..%2f..", TRICK),
    ]


def attacks_scope_view(path: str) -> list[Attack]:
    g = "GET"
    return [
        Attack(
            "globex's scope name",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": GLOBEX.own_scope},
        ),
        Attack(
            "globex's agent notebook",
            g,
            path,
            expect(200, 403, 403),
            params={"scope": f"agent:{GLOBEX.agent}"},
        ),
        Attack("a scope both have", g, path, expect(200, 200, 403), params={"scope": WRITER_SCOPE}),
        Attack(
            "outside the allow-list", g, path, expect(200, 403, 200), params={"scope": READER_SCOPE}
        ),
        Attack("public", g, path, expect(200, 200, 200), params={"scope": "public"}),
        Attack("wildcard scope", g, path, literal(200), params={"scope": "user:*"}),
        Attack("any scope", g, path, SCOPE_TRICK, params={"scope": "*"}),
    ]


def mcp_call(name: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def a2a_rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def a2a_send(**data: Any) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "messageId": "iso-1", "parts": [{"data": data}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


@dataclass(frozen=True)
class Operation:
    attacks: Callable[[World], list[Attack]]
    headers: Mapping[str, str] = field(default_factory=dict)


def fixed(attacks: Callable[[], list[Attack]]) -> Operation:
    """An operation whose attacks need nothing of the world (ids are known in advance)."""
    return Operation(lambda _world: attacks())


def audit_is_own(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code == 200 and principal in ("admin", "operator"):
        assert response.json()["tenant"] == ACME.name


def no_entries(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code == 200:
        assert response.json()["entries"] == []


def attacks_audit(world: World) -> list[Attack]:
    g, path = "GET", "/v1/audit"
    [victim_admin, *_] = world.victim_key_ids()
    return [
        # The attacker's operator key is acme's (created with --tenant acme): acme's
        # trail only, never globex's, never "every tenant".
        Attack("own trail", g, path, expect(200, 403, 403, 200), check=audit_is_own),
        Attack(
            "globex's trail",
            g,
            path,
            expect(403, 403, 403, 403),
            params={"tenant": GLOBEX.name},
        ),
        Attack(
            "globex's actor",
            g,
            path,
            expect(200, 403, 403, 200),
            params={"actor": f"key:{victim_admin}", "limit": 1000},
            check=no_entries,
        ),
        Attack("any tenant", g, path, expect(403, 403, 403, 403), params={"tenant": "*"}),
        Attack("forged cursor", g, path, expect(422, 403, 403, 422), params={"since": "YTE6MA"}),
    ]


def usage_is_own(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code == 200 and principal in ("admin", "operator"):
        assert response.json()["tenant"] == ACME.name


def attacks_usage(world: World) -> list[Attack]:
    g, path = "GET", "/v1/usage"
    # Another tenant is refused alike whether it exists (globex) or never did.
    elsewhere = expect(403, 403, 403, 403)
    return [
        # The attacker's operator key is acme's: acme's usage only.
        Attack("own usage", g, path, expect(200, 403, 403, 200), check=usage_is_own),
        Attack("globex's usage", g, path, elsewhere, params={"tenant": GLOBEX.name}),
        Attack("a tenant that never was", g, path, elsewhere, params={"tenant": "nobody-ever"}),
        Attack("any tenant", g, path, expect(403, 403, 403, 403), params={"tenant": "*"}),
    ]


def webhooks_are_own(world: World, principal: str, response: httpx.Response) -> None:
    if response.status_code == 200:
        ids = {h["id"] for h in response.json()["webhooks"]}
        assert world.webhooks[GLOBEX.name] not in ids
        assert world.webhooks[ACME.name] in ids


# A webhook is an admin's of its own tenant: no other role may touch one, and globex's
# id is no webhook of acme's (404 for acme's admin, whatever the operation).
ADMIN_ONLY_NOT_FOUND = expect(404, 403, 403, 403)
# A body no key may send: refused as input before or after the role (nothing is created).
BAD_BODY = expect(422, {403, 422}, {403, 422}, {403, 422})


def hook(path: str, world: World) -> str:
    return path.format(webhook_id=world.webhooks[GLOBEX.name])


def attacks_create_webhook(world: World) -> list[Attack]:
    p, path = "POST", "/v1/webhooks"
    return [
        # acme's own scope of that name: acme's changes only (its admin may subscribe)
        Attack(
            "globex's scope name",
            p,
            path,
            expect(201, 403, 403, 403),
            json={"url": "https://93.184.216.34/ac-2", "scopes": [GLOBEX.own_scope]},
            plants=(GLOBEX.own_scope,),
        ),
        Attack(
            "tenant field",
            p,
            path,
            BAD_BODY,
            json={"url": "https://93.184.216.34/ac-3", "scopes": ["*"], "tenant": GLOBEX.name},
        ),
        Attack(
            "a private receiver",
            p,
            path,
            BAD_BODY,
            json={"url": "http://169.254.169.254/latest/meta-data", "scopes": ["*"]},
        ),
    ]


def attacks_list_webhooks(world: World) -> list[Attack]:
    return [
        Attack(
            "own list", "GET", "/v1/webhooks", expect(200, 403, 403, 403), check=webhooks_are_own
        )
    ]


def attacks_webhook(method: str, suffix: str = "") -> Callable[[World], list[Attack]]:
    def attacks(world: World) -> list[Attack]:
        path = "/v1/webhooks/{webhook_id}" + suffix
        return [
            Attack("globex's webhook", method, hook(path, world), ADMIN_ONLY_NOT_FOUND),
            Attack("a trick id", method, "/v1/webhooks/..%2f.." + suffix, TRICK),
        ]

    return attacks


def simple(
    method: str,
    path: str,
    statuses: Mapping[str, Statuses],
    headers: Mapping[str, str] | None = None,
    **kw: Any,
) -> Operation:
    return Operation(lambda _w: [Attack("as is", method, path, statuses, **kw)], headers or {})


# What a 404 may say: the id is not the tenant's (memory, erasure, raw turn) or no route.
NOT_FOUND_CODES = (
    "memory_not_found",
    "erasure_not_found",
    "interaction_not_found",
    "webhook_not_found",
    "route_not_found",
)
DOCS = expect(200, 200, 200, 200)
# Every operation of the app (OpenAPI document and routes left out of it) → its attacks.
OPERATIONS: dict[tuple[str, str], Operation] = {
    ("POST", "/v1/memories"): fixed(attacks_write),
    ("PUT", "/v1/memories/{memory_id}"): fixed(attacks_upsert),
    ("GET", "/v1/memories/{memory_id}"): fixed(attacks_read),
    ("DELETE", "/v1/memories/{memory_id}"): fixed(attacks_forget),
    ("GET", "/v1/memories/{memory_id}/lineage"): fixed(attacks_lineage),
    ("POST", "/v1/memories/search"): fixed(attacks_search),
    ("GET", "/v1/export"): fixed(attacks_export),
    ("GET", "/v1/memories"): fixed(attacks_list),
    ("GET", "/v1/changes"): fixed(attacks_changes),
    ("POST", "/v1/import"): fixed(attacks_import),
    ("POST", "/v1/memories:batch"): fixed(attacks_batch),
    ("PUT", "/v1/notes"): fixed(attacks_save_note),
    ("GET", "/v1/notes"): fixed(attacks_recall_notes),
    ("POST", "/v1/interactions"): fixed(attacks_interactions),
    ("POST", "/v1/write-triggers"): simple(
        "POST", "/v1/write-triggers", ANY_KEY, json={"text": "I prefer oolong tea, always."}
    ),
    ("GET", "/v1/persona"): fixed(lambda: attacks_scope_view("/v1/persona")),
    ("GET", "/v1/episodes"): fixed(lambda: attacks_scope_view("/v1/episodes")),
    ("POST", "/v1/erasures"): fixed(attacks_erase),
    ("GET", "/v1/erasures/{erasure_id}"): fixed(attacks_receipt),
    ("GET", "/v1/erasures/public-key"): simple(
        "GET", "/v1/erasures/public-key", expect(200, 403, 403)
    ),
    ("DELETE", "/v1/interactions/{interaction_id}"): fixed(attacks_forget_interaction),
    ("POST", "/v1/governance/run"): simple(
        "POST", "/v1/governance/run", expect(200, 403, 403), params={"wait": "true"}
    ),
    ("GET", "/healthz"): simple("GET", "/healthz", ANY_KEY),
    ("GET", "/v1/audit"): Operation(attacks_audit),
    ("GET", "/v1/usage"): Operation(attacks_usage),
    ("POST", "/v1/webhooks"): Operation(attacks_create_webhook),
    ("GET", "/v1/webhooks"): Operation(attacks_list_webhooks),
    # The console: static files, no data, no key needed; nothing outside its folder.
    ("GET", "/console"): simple("GET", "/console", ANY_KEY),
    ("GET", "/console/"): Operation(
        lambda _w: [
            Attack("to the page", "GET", "/console/", expect(308, 308, 308, 308)),
            Attack("a file", "GET", "/console/assets/app.js", ANY_KEY),
            Attack(
                "out of its folder",
                "GET",
                "/console/assets/..%2f..%2fsettings.py",
                expect(404, 404, 404, 404),
            ),
        ]
    ),
    ("GET", "/v1/webhooks/{webhook_id}"): Operation(attacks_webhook("GET")),
    ("DELETE", "/v1/webhooks/{webhook_id}"): Operation(attacks_webhook("DELETE")),
    ("POST", "/v1/webhooks/{webhook_id}:resume"): Operation(attacks_webhook("POST", ":resume")),
    # Routes left out of the OpenAPI document.
    ("GET", "/openapi.json"): simple("GET", "/openapi.json", DOCS),
    ("GET", "/docs"): simple("GET", "/docs", DOCS),
    ("GET", "/docs/oauth2-redirect"): simple("GET", "/docs/oauth2-redirect", DOCS),
    ("GET", "/redoc"): simple("GET", "/redoc", DOCS),
    # Counts of every tenant: only for an operator key created with --tenant '*'.
    ("GET", "/metrics"): simple("GET", "/metrics", expect(403, 403, 403, 403)),
    ("GET", "/.well-known/agent-card.json"): simple("GET", "/.well-known/agent-card.json", DOCS),
    # The transports' own answers; each tool and skill is attacked through the official
    # clients in test_isolation_agent_tools.py. Raw JSON-RPC here: the door, and no leak.
    ("POST", "/mcp"): Operation(
        lambda _w: [
            Attack(
                "read globex's id",
                "POST",
                "/mcp",
                ANY_KEY,
                json=mcp_call("memory_read", id=GX("alice").id),
            ),
            Attack(
                "search globex's scope",
                "POST",
                "/mcp",
                ANY_KEY,
                json=mcp_call("memory_search", query="oolong tea", scope=GLOBEX.own_scope),
            ),
        ],
        headers=MCP_HEADERS,
    ),
    # Stateless MCP: a GET opens the server's (empty) event stream, or is refused when
    # the caller does not accept one.
    ("GET", "/mcp"): Operation(
        lambda _w: [
            Attack("event stream", "GET", "/mcp", ANY_KEY, stream_seconds=1.0),
            Attack(
                "JSON only",
                "GET",
                "/mcp",
                expect(406, 406, 406, 406),
                headers={"Accept": "application/json"},
            ),
        ],
        headers=MCP_HEADERS,
    ),
    ("DELETE", "/mcp"): simple("DELETE", "/mcp", expect(405, 405, 405, 405), headers=MCP_HEADERS),
    # Each skill is attacked through the official client in test_isolation_agent_tools.py;
    # here the JSON-RPC methods around them: replies are messages, so no task (and no
    # other tenant's task) is ever kept to list or fetch.
    ("POST", "/a2a"): Operation(
        lambda _w: [
            Attack(
                "search",
                "POST",
                "/a2a",
                ANY_KEY,
                json=a2a_send(skill="memory.search", query="oolong tea"),
            ),
            Attack("list tasks", "POST", "/a2a", ANY_KEY, json=a2a_rpc("ListTasks", {})),
            Attack(
                "get a task", "POST", "/a2a", ANY_KEY, json=a2a_rpc("GetTask", {"id": "gx-task"})
            ),
        ],
        headers={"A2A-Version": "1.0"},
    ),
}


# --- the world and the runner -----------------------------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from worlds(tmp_path_factory.mktemp("isolation"))


@pytest.fixture(scope="module")
def victim_before(world: World) -> list[Any]:
    return world.victim_snapshot()


def send(world: World, principal: str, op: Operation, attack: Attack) -> httpx.Response:
    headers = {**op.headers, **attack.headers, **world.headers(principal)}
    if attack.content_type:
        headers["content-type"] = attack.content_type
    http = world.http()
    request = http.build_request(
        attack.method,
        attack.path,
        params=attack.params,
        json=attack.json,
        content=attack.content,
        headers=headers,
        timeout=60.0 if attack.stream_seconds is None else attack.stream_seconds,
    )
    if attack.stream_seconds is None:
        return http.send(request)
    answer = http.send(request, stream=True)
    arrived = b""
    deadline = time.monotonic() + attack.stream_seconds
    try:
        for chunk in answer.iter_raw():  # a quiet stream ends the read by its timeout,
            arrived += chunk  # a chatty one (heartbeats) by the deadline
            if time.monotonic() > deadline:
                break
    except httpx.ReadTimeout:
        pass  # the stream is still open: judge what it sent so far
    finally:
        answer.close()
    return httpx.Response(answer.status_code, headers=answer.headers, content=arrived)


def request_text(attack: Attack) -> str:
    return " ".join(
        [attack.path, json.dumps(attack.params), json.dumps(attack.json), attack.content or ""]
    )


_UNAUTHENTICATED: dict[str, str] = {}


def judge(world: World, principal: str, attack: Attack, response: httpx.Response) -> None:
    where = f"{attack.method} {attack.path} [{attack.name}] as {principal}"
    status, code = response.status_code, problem_code(response)
    extra = world.victim_key_ids()
    if principal in attack.cross_tenant:
        found = [m for m in leaks(raw_of(response), "", (), extra) if m.startswith("CANARY-")]
    else:
        found = leaks(raw_of(response), request_text(attack), world.planted, extra)
    assert not found, f"{where}: leaks {found}: {response.text[:2000]}"
    if attack.path == "/healthz":
        assert status == 200, where
        return
    if attack.path.startswith("/console"):
        # The console's page and files hold no data and take no key (a bad one is not
        # looked at): every caller gets the same answer; what is no console file stays
        # behind the door (a bad key: 401).
        refused = {401} if principal in BROKEN else set()
        assert status in attack.expect["admin"] | refused, f"{where}: {status}"
        return
    if principal in BROKEN:
        assert status == 401, f"{where}: {status} {response.text[:500]}"
        assert code in CODES_401, where
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith('Bearer realm="ai-memory"'), where
        wanted = "api_key_required" if principal in ("no_key", "basic_auth") else "invalid_api_key"
        assert code == wanted, where
        # One answer for every bad key: the detail tells no key from another.
        detail = response.json()["detail"]
        assert _UNAUTHENTICATED.setdefault(wanted, detail) == detail, where
        return
    allowed = attack.expect[principal]
    assert status in allowed, f"{where}: {status} not in {sorted(allowed)}: {response.text[:800]}"
    if status == 403:
        assert code in CODES_403, f"{where}: {code}"
    if status == 404 and attack.path.startswith("/v1/"):
        assert code in NOT_FOUND_CODES, f"{where}: {code}"
    if attack.check is not None:
        assert attack.check(world, principal, response) is not False, where
    if 200 <= status < 300:
        world.planted.update(attack.plants)


CASES = [
    pytest.param(op_key, principal, id=f"{op_key[0]} {op_key[1]} as {principal}")
    for op_key in OPERATIONS
    for principal in PRINCIPALS
]


@pytest.mark.parametrize(("op_key", "principal"), CASES)
def test_attack(
    world: World, victim_before: list[Any], op_key: tuple[str, str], principal: str
) -> None:
    op = OPERATIONS[op_key]
    for attack in op.attacks(world):
        assert attack.method == op_key[0]
        judge(world, principal, attack, send(world, principal, op, attack))


def app_operations(world: World) -> set[tuple[str, str]]:
    """Every (method, path) the app answers: its OpenAPI document, and the routes left
    out of it (the documentation, metrics, MCP, A2A)."""
    with world.client("admin") as admin:
        document = admin.get("/openapi.json").json()
    found = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method in ("get", "put", "post", "delete", "patch")
    }
    for route in world.server.app.routes:
        if getattr(route, "include_in_schema", True) and (
            getattr(route, "path", "") in document["paths"]
        ):
            continue
        for method in getattr(route, "methods", None) or ():
            if method != "HEAD":
                found.add((method, route.path))  # type: ignore[attr-defined]
    return found


def test_every_operation_is_attacked(world: World) -> None:
    found = app_operations(world)
    missing = sorted(found - set(OPERATIONS))
    assert not missing, (
        f"operations with no isolation attacks: {missing}. Add each to OPERATIONS in "
        "tests/integration/test_isolation_adversarial.py: who may call it, and how it is "
        "aimed at another tenant's data and at scopes outside the key's allow-list."
    )
    stale = sorted(set(OPERATIONS) - found)
    assert not stale, f"OPERATIONS lists operations the app no longer has: {stale}"


def test_scores_owe_nothing_to_another_tenant(world: World) -> None:
    """How rare a word is (keyword IDF) and every other input of a score come from the
    searching tenant's own memories: a third tenant flooding the query's words changes no
    score, rank or component of acme's search — else scores would count its memories."""
    queries = [
        search(query="zebrafish ledger quarterly", mode=mode, top_k=10)
        for mode in ("keyword", "hybrid")
    ]
    initech = issue(world, "initech", "admin", ["*"])
    flood = [
        memory("team:data", f"Zebrafish {i} and the quarterly zebrafish count.", id=f"in-{i}")
        for i in range(40)
    ]
    # Reads reinforce (read counts move the score), applied by a background flush: held
    # while the two searches are compared, else acme's own reads of the first search
    # change the second whenever the flood takes longer than the flush interval.
    recalls = world.container.service.recalls
    assert recalls is not None
    recalls.stop()  # applies what is pending now; recalls from here on wait
    world.container.service.wait_for(world.container.log.last_position())
    with world.client("admin") as acme:
        for memory_id, text in [
            ("ac-zebrafish", "The zebrafish lab reports weekly."),
            ("ac-ledger", "The ledger closes quarterly."),
        ]:
            r = acme.put(f"/v1/memories/{memory_id}?wait=true", json=memory("team:data", text))
            assert r.status_code == 201, r.text
        before = [acme.post("/v1/memories/search", json=q).json() for q in queries]
        assert all(page["results"] for page in before)
        headers = {"Authorization": f"Bearer {initech}"}
        with httpx.Client(base_url=world.url, headers=headers, timeout=60) as other:
            r = other.post("/v1/memories:batch?wait=true", json={"items": flood})
            assert r.status_code == 200, r.text
        after = [acme.post("/v1/memories/search", json=q).json() for q in queries]
    recalls.start()
    assert after == before


def test_a_quota_counts_only_the_tenants_own_memories(tmp_path: Path) -> None:
    """A tenant's stored-memories quota is its own: another tenant at its quota does not
    refuse it, and the refusal counts (and tells) only the tenant's own memories."""
    container = build(Settings(data_dir=tmp_path / "data", tenant_max_memories=3))
    container.start()
    server = LiveServer(container)
    try:
        keys = container.services.keys
        assert keys is not None
        tokens = {
            t: keys.create(tenant=t, role="admin", scopes=["*"], name="q").token
            for t in ("acme", "globex")
        }

        def write(tenant: str, n: int) -> httpx.Response:
            headers = {"Authorization": f"Bearer {tokens[tenant]}"}
            body = memory("team:data", f"{tenant} memory number {n}.")
            return httpx.post(f"{server.url}/v1/memories?wait=true", json=body, headers=headers)

        for n in range(3):
            assert write("globex", n).status_code == 201
        refused = write("globex", 3)
        assert (refused.status_code, problem_code(refused)) == (403, "quota_exceeded")
        for n in range(3):
            assert write("acme", n).status_code == 201, "globex's memories counted for acme"
        refused = write("acme", 3)
        assert (refused.status_code, problem_code(refused)) == (403, "quota_exceeded")
        assert "holds 3" in refused.json()["detail"]
    finally:
        server.stop()
        container.close()


def _feed(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    """One page of the change feed (NDJSON): its entries, then its trailer."""
    answer = client.get("/v1/changes", params={"limit": 1000, **params})
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines() if line]


def _acme_sees(acme: httpx.Client, erasure_id: str) -> tuple[list[int], list[str], dict[str, Any]]:
    """Every position and cursor acme's admin can read now — its change feed and audit
    trail (entries and cursors), its usage, the signed receipt of one of its erasures
    (built when asked: its projections' positions are of that moment) — and its
    /healthz."""
    *changes, trailer = _feed(acme)
    audit = acme.get("/v1/audit", params={"limit": 1000}).json()
    usage = acme.get("/v1/usage").json()
    got = acme.get(f"/v1/erasures/{erasure_id}")
    assert got.status_code == 200, got.text
    receipt = got.json()["receipt"]
    positions = [
        *(c["position"] for c in changes),
        *(e["position"] for e in audit["entries"]),
        *(u["position"] for u in usage["as_of"]),
        receipt["events"]["erasure"],
        *receipt["events"]["tombstones"].values(),
        *(p["position"] for p in receipt["projections"]),
    ]
    assert all(p["applied"] for p in receipt["projections"]), receipt["projections"]
    cursors = [trailer["next"], audit["next"], *(c["cursor"] for c in changes)]
    return positions, cursors, acme.get("/healthz").json()


def test_positions_do_not_count_another_tenants_writes(world: World) -> None:
    """acme writes twice with nothing between (N=0), then twice with initech's five
    writes between (N=5). On a log whose positions count every tenant, the second gap
    is the first plus five, and acme's cursors, usage and /healthz say the same. Here
    every number acme reads is its own token — no two a small distance apart, so no gap
    tells how much anyone wrote — its cursors are sealed, and /healthz shows acme's
    admin no position at all."""
    initech = issue(world, "initech", "admin", ["*"])
    headers = {"Authorization": f"Bearer {initech}"}
    with (
        world.client("admin") as acme,
        httpx.Client(base_url=world.url, headers=headers, timeout=60) as other,
    ):

        def write(client: httpx.Client, scope: str) -> int:
            answer = client.post("/v1/memories", json=memory(scope), params={"wait": "true"})
            assert answer.status_code == 201, answer.text
            return int(answer.json()["position"])

        write(acme, "team:gone")
        erased = acme.post(
            "/v1/erasures", json={"scope": "team:gone", "reason": "r"}, params={"wait": "true"}
        )
        assert erased.status_code in (200, 201), erased.text
        erasure_id = erased.json()["erasure_id"]
        quiet = [write(acme, "team:data"), write(acme, "team:data")]  # N = 0
        seen_before, _, health_before = _acme_sees(acme, erasure_id)
        busy = [write(acme, "team:data")]
        theirs = [write(other, "team:x") for _ in range(5)]  # N = 5
        busy.append(write(acme, "team:data"))
        seen, cursors, health_after = _acme_sees(acme, erasure_id)

        # No two numbers acme reads are close: a gap of 1 (N=0) or 6 (N=5) between
        # neighbouring writes would count initech's writes.
        mine = sorted({*quiet, *busy, *seen_before, *seen})
        assert len(mine) >= 6 and all(0 < p < 2**53 for p in mine)
        closest = min(b - a for a, b in itertools.pairwise(mine))
        assert closest > 2**20, f"two of acme's positions are {closest} apart"
        # Cursors hold no readable positions: sealed, never plain text.
        for cursor in cursors:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            assert not raw.isascii() or not raw.decode().isprintable(), raw
        # /healthz: acme's admin sees statuses, the same whatever initech wrote.
        assert health_before == health_after
        assert not {"projections", "lag", "writers", "dead_letters"} & set(health_after)

        # Read-your-writes works with acme's token...
        last = acme.get("/v1/memories", params={"min_position": busy[-1]})
        assert last.status_code == 200, last.text
        # ...and initech's token is not acme's: refused as beyond the head, the head unsaid.
        for token in theirs:
            refused = acme.get("/v1/memories", params={"min_position": token})
            assert (refused.status_code, problem_code(refused)) == (
                422,
                "position_beyond_head",
            ), refused.text
            assert refused.json()["field"] == "min_position"
            assert str(token) in refused.json()["detail"]
        # acme's cursors are refused to initech (and initech's to acme).
        owned = [("/v1/changes", _feed(acme)[-1]["next"]), ("/v1/audit", cursors[1])]
        owned.append(("/v1/changes", _feed(other)[-1]["next"]))  # initech's, to acme
        for (path, cursor), thief in zip(owned, (other, other, acme), strict=True):
            stolen = thief.get(path, params={"since": cursor})
            assert (stolen.status_code, stolen.json().get("field")) == (422, "since")


def test_zz_the_victim_is_unchanged(world: World, victim_before: list[Any]) -> None:
    """After every attack, globex's records, tombstones, notes (read counts included),
    persona, episodes and lineage are what they were."""
    assert world.victim_snapshot() == victim_before
