"""The world of the adversarial isolation suite: one embedded app served by uvicorn over
real HTTP, two tenants seeded with canary data, keys of every kind, and the leak scan.

``acme`` is the attacker's tenant, ``globex`` the victim's. Every victim record carries
``CANARY-GLOBEX-…`` in its content and ``gx-…`` in its id, so a leak is found by scanning
the raw bytes of a response (headers and the whole body, streams included) — whatever
the route, whatever the shape of its answer.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings
from tests.factories import FixedClock

ATTACKER, VICTIM = "acme", "globex"
WRITER_SCOPE, READER_SCOPE = "user:alice", "team:data"

# The keys the attacks are made with. The valid ones are acme's; the broken ones are
# refused at the door whatever they aim at.
VALID = ("admin", "writer", "reader", "operator")
BROKEN = (
    "no_key",
    "malformed",
    "revoked",
    "revoked_after_use",
    "expired",
    "wrong_secret",
    "basic_auth",
)
PRINCIPALS = VALID + BROKEN

# Every 401 and 403 answer carries one of these stable codes (auth.py, core/access).
CODES_401 = frozenset({"api_key_required", "invalid_api_key"})
CODES_403 = frozenset({"role_forbidden", "scope_forbidden", "scope_required", "tenant_forbidden"})


def canary(tenant: str, what: str) -> str:
    """A unique, harmless marker (nothing a secret detector may take for a credential)."""
    return f"CANARY-{tenant.upper()}-{what}"


@dataclass(frozen=True)
class Seeded:
    """One seeded memory: its id, scope and the canary in its content."""

    id: str
    scope: str
    content: str
    forgotten: bool = False


def _memories(tenant: str, p: str) -> list[Seeded]:
    """Each tenant's memories; ``p`` is the tenant's id prefix (``ac``, ``gx``)."""

    def c(what: str) -> str:
        return canary(tenant, what)

    own = f"team:{p}-private"  # a scope name only this tenant uses
    return [
        Seeded(f"{p}-alice", "user:alice", f"{c('7f3a01')} Alice prefers oolong tea at noon."),
        Seeded(f"{p}-bob", "user:bob", f"{c('7f3a02')} Bob deploys the billing job on Fridays."),
        Seeded(f"{p}-data", "team:data", f"{c('7f3a03')} The data team ships oolong reports."),
        Seeded(f"{p}-public", "public", f"{c('7f3a04')} The office opens at nine for tea."),
        Seeded(f"{p}-rota", own, f"{c('7f3a05')} The ops rota changes every oolong Monday."),
        Seeded(f"{p}-write-target", "team:data", f"{c('7f3a06')} A target for overwrites."),
        Seeded(f"{p}-delete-target", "user:alice", f"{c('7f3a07')} A target for forgets."),
        Seeded(f"{p}-import-target", "user:alice", f"{c('7f3a0a')} A target for imports."),
        Seeded(f"{p}-batch-target", "user:alice", f"{c('7f3a0b')} A target for batches."),
        Seeded(f"{p}-gone", "team:data", f"{c('7f3a08')} Forgotten tea facts.", forgotten=True),
        # The same id in both tenants: each must only ever see its own.
        Seeded("shared-1", "user:alice" if p == "ac" else "team:data", f"{c('7f3a09')} Shared."),
    ]


@dataclass
class Tenant:
    name: str
    prefix: str
    memories: list[Seeded]
    agent: str  # an agent only this tenant has notes for
    interaction_scope: str

    def memory(self, suffix: str) -> Seeded:
        return next(m for m in self.memories if m.id == f"{self.prefix}-{suffix}")

    @property
    def own_scope(self) -> str:
        return f"team:{self.prefix}-private"


def tenant(name: str, prefix: str) -> Tenant:
    return Tenant(name, prefix, _memories(name, prefix), f"{prefix}-bot", "user:alice")


ACME, GLOBEX = tenant(ATTACKER, "ac"), tenant(VICTIM, "gx")


def victim_markers() -> list[str]:
    """What must never appear in an answer to acme: globex's canaries (any), ids, names,
    scopes and topics. ``leaks`` exempts a marker the request itself carried (an id the
    attacker guessed is echoed in a 404, which tells it nothing)."""
    ids = [m.id for m in GLOBEX.memories if m.id != "shared-1"]
    return [
        "CANARY-GLOBEX",
        VICTIM,
        *ids,
        GLOBEX.agent,
        GLOBEX.own_scope,
        "gx-topic",
        "gx-episode",
        "gx-agent",
    ]


def leaks(
    raw: bytes, request_text: str, exempt: Iterable[str] = (), extra: Iterable[str] = ()
) -> list[str]:
    """The victim markers in ``raw`` that the request did not carry itself, nor an
    earlier request wrote into acme (``exempt``). A canary is never exempt: no request
    of acme carries one, so one in an answer can only be globex's."""
    lowered = raw.decode("utf-8", "replace").lower()
    asked = request_text.lower()
    excused = {e.lower() for e in exempt}
    found = []
    for marker in [*victim_markers(), *extra]:
        m = marker.lower()
        if m in lowered and (marker.startswith("CANARY-") or (m not in asked and m not in excused)):
            found.append(marker)
    return found


