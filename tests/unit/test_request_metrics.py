"""Request metrics: one count per method, matched route and status; latency to the status
line; nothing for a request that fails before answering."""

from __future__ import annotations

import pytest
from fastapi import FastAPI, HTTPException
from fastapi.responses import StreamingResponse
from fastapi.testclient import TestClient
from prometheus_client import CollectorRegistry

from ai_memory import metrics_catalog as mc
from ai_memory.entrypoints.http.metrics import RequestMetrics


@pytest.fixture
def observed() -> tuple[TestClient, CollectorRegistry]:
    registry = CollectorRegistry()
    app = FastAPI()
    app.add_middleware(
        RequestMetrics,
        requests=mc.counter(mc.HTTP_REQUESTS, registry),
        latency=mc.histogram(mc.HTTP_REQUEST_SECONDS, registry),
    )

    @app.get("/items/{item}")
    def item(item: str) -> dict[str, str]:
        if item == "missing":
            raise HTTPException(404, "no such item")
        return {"item": item}

    @app.get("/stream")
    def stream() -> StreamingResponse:
        return StreamingResponse(iter([b"a\n", b"b\n"]), media_type="text/plain")

    @app.get("/broken")
    def broken() -> None:
        raise RuntimeError("boom")

    return TestClient(app, raise_server_exceptions=False), registry


def _count(registry: CollectorRegistry, method: str, route: str, status: str) -> float:
    labels = {"method": method, "route": route, "status": status}
    return registry.get_sample_value(f"{mc.HTTP_REQUESTS.name}_total", labels) or 0.0


def _observations(registry: CollectorRegistry, method: str, route: str) -> float:
    labels = {"method": method, "route": route}
    return registry.get_sample_value(f"{mc.HTTP_REQUEST_SECONDS.name}_count", labels) or 0.0


def test_counts_by_route_template_and_status(
    observed: tuple[TestClient, CollectorRegistry],
) -> None:
    client, registry = observed
    assert client.get("/items/a").status_code == 200
    assert client.get("/items/b").status_code == 200
    assert client.get("/items/missing").status_code == 404
    assert client.get("/stream").text == "a\nb\n"
    assert _count(registry, "GET", "/items/{item}", "200") == 2
    assert _count(registry, "GET", "/items/{item}", "404") == 1
    assert _count(registry, "GET", "/stream", "200") == 1
    assert _observations(registry, "GET", "/items/{item}") == 3


def test_an_unmatched_path_is_one_label(observed: tuple[TestClient, CollectorRegistry]) -> None:
    client, registry = observed
    assert client.get("/nowhere/1").status_code == 404
    assert client.get("/nowhere/2").status_code == 404
    assert _count(registry, "GET", "unmatched", "404") == 2


def test_a_failure_before_answering_records_nothing(
    observed: tuple[TestClient, CollectorRegistry],
) -> None:
    client, registry = observed
    assert client.get("/broken").status_code == 500  # answered by the server's last resort
    assert _observations(registry, "GET", "/broken") == 0
