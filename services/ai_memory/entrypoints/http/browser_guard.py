"""Protections against the browser as a confused deputy.

A web page the user visits can send "simple" cross-origin requests (form posts,
``text/plain`` bodies) to a server on localhost without any CORS preflight, and a DNS
rebinding page can even read the answers. So:

* the ``Host`` header must name this server (localhost, 127.0.0.1, ::1 and the configured
  ``AIMEM_ALLOWED_HOSTS``) — a rebinding page's own name is refused;
* a state-changing request (POST, PUT, PATCH, DELETE) from another origin is refused
  (403) unless that origin is configured in ``AIMEM_CORS_ORIGINS``: an ``Origin`` header
  that is neither this server's own origin nor allowed, an opaque ``Origin: null``, or
  ``Sec-Fetch-Site: cross-site`` when a browser sent no ``Origin``;
* so is any other request to the API (``/v1``, ``/mcp``, ``/a2a``): a read can append too
  (``GET /v1/notes`` searches, and every search is recorded as a read that feeds the
  governance score), and an ``<img src>`` needs no preflight. The browser would hide the
  answer, but not undo the event;
* CORS is closed unless origins are configured; then exactly those may call.

Clients that are not browsers (the SDK, the CLI, curl) send no ``Origin`` and pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from fastapi import FastAPI
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from .problem_guard import problem_message
from .problems import request_id_of

LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1", "testserver")
_STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_API = ("/v1/", "/mcp", "/a2a")  # any method: reads append too (see the module docstring)


def trusted_hosts(configured: Iterable[str]) -> list[str]:
    return [*LOCAL_HOSTS, *(h.strip().lower() for h in configured if h.strip())]


class CrossOriginGuard:
    def __init__(self, app: ASGIApp, allowed_origins: Sequence[str]) -> None:
        self.app = app
        self.allowed = {o.rstrip("/").lower() for o in allowed_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (
            scope["method"] in _STATE_CHANGING or scope["path"].startswith(_API)
        ):
            refusal = self.refusal(Headers(scope=scope))
            if refusal is not None:
                start, body = problem_message(
                    403, "cross_origin_refused", refusal, request_id_of(scope), []
                )
                await send(start)
                await send(body)
                return
        await self.app(scope, receive, send)

    def refusal(self, headers: Headers) -> str | None:
        """Why this request may not change state, or None when it may."""
        origin = headers.get("origin")
        if origin is None:
            if headers.get("sec-fetch-site", "").lower() == "cross-site":
                return "a cross-site browser request may not reach the API"
            return None
        normalised = origin.strip().rstrip("/").lower()
        if "*" in self.allowed or normalised in self.allowed:
            return None
        if normalised != "null" and urlsplit(normalised).netloc == headers.get("host", "").lower():
            return None  # the server's own origin (its own pages, if it ever serves any)
        return (
            f"origin {origin[:100]!r} may not call this API; "
            "allow it with AIMEM_CORS_ORIGINS if it is yours"
        )


def mcp_transport_security(
    hosts: Sequence[str], origins: Sequence[str]
) -> TransportSecuritySettings:
    """DNS-rebinding protection of the MCP transport: the same hosts and origins as the
    rest of the API (``host:*`` and ``http://host:*`` allow any port)."""
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed_hosts = [pattern for h in hosts for pattern in (h, f"{h}:*")]
    local_origins = [
        f"{scheme}://{h}:*" for scheme in ("http", "https") for h in LOCAL_HOSTS if h != "::1"
    ]
    local_origins += [f"{scheme}://{h}" for scheme in ("http", "https") for h in LOCAL_HOSTS]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=[*local_origins, *(o.rstrip("/") for o in origins)],
    )


def install(app: FastAPI, hosts: Sequence[str], cors_origins: Sequence[str]) -> None:
    """Add the browser protections (Starlette runs the last added middleware first)."""
    app.add_middleware(CrossOriginGuard, allowed_origins=cors_origins)
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["*"],
            expose_headers=["X-Request-Id", "Retry-After", "Location"],
        )
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts), www_redirect=False)
