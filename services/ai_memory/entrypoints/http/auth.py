"""The HTTP door: ``Authorization: Bearer <key>`` → the caller's principal.

**Open development mode.** While no API key was ever created (``ai-memory keys create``)
every request is tenant ``default`` with no principal, exactly as before keys existed.
Once one exists every request needs a valid key, except ``GET /healthz`` (probes).

What the door answers (problem+json):

* **401** ``api_key_required`` (no key) or ``invalid_api_key`` (malformed, unknown,
  wrong, revoked, expired: deliberately one answer), with ``WWW-Authenticate: Bearer``;
* **403** with the policy's stable ``code`` (``role_forbidden``, ``scope_forbidden``,
  ``scope_required``) when the key may not do what is asked.

Where each request is checked:

* here, for every request: authentication, and the paths whose rights do not depend on a
  memory's scope — ``/metrics`` needs an operator key; ``/v1/audit`` an admin or an
  operator key (its route keeps an admin to its own tenant); the documentation and the
  write triggers any valid key;
* in the routes (``app.py``, ``batch_routes.py``, ``notes_routes.py``,
  ``governance_routes.py``), through ``require`` and ``search_scopes``: write (each item
  of a batch on its own), read, forget, search, export, notes (scope ``agent:<agent>``),
  interactions, persona, episodes and lineage are checked against the key's role and
  scopes, and a search, listing (``GET /v1/memories``), export or change feed
  (``GET /v1/changes``) looks only in scopes the key may read; a governor run needs an
  admin key; MCP and A2A pass the principal to the agent tools, which check each call the
  same way;
* an import judges each line against the key's scopes (a record line as a write, a
  tombstone as a forget in the memory's own scope); a refused line is rejected in the
  report (``scope_forbidden``) and the others land;
* every other route needs an admin key: a new route is refused to narrower keys until it
  checks scopes (``test_every_route_is_known_to_the_door``).

The key's tenant replaces ``default`` for every route (``tenant_of``), so a key of one
tenant never reads, searches or forgets another tenant's memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ai_memory.core.access import AccessPrincipal, Action
from ai_memory.core.errors import AiMemoryError, Forbidden, Unauthenticated
from ai_memory.core.record import DEFAULT_TENANT
from ai_memory.service.acting import acting_as
from ai_memory.service.keys import KeyService

from . import problems

OPEN_PATHS = frozenset({"/healthz"})
# Their tools check each call themselves (agent_tools.py), or they hold no memory.
ANY_KEY_PATHS = frozenset(
    {
        "/openapi.json",
        "/docs",
        "/docs/oauth2-redirect",
        "/redoc",
        "/v1/write-triggers",
        "/mcp",
        "/mcp/",
        "/a2a",
        "/.well-known/agent-card.json",
    }
)
OPERATOR_PATHS = frozenset({"/metrics"})
# The audit trail: a tenant's admin, or an operator naming the tenant (the route decides).
AUDIT_PATHS = frozenset({"/v1/audit"})
# The routes that check the key's scopes themselves (app.py); any other needs an admin.
_SCOPE_CHECKED = re.compile(
    r"^/v1/(memories(/search|:batch)?|memories/[^/]+(/lineage)?|export|import|changes|notes"
    r"|interactions|persona|episodes|governance/run)$"
)
_STATE_KEY = "principal"


def principal_of(request: Request) -> AccessPrincipal | None:
    """The authenticated caller; None in open development mode."""
    state = request.scope.get("state") or {}
    principal = state.get(_STATE_KEY)
    return principal if isinstance(principal, AccessPrincipal) else None


def tenant_of(request: Request) -> str:
    """The key's tenant; ``default`` in open development mode."""
    principal = principal_of(request)
    return DEFAULT_TENANT if principal is None else principal.tenant


def actor_of(request: Request, fallback: str) -> str:
    """What the log records as the actor: the key (``key:<id>``) when there is one."""
    principal = principal_of(request)
    return fallback if principal is None else principal.actor