def raw_of(response: httpx.Response) -> bytes:
    """Headers and the whole body of an answer, as sent."""
    head = "\n".join(f"{k}: {v}" for k, v in response.headers.multi_items())
    return head.encode("utf-8") + b"\n\n" + response.content


class LiveServer:
    """uvicorn serving the app of an embedded container on a free loopback port, in a
    thread of this process — real HTTP (paths decoded once, as in production), while
    the test can still issue keys and move the clock."""

    def __init__(self, container: Container) -> None:
        self.app = create_app(container.services)
        # IPPROTO_TCP said explicitly: asyncio sets TCP_NODELAY only on sockets that say
        # so, and without it every keep-alive answer waits ~40 ms for a delayed ACK.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.bind(("127.0.0.1", 0))
        port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        # Open streams (SSE) are cut after 5 s at stop rather than holding the thread.
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5
        )
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the isolation server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(15)
        self._socket.close()


@dataclass
class World:
    """The running server, the container behind it and every key's bearer value."""

    container: Container
    server: LiveServer
    clock: FixedClock
    tokens: dict[str, str] = field(default_factory=dict)  # principal -> Authorization value
    victim_tokens: dict[str, str] = field(default_factory=dict)
    key_ids: dict[str, str] = field(default_factory=dict)
    # Victim markers acme's own requests wrote into acme (see ``leaks``).
    planted: set[str] = field(default_factory=set)
    webhooks: dict[str, str] = field(default_factory=dict)  # tenant -> its webhook's id
    _http: httpx.Client | None = None

    @property
    def url(self) -> str:
        return self.server.url

    def victim_key_ids(self) -> list[str]:
        """globex's key ids: an actor ``key:<id>`` of globex in acme's answer is a leak."""
        return [v for k, v in self.key_ids.items() if k.startswith(f"{VICTIM}:")]

    def headers(self, principal: str) -> dict[str, str]:
        value = self.tokens.get(principal)
        return {} if value is None else {"Authorization": value}

    def http(self) -> httpx.Client:
        """One keep-alive client for the module's requests (a client per request would
        cost a TLS context each), closed with the world; keys go in each request."""
        if self._http is None:
            self._http = httpx.Client(base_url=self.url, timeout=60)
        return self._http

    def client(self, principal: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=self.headers(principal), timeout=30)

    def victim(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": self.victim_tokens["admin"]}, timeout=30
        )

    def victim_snapshot(self) -> list[Any]:
        """globex as its admin sees it: every record and tombstone line of its export
        (the header's export time aside), and what its notes say (read counts included)."""
        with self.victim() as victim:
            lines = victim.get("/v1/export").text.splitlines()
            body = [json.loads(line) for line in lines]
            rows: list[Any] = [x for x in body if x.get("kind") not in ("header", "trailer")]
            rows.append(next(x for x in body if x.get("kind") == "trailer"))
            for agent in ("planner", GLOBEX.agent):
                notes = victim.get("/v1/notes", params={"agent": agent}).json()
                rows.append({k: notes[k] for k in ("your_topics", "notes_used")})
            for scope in ("user:alice", GLOBEX.own_scope):
                rows.append(victim.get("/v1/persona", params={"scope": scope}).json())
                rows.append(victim.get("/v1/episodes", params={"scope": scope}).json())
            # Its webhooks, without the delivery state (failing attempts move it).
            hooks = victim.get("/v1/webhooks").json()["webhooks"]
            rows.append([{k: h[k] for k in ("id", "url", "scopes", "kinds")} for h in hooks])
            for m in GLOBEX.memories:
                r = victim.get(f"/v1/memories/{m.id}/lineage")
                rows.append([r.status_code, r.json()])
        return rows

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
        self.server.stop()
        self.container.close()


def issue(world: World, tenant_name: str, role: str, scopes: list[str], **kw: Any) -> str:
    keys = world.container.services.keys
    assert keys is not None
    issued = keys.create(tenant=tenant_name, role=role, scopes=scopes, name=role, **kw)
    world.key_ids[f"{tenant_name}:{role}:{','.join(scopes)}"] = issued.key.key_id
    return issued.token


