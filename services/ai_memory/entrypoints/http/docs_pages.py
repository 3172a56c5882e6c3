"""``/docs`` (Swagger UI) and ``/redoc`` from assets installed with the server.

FastAPI's own pages load their JavaScript, CSS, favicon (and ReDoc's fonts) from CDNs:
offline, or behind a proxy that blocks them, they are blank. Here the assets come from
the ``fastapi-offline`` package (served under ``/docs/assets``), Swagger UI's online
validator is off (it would send the document to another host), and the pages carry a
``Content-Security-Policy`` that lets them load nothing from anywhere but this server.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS = "/docs"
REDOC = "/redoc"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"
ASSETS = "/docs/assets"
ASSET_DIR = Path(fastapi_offline.__file__).parent / "static"
# Inline scripts and styles: both pages start their bundle from an inline <script>.
# blob: workers: ReDoc indexes its search in a worker made from a blob.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'self'"
)
SWAGGER_PARAMETERS = {
    "validatorUrl": None,  # the default badge posts the document to validator.swagger.io
    "persistAuthorization": True,
    "displayOperationId": True,
}


def _secured(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return page


def install(app: FastAPI) -> None:
    """Add the pages (create the app with ``docs_url=None, redoc_url=None``)."""
    app.mount(ASSETS, StaticFiles(directory=ASSET_DIR), name="docs-assets")

    @app.get(DOCS, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _secured(
            get_swagger_ui_html(
                openapi_url=f"{root}{app.openapi_url}",
                title=f"{app.title} — API",
                oauth2_redirect_url=f"{root}{OAUTH2_REDIRECT}",
                swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
                swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
                swagger_ui_parameters=SWAGGER_PARAMETERS,
            )
        )

    @app.get(OAUTH2_REDIRECT, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return _secured(get_swagger_ui_oauth2_redirect_html())

    @app.get(REDOC, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _secured(
            get_redoc_html(
                openapi_url=f"{root}{app.openapi_url}",
                title=f"{app.title} — API reference",
                redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
                redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
                with_google_fonts=False,
            )
        )
