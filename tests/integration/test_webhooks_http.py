"""``/v1/webhooks`` over HTTP with the default settings: a private destination is a 422
problem naming ``url``; bad bodies name their field; the operations carry their ids and
tag in the OpenAPI document."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    container = build(Settings(data_dir=tmp_path_factory.mktemp("webhooks") / "data"))
    container.start()
    try:
        with TestClient(create_app(container.services)) as http:  # the lifespan runs
            yield http
    finally:
        container.close()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://10.0.0.8:8080/hook",
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://[::1]/hook",
        "http://[::ffff:169.254.169.254]/hook",
        "http://localhost:8080/hook",
        "https://0.0.0.0/hook",
    ],
)
def test_a_private_destination_is_refused_naming_url(client: TestClient, url: str) -> None:
    r = client.post("/v1/webhooks", json={"url": url, "scopes": ["*"]})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert (r.json()["field"], r.json()["code"]) == ("url", "webhook_destination_refused")
    assert client.get("/v1/webhooks").json() == {"webhooks": []}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "https://93.184.216.34/hook"}, "scopes"),
        ({"scopes": ["*"]}, "url"),
        ({"url": "javascript:alert(1)", "scopes": ["*"]}, "url"),
        ({"url": "https://a:b@93.184.216.34/", "scopes": ["*"]}, "url"),
        ({"url": "https://93.184.216.34/", "scopes": ["*"], "kinds": ["x"]}, "kinds"),
        ({"url": "https://93.184.216.34/", "scopes": ["nope"]}, "scopes"),
        ({"url": "https://93.184.216.34/", "scopes": ["*"], "extra": 1}, "extra"),
    ],
)
def test_bad_input_is_a_problem_naming_its_field(
    client: TestClient, body: dict[str, object], field: str
) -> None:
    r = client.post("/v1/webhooks", json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["field"].split(".")[0].split("[")[0] == field


def test_a_public_literal_is_accepted_and_its_secret_shown_once(client: TestClient) -> None:
    created = client.post(
        "/v1/webhooks", json={"url": "https://93.184.216.34/hook", "scopes": ["team:ops"]}
    )
    assert created.status_code == 201, created.text
    hook = created.json()
    assert hook["secret"].startswith("whsec_") and hook["status"] == "active"
    shown = client.get(f"/v1/webhooks/{hook['id']}").json()
    listed = client.get("/v1/webhooks").json()["webhooks"]
    assert "secret" not in shown and all("secret" not in h for h in listed)
    assert hook["secret"] not in client.get("/v1/webhooks").text
    assert client.get("/v1/webhooks/not-an-id").status_code in (404, 422)
    assert client.delete(f"/v1/webhooks/{hook['id']}").status_code == 204
    assert client.delete(f"/v1/webhooks/{hook['id']}").status_code == 404


def test_the_operations_are_named_and_tagged(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    named = {
        (path, method): op["operationId"]
        for path, ops in spec["paths"].items()
        if path.startswith("/v1/webhooks")
        for method, op in ops.items()
        if op.get("tags") == ["webhooks"]
    }
    assert named == {
        ("/v1/webhooks", "post"): "createWebhook",
        ("/v1/webhooks", "get"): "listWebhooks",
        ("/v1/webhooks/{webhook_id}", "get"): "getWebhook",
        ("/v1/webhooks/{webhook_id}", "delete"): "deleteWebhook",
        ("/v1/webhooks/{webhook_id}:resume", "post"): "resumeWebhook",
    }


def test_no_file_of_the_data_directory_holds_a_webhook_secret(tmp_path: Path) -> None:
    """The secret is shown once and kept sealed at rest under a key derived from the root
    key: a copied ``webhooks.db`` or backup must not be enough to sign forged deliveries."""
    data = tmp_path / "data"
    container = build(Settings(data_dir=data))
    container.start()
    try:
        with TestClient(create_app(container.services)) as http:
            secrets = []
            for n in range(3):
                r = http.post(
                    "/v1/webhooks",
                    json={"url": f"https://93.184.216.34/hook/{n}", "scopes": ["*"]},
                )
                assert r.status_code == 201, r.text
                secrets.append(r.json()["secret"])
            # The dispatcher reads them back in clear to sign (the store opens them).
            assert container.webhooks is not None
            stored = container.webhooks.list_all()
            assert sorted(s.secret for s in stored) == sorted(secrets)
            disk = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
    finally:
        container.close()
    for secret in secrets:
        assert secret.encode() not in disk
        assert secret.removeprefix("whsec_").encode() not in disk