def _keys(world: World) -> None:
    keys = world.container.services.keys
    assert keys is not None

    def bearer(token: str) -> str:
        return f"Bearer {token}"

    admin = issue(world, ATTACKER, "admin", ["*"])
    world.tokens["admin"] = bearer(admin)
    world.tokens["writer"] = bearer(issue(world, ATTACKER, "writer", [WRITER_SCOPE]))
    world.tokens["reader"] = bearer(issue(world, ATTACKER, "reader", [READER_SCOPE]))
    world.tokens["operator"] = bearer(issue(world, ATTACKER, "operator", ["*"]))
    world.tokens["malformed"] = "Bearer aimem_not-a-key_%2e%2e"
    revoked = keys.create(tenant=ATTACKER, role="admin", scopes=["*"], name="revoked")
    keys.revoke(revoked.key.key_id)
    world.tokens["revoked"] = bearer(revoked.token)
    expired = issue(world, ATTACKER, "admin", ["*"], expires_in=timedelta(minutes=1))
    world.tokens["expired"] = bearer(expired)
    # Keys the gateway has already seen (and cached): refused all the same once revoked
    # or expired.
    used = keys.create(tenant=ATTACKER, role="admin", scopes=["*"], name="revoked later")
    world.tokens["revoked_after_use"] = bearer(used.token)
    for name in ("revoked_after_use", "expired"):
        with world.client(name) as http:
            assert http.get("/v1/export", params={"scope": "public"}).status_code == 200
    keys.revoke(used.key.key_id)
    # A real key id with another secret of the right shape.
    prefix, key_id, secret = admin.split("_", 2)
    forged = secret[:-4] + ("AAAA" if not secret.endswith("AAAA") else "BBBB")
    world.tokens["wrong_secret"] = bearer(f"{prefix}_{key_id}_{forged}")
    world.tokens["basic_auth"] = "Basic YWNtZTphZG1pbg=="
    world.victim_tokens["admin"] = bearer(issue(world, VICTIM, "admin", ["*"]))
    world.victim_tokens["writer"] = bearer(issue(world, VICTIM, "writer", [WRITER_SCOPE]))


def _seed(world: World, who: Tenant, authorization: str) -> None:
    headers = {"Authorization": authorization}
    with httpx.Client(base_url=world.url, headers=headers, timeout=60) as http:
        for m in who.memories:
            body = {
                "type": "fact",
                "content": m.content,
                "scope": m.scope,
                "source_agent": f"{who.prefix}-agent",
                "tags": [f"{who.prefix}-topic"],
            }
            r = http.put(f"/v1/memories/{m.id}", json=body, params={"wait": "true"})
            assert r.status_code == 201, r.text
        for m in who.memories:
            if m.forgotten:
                r = http.delete(f"/v1/memories/{m.id}", params={"wait": "true"})
                assert r.status_code == 200, r.text
        for agent in ("planner", who.agent):
            for topic in ("deploy", f"{who.prefix}-topic"):
                note = {
                    "agent": agent,
                    "topic": [topic],
                    "note": f"{canary(who.name, 'n0te')} {agent} remembers {topic}.",
                }
                r = http.put("/v1/notes", json=note)
                assert r.status_code == 201, r.text
        for scope in (who.interaction_scope, who.own_scope):
            turn = {
                "scope": scope,
                "source_agent": f"{who.prefix}-agent",
                "session_id": f"{who.prefix}-episode-1",
                "text": f"I live in Lisbon. I prefer oolong tea. {canary(who.name, 'turn')}",
            }
            r = http.post("/v1/interactions", json=turn, params={"wait": "true"})
            assert r.status_code == 201, r.text
        # A webhook per tenant (a public address nobody answers: deliveries fail and back
        # off, which changes nothing here); its description carries a canary.
        hook = {
            "url": f"https://93.184.216.34/{who.prefix}-hook",
            "scopes": [who.own_scope],
            "description": canary(who.name, "hook"),
        }
        r = http.post("/v1/webhooks", json=hook)
        assert r.status_code == 201, r.text
        world.webhooks[who.name] = r.json()["id"]
        # Reads of the notes so that read counts exist (an attacker must not move them).
        r = http.get("/v1/notes", params={"agent": "planner", "topic": "deploy"})
        assert r.status_code == 200, r.text


def open_world(tmp: Path) -> World:
    clock = FixedClock()
    # Every attack comes from one address and thousands are refused keys on purpose: the
    # per-address limit of refused keys (attacked in test_failed_auth_http) would answer
    # 429 before the door's 401 this suite checks, so it is off here.
    settings = Settings(data_dir=tmp / "data", auth_failure_burst=0)
    container = build(settings, clock=clock)
    container.start()
    try:
        server = LiveServer(container)
    except BaseException:
        container.close()
        raise
    world = World(container, server, clock)
    try:
        _keys(world)
        _seed(world, ACME, world.tokens["admin"])
        _seed(world, GLOBEX, world.victim_tokens["admin"])
        # The expired key's minute is over: it is refused from now on (the clock is fixed
        # otherwise, so nothing else ages during the suite).
        clock.advance(120)
    except BaseException:
        world.close()
        raise
    return world


def worlds(tmp: Path) -> Iterator[World]:
    """A module fixture's body: one world, closed after the module."""
    world = open_world(tmp)
    try:
        yield world
    finally:
        world.close()


def problem_code(response: httpx.Response) -> str | None:
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return None
    body = response.json()
    return str(body.get("code")) if isinstance(body, Mapping) else None
