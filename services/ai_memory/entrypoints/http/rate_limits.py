"""Rates and request sizes per tenant and per API key, right after the key door.

Pure ASGI, inside ``KeyDoor`` (``auth``): it knows the caller's key and tenant, and it
runs for every HTTP request — the REST routes and ``/mcp`` and ``/a2a`` alike — except
``/healthz`` (probes are never limited) and the console's static files (they are not a
tenant's requests: charged to ``default``, a flood of page loads without a key would
empty that tenant's bucket). In open development mode (no key) the caller is
tenant ``default`` and only the tenant's bucket applies.

* **429** ``rate_limited`` with ``Retry-After`` (whole seconds, rounded up: the exact
  wait is in ``retry_after_ms``) when the key's or the tenant's bucket is empty; the
  detail and ``limit`` say which one, and nothing about any other tenant. The SDK waits
  that long and retries.
* **413** ``body_too_large`` when the tenant's ``max_request_bytes`` is lower than the
  route's limit and the body is larger: the same ``BodyLimit`` as the edge's, with the
  lower of the two limits (a tenant's limit never raises a route's).

**Buckets live in each gateway process** (``core/access/rate``). With N gateways behind a
load balancer a tenant can make up to N × its rate in all; an operator who wants a
deployment-wide rate R sets each gateway's to R / N (spreading requests evenly across
gateways is the balancer's job). Exact deployment-wide limits would need a shared
counter on every request — a network round trip the ≤ 0.2 ms budget of this door does
not allow.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from ai_memory.core.access import AccessPrincipal
from ai_memory.core.access.rate import RateLimiter, Refusal
from ai_memory.core.record import DEFAULT_TENANT

from . import problems
from .auth import OPEN_PATHS, is_static_page
from .body_limits import BodyLimit

_WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_TENANT_SUBJECT = "a request of this tenant"


class RateDoor:
    """Charge the key's and the tenant's buckets; bound the body by the tenant's limit."""

    def __init__(
        self,
        app: ASGIApp,
        limiter: RateLimiter,
        route_limit: Callable[[str], int],
        timeout: float,
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.route_limit = route_limit
        self.timeout = timeout
        self._bounded: dict[int, BodyLimit] = {}  # a tenant byte limit → its BodyLimit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] in OPEN_PATHS
            or is_static_page(scope["path"], scope["method"])
        ):
            await self.app(scope, receive, send)
            return
        # Left in the scope by KeyDoor (auth.principal_of reads the same place).
        principal = (scope.get("state") or {}).get("principal")
        if isinstance(principal, AccessPrincipal):
            tenant, key_id = principal.tenant, principal.key_id
        else:
            tenant, key_id = DEFAULT_TENANT, None
        refusal = self.limiter.admit(tenant, key_id)
        if refusal is not None:
            await self._refuse(refusal, scope, receive, send)
            return
        cap = self.limiter.table.of(tenant).max_request_bytes
        if cap and scope["method"] in _WITH_BODY:
            await self._bounded_by(cap)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _bounded_by(self, cap: int) -> BodyLimit:
        bounded = self._bounded.get(cap)
        if bounded is None:
            route_limit = self.route_limit

            def limit_for(path: str) -> int:
                return min(cap, route_limit(path))

            bounded = BodyLimit(self.app, limit_for, self.timeout, _TENANT_SUBJECT)
            self._bounded[cap] = bounded
        return bounded

    async def _refuse(self, refusal: Refusal, scope: Scope, receive: Receive, send: Send) -> None:
        whose = "this API key" if refusal.limit == "key" else "this tenant"
        detail = (
            f"{whose} is over its rate limit ({refusal.rate:g} requests/s, bursts of "
            f"{refusal.burst}); retry after {refusal.retry_after} s"
        )
        response = problems.problem(
            429,
            "rate_limited",
            detail,
            limit=refusal.limit,
            retry_after=refusal.retry_after,
            retry_after_ms=-(-refusal.wait_ns // 1_000_000),
            request_id=problems.request_id_of(scope),
        )
        await response(scope, receive, send)


def install(
    app: FastAPI, limiter: RateLimiter | None, route_limit: Callable[[str], int], timeout: float
) -> None:
    """Add the door just inside ``KeyDoor`` (install it before ``auth``: Starlette runs
    the middleware added last first)."""
    if limiter is not None:
        app.add_middleware(RateDoor, limiter=limiter, route_limit=route_limit, timeout=timeout)