def scope_limited(request: Request) -> bool:
    """Whether the caller's key may reach only some scopes (not open mode, not admin)."""
    principal = principal_of(request)
    return principal is not None and not principal.every_scope


def require_role(request: Request, action: Action) -> None:
    """``Forbidden`` unless the caller's role allows ``action`` in some scope."""
    principal = principal_of(request)
    if principal is not None:
        KeyService.require_role(principal, action)


def require(request: Request, action: Action, scope: str | None) -> None:
    """``Forbidden`` unless the caller's key may ``action`` in ``scope`` (open mode: yes)."""
    principal = principal_of(request)
    if principal is not None:
        KeyService.require(principal, action, scope)


def search_scopes(request: Request, requested: Iterable[str] | None) -> list[str] | None:
    """The scopes a search or export of the caller may look in (None: every scope)."""
    principal = principal_of(request)
    if principal is None:
        return None if requested is None else list(requested)
    allowed = KeyService.search_scopes(principal, requested)
    return None if allowed is None else list(allowed)


def bearer_token(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def door_of(path: str) -> str:
    """Which door a path is: ``open``, ``any`` key, ``operator``, ``audit`` (admin or
    operator), ``checked`` by its route (or its tools), or ``admin`` only."""
    if path in OPEN_PATHS:
        return "open"
    if path in ANY_KEY_PATHS:
        return "any"
    if path in OPERATOR_PATHS:
        return "operator"
    if path in AUDIT_PATHS:
        return "audit"
    return "checked" if _SCOPE_CHECKED.match(path) else "admin"


def gate(principal: AccessPrincipal, path: str) -> None:
    """The rights a path needs before its route runs (see the module docstring)."""
    door = door_of(path)
    if door == "operator":
        KeyService.require(principal, "operate")
    elif door == "audit" and principal.role not in ("admin", "operator"):
        raise Forbidden(
            "the audit trail is for an admin of the tenant or an operator",
            code="role_forbidden",
        )
    elif door == "admin" and principal.role != "admin":
        raise Forbidden(
            "this endpoint does not check scopes yet: until it does, only an admin key may use it",
            code="role_forbidden",
        )


class KeyDoor:
    """Pure ASGI middleware: authenticate, gate, and leave the principal in the scope."""

    def __init__(self, app: ASGIApp, keys: KeyService | None) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        keys = self.keys
        if scope["type"] not in ("http", "websocket") or keys is None:
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        # Cached answers on the loop; a worker thread only when the store must be read.
        required = keys.required_if_known()
        if required is None:
            required = await run_in_threadpool(keys.required)
        if not required:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        token = bearer_token(Headers(scope=scope).get("authorization"))
        try:
            principal = keys.authenticate_if_cached(token)
            if principal is None:
                principal = await run_in_threadpool(keys.authenticate, token)
            gate(principal, path)
        except AiMemoryError as error:
            await refuse(error, scope, receive, send)
            return
        scope.setdefault("state", {})[_STATE_KEY] = principal
        # Every event this request causes records the key as its actor (service.acting).
        with acting_as(principal.actor):
            await self.app(scope, receive, send)


async def refuse(error: AiMemoryError, scope: Scope, receive: Receive, send: Send) -> None:
    response = problems.from_domain(error, problems.request_id_of(scope))
    if isinstance(error, Unauthenticated):
        response.headers["WWW-Authenticate"] = (
            'Bearer realm="ai-memory"'
            if error.code == "api_key_required"
            else 'Bearer realm="ai-memory", error="invalid_token"'
        )
    await response(scope, receive, send)


def install(app: FastAPI, keys: KeyService | None) -> None:
    """Add the door inside the edge (install it before ``metrics`` and ``edge``, so
    request ids, host checks and request metrics see refused requests too)."""
    app.add_middleware(KeyDoor, keys=keys)
