"""``/console``: the operator console, static files that talk to the public API.

The console is plain ES modules and CSS shipped in this package (``console/``); the
server only hands out the files. Everything the page shows it asks the API for, with the
API key the operator typed into it, so it can show nothing that key could not read with
curl. The files hold no data, which is why they are served without a key (a browser
cannot attach ``Authorization`` to a page load; ``auth.is_static_page``).

Every answer carries a strict ``Content-Security-Policy``: scripts and styles only from
this server and never inline, requests only to this server, no frames, no plugins, no
form posts elsewhere. With ``Referrer-Policy: no-referrer`` nothing the page shows leaks
through a link, and ``Cache-Control: no-store`` keeps a shared machine's cache clean of
the console's own files across upgrades.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

CONSOLE = "/console"
ASSETS = "/console/assets"
ASSET_DIR = Path(__file__).parent / "console"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def _secured(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


class _ConsoleFiles(StaticFiles):
    """The console's files, each with the console's headers (a module's CSP is moot, but
    nosniff and no-store are not)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        return _secured(await super().get_response(path, scope))


def install(app: FastAPI) -> None:
    """Serve the console at ``/console`` (its modules under ``/console/assets``)."""
    app.mount(ASSETS, _ConsoleFiles(directory=ASSET_DIR), name="console-assets")

    @app.get(CONSOLE, include_in_schema=False)
    def console() -> Response:
        return _secured(FileResponse(ASSET_DIR / "index.html", media_type="text/html"))

    @app.get(f"{CONSOLE}/", include_in_schema=False)
    def console_slash() -> Response:
        return _secured(RedirectResponse(CONSOLE, status_code=308))
