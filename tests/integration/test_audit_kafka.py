"""``GET /v1/audit`` on a Kafka log (a real broker): a tenant's events are spread over
partitions, and the cursor carries one position per partition, so paging through the
trail sees each of the tenant's events once and no other tenant's."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.core.positions import partition_of
from ai_memory.settings import Settings
from tests.contract.test_kafka_event_log import delete_topics
from tests.integration.test_api_keys_http import auth, key, memory
from tests.integration.test_audit_http import every_entry, key_id, trail


@pytest.fixture
def kafka_app(kafka_bootstrap: str, tmp_path: Path) -> Iterator[tuple[TestClient, Container]]:
    from ai_memory.entrypoints.http.app import create_app

    topic = f"aimem.audit.{uuid.uuid4().hex[:10]}"
    settings = Settings(
        data_dir=tmp_path / "data",
        event_log_url=f"kafka://{kafka_bootstrap}/{topic}?partitions=3&replication_factor=1",
        record_store_url="memory://",
        index_url="memory://",
    )
    container = build(settings)
    container.start()
    try:
        with TestClient(create_app(container.services)) as client:
            yield client, container
    finally:
        container.close()
        delete_topics(kafka_bootstrap, [topic, f"{topic}.dlq", f"{topic}.heads"])


def put(client: TestClient, token: str, memory_id: str, scope: str) -> int:
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=memory(scope), headers=auth(token))
    assert r.status_code == 201, r.text
    position: int = r.json()["position"]
    return position


def test_the_trail_pages_over_partitions_for_one_tenant(
    kafka_app: tuple[TestClient, Container],
) -> None:
    client, container = kafka_app
    admin, writer = key(container, "acme", "admin"), key(container, "acme", "writer")
    other = key(container, "globex", "writer")
    written: dict[int, tuple[str, str]] = {}
    for i in range(6):  # keyed by tenant/scope: several partitions
        written[put(client, writer if i % 2 else admin, f"a{i}", f"team:k{i}")] = (
            key_id(writer if i % 2 else admin),
            f"a{i}",
        )
        put(client, other, f"g{i}", f"team:k{i}")
    # What acme is shown are its tokens; the log positions behind them, for partitions.
    logged = {t: container.services.positions.taken("acme", t) for t in written}
    assert len({partition_of(p) for p in logged.values()}) > 1

    entries = every_entry(client, admin, limit=2)
    seen: dict[int, Any] = {e["position"]: (e["actor"], e["memory_ids"][0]) for e in entries}
    assert len(entries) == len(seen) == 6  # each once
    assert seen == written
    for partition in {partition_of(p) for p in logged.values()}:  # log order per partition
        mine = [logged[e["position"]] for e in entries]
        mine = [p for p in mine if partition_of(p) == partition]
        assert mine == sorted(mine)

    operator = key(container, "*", "operator")  # an operator of every tenant names one
    theirs = every_entry(client, operator, tenant="globex")
    assert sorted(e["memory_ids"][0] for e in theirs) == [f"g{i}" for i in range(6)]
    last = trail(client, admin, limit=1000)
    put(client, writer, "late", "team:k0")
    news = trail(client, admin, since=last["next"])["entries"]
    assert [e["memory_ids"] for e in news] == [["late"]]
