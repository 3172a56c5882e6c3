"""The document's security is the door's: once a key exists, every operation the
document says needs ``bearerAuth`` answers 401 without one (or with a wrong one), and
the operations it marks open answer without a key."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings

METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    # No limit on refused keys: every operation is asked without a valid one.
    c = build(Settings(data_dir=tmp_path / "data", auth_failure_burst=0))
    c.start()
    yield c
    c.close()


@pytest.fixture
def client(container: Container) -> Iterator[TestClient]:
    with TestClient(create_app(container.services)) as c:
        yield c


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, item[method])
        for path, item in doc["paths"].items()
        for method in METHODS
        if method in item
    ]


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "m1", path)


def needs_key(doc: dict[str, Any], operation: dict[str, Any]) -> bool:
    security = operation.get("security", doc["security"])
    return {} not in security


@pytest.mark.parametrize("sent", [None, "Bearer aimem_wrong", "Basic dXNlcjpwYXNz"])
def test_the_document_says_which_operations_need_a_key(
    client: TestClient, container: Container, sent: str | None
) -> None:
    doc = client.get("/openapi.json").json()  # open development mode: no key yet
    keys = container.services.keys
    assert keys is not None
    keys.create(tenant="acme", role="admin", scopes=["*"], name="ops")
    headers = {} if sent is None else {"Authorization": sent}
    answers = {}
    for method, path, operation in operations(doc):
        r = client.request(method, concrete(path), headers=headers)
        answers[(method, path)] = r.status_code
        if needs_key(doc, operation):
            assert r.status_code == 401, (method, path, r.text)
            assert r.headers["content-type"] == "application/problem+json"
            assert r.headers["www-authenticate"].startswith("Bearer")
        else:
            assert r.status_code == 200, (method, path, r.text)
    assert list(answers.values()).count(200) == 1  # /healthz alone
    assert len(answers) > 20
