"""Adversarial isolation of the agent tools: every MCP tool (the official ``mcp`` client
over streamable HTTP) and every A2A skill (the official ``a2a-sdk`` client over JSON-RPC)
tried by every kind of acme key against globex's ids, scopes and agents, and against
acme's scopes outside the key's allow-list.

Each answer must be the documented one — the tool's result, or an error with the stable
code of ``core.errors`` (``role_forbidden``, ``scope_forbidden``, ``memory_not_found`` for
an id the tenant does not have) — and carry none of globex's canaries, ids, agents or
scopes. A missing, malformed, revoked, expired or forged key never reaches a tool: the
door answers 401 before the transport runs. The tools come from ``tools/list`` and the
skills from the agent card: one not listed in ``TOOL_ATTACKS`` / ``SKILLS`` fails
``test_every_tool_and_skill_is_attacked``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.helpers import new_data_part
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from tests.integration.test_a2a import ask
from tests.isolation_probe import (
    ACME,
    BROKEN,
    CODES_401,
    GLOBEX,
    READER_SCOPE,
    VALID,
    WRITER_SCOPE,
    World,
    leaks,
    problem_code,
    worlds,
)

Outcomes = frozenset[str]
OK = "ok"
GX, AC = GLOBEX.memory, ACME.memory
READABLE = {"writer": {WRITER_SCOPE, "public"}, "reader": {READER_SCOPE, "public"}}


def expect(
    admin: str | set[str], writer: str | set[str], reader: str | set[str], operator: str = ""
) -> dict[str, Outcomes]:
    """What each valid acme key gets: ``ok`` or the error's code. An operator holds no
    memory right at all (``role_forbidden``) unless said otherwise."""

    def as_set(v: str | set[str]) -> Outcomes:
        return frozenset({v} if isinstance(v, str) else v)

    return {
        "admin": as_set(admin),
        "writer": as_set(writer),
        "reader": as_set(reader),
        "operator": as_set(operator or "role_forbidden"),
    }


Check = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class ToolAttack:
    name: str
    arguments: dict[str, Any]
    expect: Mapping[str, Outcomes]
    check: Check | None = None
    plants: tuple[str, ...] = ()  # victim markers written into acme on purpose


def fact(scope: str, **kw: Any) -> dict[str, Any]:
    content = "Acme writes about oolong tea."
    return {"type": "fact", "content": content, "scope": scope, "source_agent": "ac-agent", **kw}


def fresh(principal: str, data: dict[str, Any]) -> None:
    """A write of globex's id is an acme memory: version 1 (created, or acme's admin's)."""
    assert data["record"]["version"] == 1 and data["status"] in ("created", "unchanged"), data


def hits_are_own(principal: str, data: dict[str, Any]) -> None:
    assert data["count"] == len(data["results"])
    for hit in data["results"]:
        if principal in READABLE:
            assert hit["scope"] in READABLE[principal], hit


def bundle_is_own(principal: str, data: dict[str, Any]) -> None:
    assert data["truncated"] is False


def forbidden_write(writer: str = "scope_forbidden") -> dict[str, Outcomes]:
    return expect(OK, writer, "role_forbidden")


