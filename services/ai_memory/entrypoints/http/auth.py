"""The HTTP door: ``Authorization: Bearer <key>`` → the request's caller.

**Open development mode.** While no API key was ever created (``ai-memory keys create``)
every request's caller is the deployment itself (``service.access.Embedded``, tenant
``default``), exactly as before keys existed. Once one exists every request needs a
valid key, except ``GET /healthz`` (probes: without a key it says only ``ok`` or
``degraded``; an admin or operator key sees the details) and the operator console's own
files (``is_static_page``), and its caller is the key's principal.

The door authenticates; it does not authorize. What a caller may do — role, scopes,
tenant, what it may learn of a memory it may not reach — is decided by the service every
route calls with ``caller_of(request)`` (``service.access``), so a route cannot forget a
rule it never held. The door answers (problem+json):

* **401** ``api_key_required`` (no key) or ``invalid_api_key`` (malformed, unknown,
  wrong, revoked, expired: deliberately one answer), with ``WWW-Authenticate: Bearer``.
* **429** ``auth_failures`` with ``Retry-After``, held back until that wait is over (at
  most 5 s: the flood slows to the limit's rate), when the client's address has used up
  its refused keys (``core.access.failed_auth``: ``AIMEM_AUTH_FAILURE_BURST`` at once,
  then ``AIMEM_AUTH_FAILURE_RATE`` a second) and its key is not one this gateway has seen
  valid: a flood of bad keys gets no store reads, while a known valid key from the same
  address (behind the same NAT) is still checked, and refreshed, as usual.

Even ``/metrics`` is judged behind the door (``HealthService.may_read_metrics``: an
operator key).

**Rights last only as long as the key.** A request that stays open (an SSE change feed, a
long-poll, an A2A stream, an export) asks ``rights_of(request)`` again at least every
``stream_rights.RECHECK_SECONDS`` while it runs: the same authentication as a new request (same key
cache, so a revoked or expired key fails within ``AIMEM_KEY_CACHE_SECONDS`` plus one
recheck), and a stream opened in open development mode ends once a key exists.
"""

from __future__ import annotations

import asyncio
import re

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ai_memory.core.access import AccessPrincipal
from ai_memory.core.access.failed_auth import FailedAuthLimiter, source_of
from ai_memory.core.access.rate import retry_after_seconds
from ai_memory.core.errors import AiMemoryError, Unauthenticated
from ai_memory.service.access import Caller, Embedded
from ai_memory.service.acting import acting_as
from ai_memory.service.keys import KeyService

from . import problems

OPEN_PATHS = frozenset({"/healthz"})
# The console's own files (``console_pages``): they hold no data, and a browser cannot
# send a key with a page load; the page then calls the API with the key typed into it.
# Exactly the page and its flat asset folder: no other path, no "..", no other method.
_STATIC_PAGE = re.compile(r"/console/?|/console/assets/[A-Za-z0-9_-][A-Za-z0-9._-]*")
_READS = frozenset({"GET", "HEAD"})
_STATE_KEY = "principal"
_RIGHTS_KEY = "rights"
_ANONYMOUS_KEY = "anonymous"
TARPIT_SECONDS = 5.0  # the longest a refused address's 429 is held back
_OPEN = Embedded()  # the caller of every request while no key is in force


def principal_of(request: Request) -> AccessPrincipal | None:
    """The authenticated key; None in open development mode."""
    state = request.scope.get("state") or {}
    principal = state.get(_STATE_KEY)
    return principal if isinstance(principal, AccessPrincipal) else None


def caller_of(request: Request) -> Caller:
    """The request's caller: its key, or the deployment in open development mode."""
    principal = principal_of(request)
    return _OPEN if principal is None else principal


class StillAllowed:
    """Whether the request's key still authenticates (``check`` raises
    ``Unauthenticated`` once it does not): the door's own decision, asked again."""

    def __init__(self, keys: KeyService | None, token: str | None) -> None:
        self._keys = keys
        self._token = token  # None: the request came in while no key was required

    async def check(self) -> None:
        """On the event loop; a worker thread only when the key store must be read."""
        keys = self._keys
        if keys is None:
            return
        if self._token is None:
            required = keys.required_if_known()
            if required is None:
                required = await run_in_threadpool(keys.required)
            if required:
                raise Unauthenticated(
                    "an API key is now required: reconnect with Authorization: Bearer",
                    code="api_key_required",
                )
            return
        if keys.authenticate_if_cached(self._token) is None:
            await run_in_threadpool(keys.authenticate, self._token)

    def check_blocking(self) -> None:
        """``check`` from a worker thread (a streamed export's generator)."""
        keys = self._keys
        if keys is None:
            return
        if self._token is None:
            if keys.required():
                raise Unauthenticated(
                    "an API key is now required: reconnect with Authorization: Bearer",
                    code="api_key_required",
                )
            return
        keys.authenticate(self._token)


_ALWAYS = StillAllowed(None, None)


def rights_of(request: Request) -> StillAllowed:
    """What a long-lived request asks to learn whether its key still holds."""
    state = request.scope.get("state") or {}
    rights = state.get(_RIGHTS_KEY)
    return rights if isinstance(rights, StillAllowed) else _ALWAYS


