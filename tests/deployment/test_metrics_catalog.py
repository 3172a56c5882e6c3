"""What the gateway and the projector workers expose is exactly the metric catalog, so
the alert rules and dashboards checked against the catalog hold for the running code."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from ai_memory.bootstrap import build
from ai_memory.metrics_catalog import CATALOG, Metric, Process
from ai_memory.settings import Settings

# prometheus_client reports a counter family without its ``_total`` suffix
_TYPES = {"counter": "counter", "gauge": "gauge", "histogram": "histogram"}


def catalog_of(process: Process) -> dict[str, Metric]:
    return {m.name: m for m in CATALOG if process in m.exposed_by}


def _created_of(name: str, want: dict[str, Metric]) -> bool:
    """The text format shows a counter's or histogram's ``_created`` as its own gauge."""
    return name.endswith("_created") and name.removesuffix("_created") in want


def check_exposition(text: str, process: Process) -> None:
    want = catalog_of(process)
    families = {
        f.name: f
        for f in text_string_to_metric_families(text)
        if f.name.startswith("aimem_") and not _created_of(f.name, want)
    }
    assert set(families) == set(want), f"{process}: exposed ≠ catalog"
    for name, family in families.items():
        metric = want[name]
        assert family.type == _TYPES[metric.kind], name
        assert family.documentation == metric.help, name
        for sample in family.samples:
            assert set(sample.labels) - {"le"} <= set(metric.labels), (name, sample.labels)


def test_the_gateway_exposes_the_catalog(tmp_path: Path) -> None:
    from ai_memory.entrypoints.http.app import create_app

    memory = "memory://"
    settings = Settings(
        data_dir=tmp_path, event_log_url=memory, record_store_url=memory, index_url=memory
    )
    container = build(settings)
    container.start()
    try:
        with TestClient(create_app(container.services)) as client:
            assert client.get("/healthz").status_code == 200
            # A stored memory, so the per-tenant gauges have samples whose labels count.
            body = {"type": "fact", "content": "x", "scope": "user:a", "source_agent": "a"}
            assert client.put("/v1/memories/m1?wait=true", json=body).status_code == 201
            text = client.get("/metrics").text
            assert 'aimem_tenant_memories{tenant="default"} 1.0' in text
    finally:
        container.close()
    check_exposition(text, "gateway")


def test_the_projector_workers_expose_the_catalog() -> None:
    from ai_memory.adapters.memory import MemoryDeadLetters, MemoryRecordStore
    from ai_memory.projector.sinks import RecordsSink
    from ai_memory.projector.worker import ProjectorWorker, WorkerMetrics
    from ai_memory.serialization import AvroEventSerializer

    metrics = WorkerMetrics()
    worker = ProjectorWorker(
        RecordsSink(MemoryRecordStore()), AvroEventSerializer(), MemoryDeadLetters(), metrics
    )
    try:
        metrics.position.labels("records", "0").set(3)
        metrics.dead_lettered.labels("records", "projection:internal_error").inc()
        check_exposition(generate_latest(metrics.registry).decode(), "worker")
    finally:
        worker.close()
