"""The console's server side: which paths pass the key door as static files, the files
it serves with their headers, and that the package ships every one of them."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from ai_memory.entrypoints.http import console_pages
from ai_memory.entrypoints.http.auth import is_static_page

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "path",
    ["/console", "/console/", "/console/assets/app.js", "/console/assets/console.css"],
)
def test_the_console_files_need_no_key(path: str) -> None:
    assert is_static_page(path, "GET")
    assert is_static_page(path, "HEAD")


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/console", "POST"),  # only reads pass
        ("/console/assets/app.js", "DELETE"),
        ("/console/assets/../../v1/memories", "GET"),
        ("/console/assets/..", "GET"),
        ("/console/assets/sub/app.js", "GET"),  # the folder is flat
        ("/console/assets/.hidden", "GET"),
        ("/console/v1/memories", "GET"),
        ("/consoles", "GET"),
        ("/console2/assets/app.js", "GET"),
        ("/v1/memories", "GET"),
        ("/console/assets/", "GET"),
        ("/console/assets/app.js/", "GET"),
        ("/console/assets/app.js\x00", "GET"),
    ],
)
def test_nothing_else_passes_as_a_console_file(path: str, method: str) -> None:
    assert not is_static_page(path, method)


def test_the_page_and_assets_carry_the_policy() -> None:
    app = FastAPI()
    console_pages.install(app)
    client = TestClient(app)
    page = client.get("/console")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for response in (page, client.get("/console/assets/app.js")):
        assert response.headers["content-security-policy"] == console_pages.CONTENT_SECURITY_POLICY
        assert response.headers["referrer-policy"] == "no-referrer"
        assert response.headers["x-content-type-options"] == "nosniff"
    policy = console_pages.CONTENT_SECURITY_POLICY
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert "connect-src 'self'" in policy and "frame-ancestors 'none'" in policy
    moved = client.get("/console/", follow_redirects=False)
    assert moved.status_code == 308 and moved.headers["location"] == "/console"
    assert client.get("/console/assets/missing.js").status_code == 404


def test_the_page_loads_only_its_own_modules() -> None:
    html = (console_pages.ASSET_DIR / "index.html").read_text()
    assert "<script>" not in html and " style=" not in html  # nothing inline
    assert "http://" not in html and "https://" not in html  # nothing from another host
    for asset in console_pages.ASSET_DIR.iterdir():
        if asset.suffix in (".js", ".css"):
            text = asset.read_text()
            assert "https://" not in text and "http://" not in text, asset.name
            assert "localStorage.setItem" not in text and "document.cookie" not in text, asset.name


def test_the_package_ships_every_console_file() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["ai_memory"]
    package = ROOT / "services" / "ai_memory"
    for asset in console_pages.ASSET_DIR.iterdir():
        relative = asset.relative_to(package).as_posix()
        if asset.name == "tsconfig.json":
            continue  # the type check's settings, not a served file
        assert any(fnmatch(relative, pattern) for pattern in declared), relative