def bearer_token(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def is_static_page(path: str, method: str) -> bool:
    """A read of the console's files: ``/console`` itself or one of its assets."""
    return method in _READS and ".." not in path and _STATIC_PAGE.fullmatch(path) is not None


def door_of(path: str, method: str = "GET") -> str:
    """Which door a path is: ``open`` (no key), ``static`` (the console's files: no key,
    no caller) or ``key`` (any valid key: the service behind the route judges it)."""
    if path in OPEN_PATHS:
        return "open"
    return "static" if is_static_page(path, method) else "key"


class KeyDoor:
    """Pure ASGI middleware: authenticate and leave the principal in the scope."""

    def __init__(
        self, app: ASGIApp, keys: KeyService | None, failures: FailedAuthLimiter | None = None
    ) -> None:
        self.app = app
        self.keys = keys
        self.failures = failures

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        keys = self.keys
        if scope["type"] not in ("http", "websocket") or keys is None:
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path in OPEN_PATHS:
            await self._open_door(keys, scope, receive, send)
            return
        if is_static_page(path, scope.get("method", "")):
            await self.app(scope, receive, send)
            return
        # Cached answers on the loop; a worker thread only when the store must be read.
        required = keys.required_if_known()
        if required is None:
            required = await run_in_threadpool(keys.required)
        if not required:
            scope.setdefault("state", {})[_RIGHTS_KEY] = StillAllowed(keys, None)
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        token = bearer_token(Headers(scope=scope).get("authorization"))
        failures = self.failures
        source = source_of((scope.get("client") or ("",))[0]) if failures else ""
        try:
            # A limited address is held back before anything else, whatever it sends (a
            # missing or malformed key costs no lookup but its 401 would be instant, and
            # an instant answer is what a flood needs); a key seen valid goes on.
            wait = failures.wait_ns(source) if failures else 0
            if wait and not keys.known_valid(token):
                await too_many_failures(wait, scope, receive, send)
                return
            principal = keys.authenticate_if_cached(token)
            if principal is None:
                principal = await run_in_threadpool(keys.authenticate, token)
        except AiMemoryError as error:
            if failures is not None and isinstance(error, Unauthenticated):
                failures.failed(source)
            await refuse(error, scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state[_STATE_KEY] = principal
        state[_RIGHTS_KEY] = StillAllowed(keys, token)
        # Every event this request causes records the key as its actor (service.acting).
        with acting_as(principal.actor):
            await self.app(scope, receive, send)

    async def _open_door(
        self, keys: KeyService, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A path that needs no key (``/healthz``): served to everyone, but a valid key,
        if one is sent, is known to the route (an admin or operator sees the details); with keys
        in force and none valid the request is marked anonymous. A bad key is charged to
        its address like anywhere else, and a blocked address is not looked up."""
        required = keys.required_if_known()
        if required is None:
            required = await run_in_threadpool(keys.required)
        state = scope.setdefault("state", {})
        if not required:
            await self.app(scope, receive, send)
            return
        token = bearer_token(Headers(scope=scope).get("authorization"))
        principal: AccessPrincipal | None = None
        if token:
            failures = self.failures
            source = source_of((scope.get("client") or ("",))[0]) if failures else ""
            try:
                principal = keys.authenticate_if_cached(token)
                blocked = bool(failures and failures.wait_ns(source))
                if principal is None and (not blocked or keys.known_valid(token)):
                    principal = await run_in_threadpool(keys.authenticate, token)
            except AiMemoryError as error:
                if failures is not None and isinstance(error, Unauthenticated):
                    failures.failed(source)
        if principal is None:
            state[_ANONYMOUS_KEY] = True
        else:
            state[_STATE_KEY] = principal
        await self.app(scope, receive, send)


def anonymous(request: Request) -> bool:
    """Whether keys are in force and the request carried no valid one (open paths only:
    anywhere else such a request never reaches a route)."""
    state = request.scope.get("state") or {}
    return bool(state.get(_ANONYMOUS_KEY))


async def refuse(error: AiMemoryError, scope: Scope, receive: Receive, send: Send) -> None:
    response = problems.from_domain(error, problems.request_id_of(scope))
    if isinstance(error, Unauthenticated):
        response.headers["WWW-Authenticate"] = (
            'Bearer realm="ai-memory"'
            if error.code == "api_key_required"
            else 'Bearer realm="ai-memory", error="invalid_token"'
        )
    await response(scope, receive, send)


async def too_many_failures(wait_ns: int, scope: Scope, receive: Receive, send: Send) -> None:
    """429, answered only once the wait is over (at most ``TARPIT_SECONDS``): a refusal
    the server answers at once is one the flood sends again at once — measured, an
    instant 429 let a 64-connection flood make 5,000 requests/s and saturate the event
    loop as much as the 401s did. Held, each connection makes about one request per
    wait, and a held connection costs no CPU."""
    await asyncio.sleep(min(wait_ns / 1e9, TARPIT_SECONDS))
    retry_after = retry_after_seconds(wait_ns)
    response = problems.problem(
        429,
        "auth_failures",
        f"too many refused API keys from this address; retry after {retry_after} s",
        retry_after=retry_after,
        retry_after_ms=-(-wait_ns // 1_000_000),
        request_id=problems.request_id_of(scope),
    )
    await response(scope, receive, send)


def install(
    app: FastAPI, keys: KeyService | None, failures: FailedAuthLimiter | None = None
) -> None:
    """Add the door inside the edge (install it before ``metrics`` and ``edge``, so
    request ids, host checks and request metrics see refused requests too)."""
    app.add_middleware(KeyDoor, keys=keys, failures=failures)