TOOL_ATTACKS: dict[str, list[ToolAttack]] = {
    "memory_write": [
        ToolAttack(
            "globex's id and scope name",
            fact(GLOBEX.own_scope, id=GX("write-target").id),
            forbidden_write(),
            check=fresh,
            plants=(GX("write-target").id, GLOBEX.own_scope),
        ),
        ToolAttack(
            "globex's id in an allowed scope",
            fact(WRITER_SCOPE, id=GX("bob").id),
            expect(OK, OK, "role_forbidden"),
            check=fresh,
            plants=(GX("bob").id,),
        ),
        ToolAttack("outside the allow-list", fact(READER_SCOPE), forbidden_write()),
        # acme's own memories outside the writer's scopes: refused before anything is
        # told of them (not scope_immutable, nor memory_forgotten).
        ToolAttack(
            "own team:data id, into the writer's scope",
            fact(WRITER_SCOPE, id=AC("data").id),
            expect("scope_immutable", "scope_forbidden", "role_forbidden"),
        ),
        ToolAttack(
            "own forgotten team:data id",
            fact(WRITER_SCOPE, id=AC("gone").id),
            expect("memory_forgotten", "scope_forbidden", "role_forbidden"),
        ),
        ToolAttack("public is read-only", fact("public"), forbidden_write()),
        ToolAttack("wildcard scope", fact("user:*"), forbidden_write()),
        ToolAttack(
            "any scope",
            fact("*"),
            expect("invalid_input", {"invalid_input", "scope_forbidden"}, "role_forbidden"),
        ),
        ToolAttack(
            "tenant argument",
            fact(WRITER_SCOPE, tenant=GLOBEX.name),
            expect("unknown_field", "unknown_field", "unknown_field", "unknown_field"),
        ),
    ],
    "memory_search": [
        ToolAttack(
            "every scope the key may read",
            {"query": "oolong tea office", "top_k": 50},
            expect(OK, OK, OK),
            check=hits_are_own,
        ),
        ToolAttack(
            "globex's scope name",
            {"query": "oolong tea", "scope": GLOBEX.own_scope},
            expect(OK, "scope_forbidden", "scope_forbidden"),
            check=hits_are_own,
        ),
        ToolAttack(
            "public",
            {"query": "oolong tea office", "scope": "public"},
            expect(OK, OK, OK),
            check=hits_are_own,
        ),
        ToolAttack(
            "outside the allow-list",
            {"query": "oolong tea", "scope": READER_SCOPE},
            expect(OK, "scope_forbidden", OK),
            check=hits_are_own,
        ),
        ToolAttack(
            "wildcard scope",
            {"query": "oolong tea", "scope": "user:*"},
            expect(OK, "scope_forbidden", "scope_forbidden"),
            check=hits_are_own,
        ),
        ToolAttack(
            "any scope",
            {"query": "oolong tea", "scope": "*"},
            expect("invalid_input", "invalid_input", "invalid_input", "invalid_input"),
        ),
        ToolAttack(
            "globex's tag",
            {"query": "oolong tea", "tags": ["gx-topic"]},
            expect(OK, OK, OK),
            check=hits_are_own,
        ),
        ToolAttack(
            "tenant argument",
            {"query": "oolong tea", "tenant": GLOBEX.name},
            expect("unknown_field", "unknown_field", "unknown_field", "unknown_field"),
        ),
    ],
    "memory_read": [
        ToolAttack(
            "globex's exact id",
            {"id": GX("alice").id},
            expect("memory_not_found", "memory_not_found", "memory_not_found"),
        ),
        ToolAttack(
            "globex's forgotten id",
            {"id": GX("gone").id},
            expect("memory_not_found", "memory_not_found", "memory_not_found"),
        ),
        ToolAttack(
            "globex's public id",
            {"id": GX("public").id},
            expect("memory_not_found", "memory_not_found", "memory_not_found"),
        ),
        ToolAttack("the shared id", {"id": "shared-1"}, expect(OK, OK, "scope_forbidden")),
        ToolAttack("own team:data", {"id": AC("data").id}, expect(OK, "scope_forbidden", OK)),
        ToolAttack("own public", {"id": AC("public").id}, expect(OK, OK, OK)),
        ToolAttack(
            "own forgotten, another scope",
            {"id": AC("gone").id},
            expect("memory_forgotten", "scope_forbidden", "memory_forgotten"),
        ),
        ToolAttack(
            "dot-dot slash",
            {"id": f"../{GX('alice').id}"},
            expect("invalid_input", "invalid_input", "invalid_input", "invalid_input"),
        ),
        ToolAttack(
            "NUL",
            {"id": f"{GX('alice').id}\x00"},
            expect("invalid_input", "invalid_input", "invalid_input", "invalid_input"),
        ),
    ],
    "memory_forget": [
        ToolAttack(
            "globex's exact id",
            {"id": GX("delete-target").id, "confirm": True},
            expect("memory_not_found", "memory_not_found", "role_forbidden"),
        ),
        # Without confirm the tool shows the memory: never globex's.
        ToolAttack(
            "a preview of globex's id",
            {"id": GX("alice").id},
            expect("memory_not_found", "memory_not_found", "role_forbidden"),
        ),
        ToolAttack(
            "globex's forgotten id",
            {"id": GX("gone").id, "confirm": True},
            expect("memory_not_found", "memory_not_found", "role_forbidden"),
        ),
        ToolAttack(
            "a preview of own team:data",
            {"id": AC("write-target").id},
            expect("confirmation_required", "scope_forbidden", "role_forbidden"),
        ),
        ToolAttack(
            "own forgotten, another scope",
            {"id": AC("gone").id, "confirm": True},
            expect(OK, "scope_forbidden", "role_forbidden"),
        ),
    ],
    "memory_export": [
        ToolAttack(
            "globex's scope name",
            {"scope": GLOBEX.own_scope},
            expect(OK, "scope_forbidden", "scope_forbidden"),
            check=bundle_is_own,
        ),
        ToolAttack("public", {"scope": "public"}, expect(OK, OK, OK), check=bundle_is_own),
        ToolAttack(
            "outside the allow-list",
            {"scope": READER_SCOPE},
            expect(OK, "scope_forbidden", OK),
            check=bundle_is_own,
        ),
        ToolAttack(
            "wildcard scope",
            {"scope": "user:*"},
            expect(OK, "scope_forbidden", "scope_forbidden"),
            check=bundle_is_own,
        ),
    ],
    "notes_save": [
        ToolAttack(
            "globex's agent",
            {"agent": GLOBEX.agent, "topic": "deploy", "note": "Acme's own note."},
            forbidden_write(),
            plants=(GLOBEX.agent,),
        ),
        ToolAttack(
            "an agent both have",
            {"agent": "planner", "topic": "deploy", "note": "Acme's planner note."},
            forbidden_write(),
        ),
    ],
    "notes_recall": [
        ToolAttack(
            "globex's agent",
            {"agent": GLOBEX.agent, "topic": "deploy"},
            expect(OK, "scope_forbidden", "scope_forbidden"),
        ),
        ToolAttack(
            "an agent both have",
            {"agent": "planner", "topic": "gx-topic deploy"},
            expect(OK, "scope_forbidden", "scope_forbidden"),
        ),
    ],
}
# The A2A skills and the tool each runs (a2a/skills.py).
SKILLS = {
    "memory.write": "memory_write",
    "memory.search": "memory_search",
    "memory.forget": "memory_forget",
    "notes.save": "notes_save",
    "notes.recall": "notes_recall",
    "memory.changes": "memory_changes",
}


