"""The layers every HTTP request passes before a route, in one place and in order.

Outermost first: ``RequestTracing`` (a server span when tracing is on; the request's log
fields, so even the line of an unexpected 500 names its request) → ``ProblemGuard``
(request id; any failure becomes problem+json) → trusted ``Host`` → CORS (only when
origins are configured) → ``CrossOriginGuard`` (no cross-origin writes) → ``BodyLimit``
(413 before or while the body is read) → routes.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from ai_memory.settings import Settings

from . import browser_guard
from .body_limits import BodyLimit, EdgeRefusal
from .browser_guard import mcp_transport_security, trusted_hosts
from .problem_guard import ProblemGuard
from .request_tracing import RequestTracing

__all__ = ["body_limit_for", "install", "mcp_transport_security", "require_ndjson", "trusted_hosts"]

IMPORT_PATH = "/v1/import"
NDJSON = "application/x-ndjson"


class UnsupportedMediaType(EdgeRefusal):
    status = 415
    code = "unsupported_media_type"


def require_ndjson(content_type: str | None) -> None:
    """An import must say it is NDJSON. Browsers can send ``text/plain`` or form bodies
    cross-site without a preflight, but never ``application/x-ndjson``."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type != NDJSON:
        raise UnsupportedMediaType(
            f"an import body must be sent as {NDJSON}, not {media_type or 'untyped'}"
        )


def body_limit_for(settings: Settings) -> Callable[[str], int]:
    """The most bytes a body may have on a path (a tenant's own limit can only lower it)."""

    def limit_for(path: str) -> int:
        return settings.max_import_bytes if path == IMPORT_PATH else settings.max_body_bytes

    return limit_for


def install(app: FastAPI, settings: Settings, hosts: list[str]) -> None:
    """Add the edge layers (Starlette runs the middleware added last first)."""
    limit_for = body_limit_for(settings)
    app.add_middleware(BodyLimit, limit_for=limit_for, timeout=settings.body_timeout)
    browser_guard.install(app, hosts, settings.cors_origins)
    app.add_middleware(ProblemGuard)
    app.add_middleware(RequestTracing)