def changes_are_own(principal: str, data: dict[str, Any]) -> None:
    """A page of the feed: entries (never content) of scopes the key may read."""
    assert data["count"] == len(data["changes"])
    for entry in data["changes"]:
        assert "content" not in entry, entry
        if principal in READABLE:
            assert entry["scope"] in READABLE[principal], entry


# Skills with no MCP tool (a2a/skills.py A2A_ONLY), by the name their table entry gives.
SKILL_ATTACKS: dict[str, list[ToolAttack]] = {
    "memory_changes": [
        ToolAttack(
            "globex's scope name",
            {"scope": GLOBEX.own_scope},
            expect(OK, "scope_forbidden", "scope_forbidden"),
            check=changes_are_own,
        ),
        ToolAttack("public", {"scope": "public"}, expect(OK, OK, OK), check=changes_are_own),
        ToolAttack(
            "outside the allow-list",
            {"scope": READER_SCOPE},
            expect(OK, "scope_forbidden", OK),
            check=changes_are_own,
        ),
        ToolAttack(
            "wildcard scope",
            {"scope": "user:*"},
            expect(OK, "scope_forbidden", "scope_forbidden"),
            check=changes_are_own,
        ),
    ],
}
ATTACKS = TOOL_ATTACKS | SKILL_ATTACKS


def notes_counted_in_acme(world: World, data: dict[str, Any]) -> None:
    """``notes_used`` counts acme's notes of the agent, never globex's."""
    with world.client("admin") as admin:
        page = admin.get("/v1/notes", params={"agent": data["agent"]}).json()
    assert data["notes_used"] == len(page["your_topics"]), (data, page)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from worlds(tmp_path_factory.mktemp("isolation-tools"))


@pytest.fixture(scope="module")
def victim_before(world: World) -> list[Any]:
    return world.victim_snapshot()


def judge(
    world: World, where: str, principal: str, attack: ToolAttack, outcome: str, raw: str
) -> None:
    found = leaks(raw.encode(), json.dumps(attack.arguments), world.planted, world.victim_key_ids())
    assert not found, f"{where}: leaks {found}: {raw[:2000]}"
    allowed = attack.expect[principal]
    assert outcome in allowed, f"{where}: {outcome} not in {sorted(allowed)}: {raw[:800]}"


def after_ok(world: World, principal: str, attack: ToolAttack, data: dict[str, Any]) -> None:
    if attack.check is not None:
        attack.check(principal, data)
    if "notes_used" in data:
        notes_counted_in_acme(world, data)
    world.planted.update(attack.plants)


# --- MCP -----------------------------------------------------------------------------------


@asynccontextmanager
async def mcp_client(world: World, principal: str) -> AsyncIterator[Client]:
    """The official client over streamable HTTP, sending the principal's key."""
    url = f"{world.url}/mcp"
    async with (
        httpx2.AsyncClient(headers=world.headers(principal), timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def mcp_outcome(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    data = result.structured_content
    assert isinstance(data, dict), result
    if result.is_error:
        return str(data["error"]["code"]), data
    return OK, data


MCP_CASES = [
    pytest.param(tool, principal, id=f"{tool} as {principal}")
    for tool in TOOL_ATTACKS
    for principal in VALID
]


@pytest.mark.parametrize(("tool", "principal"), MCP_CASES)
def test_mcp_tool(world: World, victim_before: list[Any], tool: str, principal: str) -> None:
    async def scenario() -> None:
        async with mcp_client(world, principal) as client:
            for attack in TOOL_ATTACKS[tool]:
                result = await client.call_tool(tool, attack.arguments)
                outcome, data = mcp_outcome(result)
                where = f"MCP {tool} [{attack.name}] as {principal}"
                judge(world, where, principal, attack, outcome, result.model_dump_json())
                if outcome == OK:
                    after_ok(world, principal, attack, data)

    anyio.run(scenario)


# --- A2A -----------------------------------------------------------------------------------

A2A_CASES = [
    pytest.param(skill, principal, id=f"{skill} as {principal}")
    for skill in SKILLS
    for principal in VALID
]


@pytest.mark.parametrize(("skill", "principal"), A2A_CASES)
def test_a2a_skill(world: World, victim_before: list[Any], skill: str, principal: str) -> None:
    async def scenario() -> None:
        headers = world.headers(principal)
        async with httpx.AsyncClient(headers=headers, timeout=60) as http:
            card = await A2ACardResolver(http, world.url).get_agent_card()
            # memory.changes pages over message/send (one reply); a stream is a task of
            # events, and its refusals are the same checks before the task starts.
            config = ClientConfig(httpx_client=http, streaming=skill != "memory.changes")
            async with await create_client(card, config) as client:
                for attack in ATTACKS[SKILLS[skill]]:
                    data, text, meta = await ask(
                        client, new_data_part({"skill": skill, **attack.arguments})
                    )
                    outcome = str(meta.get("error", OK))
                    raw = json.dumps([data, text, meta])
                    where = f"A2A {skill} [{attack.name}] as {principal}"
                    judge(world, where, principal, attack, outcome, raw)
                    if outcome == OK:
                        after_ok(world, principal, attack, _whole_numbers(data))

    anyio.run(scenario)


def _whole_numbers(value: Any) -> Any:
    """A2A data parts carry every number as a double: 1.0 back to 1 for the checks."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    return value


# --- broken keys never reach a tool ----------------------------------------------------------


def mcp_request(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def a2a_request(skill: str, arguments: dict[str, Any]) -> dict[str, Any]:
    part = {"data": {"skill": skill, **arguments}}
    message = {"role": "ROLE_USER", "messageId": "iso-1", "parts": [part]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


@pytest.mark.parametrize("principal", BROKEN)
def test_broken_keys_reach_no_tool_and_no_skill(world: World, principal: str) -> None:
    sent: list[httpx.Response] = []
    with world.client(principal) as http:
        for tool, attacks in TOOL_ATTACKS.items():
            body = mcp_request(tool, attacks[0].arguments)
            accept = {"Accept": "application/json, text/event-stream"}
            sent.append(http.post("/mcp", json=body, headers=accept))
        for skill, tool in SKILLS.items():
            body = a2a_request(skill, ATTACKS[tool][0].arguments)
            sent.append(http.post("/a2a", json=body, headers={"A2A-Version": "1.0"}))
        sent.append(http.get("/.well-known/agent-card.json"))
    for response in sent:
        assert response.status_code == 401, response.text
        assert problem_code(response) in CODES_401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert not leaks(response.content, "")

    # Nor do the official clients get past the door.
    async def mcp() -> None:
        async with mcp_client(world, principal) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the client's own error for a 401
        anyio.run(mcp)

    async def a2a() -> None:
        async with httpx.AsyncClient(headers=world.headers(principal), timeout=60) as http:
            await A2ACardResolver(http, world.url).get_agent_card()

    with pytest.raises(Exception):  # noqa: B017
        anyio.run(a2a)


# --- every tool and skill is in the tables ----------------------------------------------------


def test_every_tool_and_skill_is_attacked(world: World) -> None:
    async def listed() -> tuple[set[str], set[str]]:
        async with mcp_client(world, "admin") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
        async with httpx.AsyncClient(headers=world.headers("admin"), timeout=60) as http:
            card = await A2ACardResolver(http, world.url).get_agent_card()
        return tools, {s.id for s in card.skills}

    tools, skills = anyio.run(listed)
    missing = sorted(tools - set(TOOL_ATTACKS)) + sorted(skills - set(SKILLS))
    assert not missing, (
        f"tools or skills with no isolation attacks: {missing}. Add each to TOOL_ATTACKS or "
        "SKILLS in tests/integration/test_isolation_agent_tools.py."
    )
    assert set(TOOL_ATTACKS) == tools and set(SKILLS) == skills, "stale entries"
    # Each skill runs the tool its table entry names.
    from ai_memory.entrypoints.a2a.skills import SKILLS as SERVED

    assert {s: served[0] for s, served in SERVED.items()} == SKILLS


def test_zz_the_victim_is_unchanged(world: World, victim_before: list[Any]) -> None:
    assert world.victim_snapshot() == victim_before
