"""``GET /v1/changes`` on a Kafka log (a real broker): the feed is read from the log's
partitions by key — the cursor carries one position per partition — so a scope-limited
key pages through its scopes' changes once each, in order per memory, another tenant's
never; a long-poll wakes on an append."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.core.positions import partition_of
from ai_memory.settings import Settings
from tests.contract.test_kafka_event_log import delete_topics
from tests.integration.test_api_keys_http import auth, key, memory
from tests.integration.test_changes_http import everything, feed


@pytest.fixture
def kafka_app(kafka_bootstrap: str, tmp_path: Path) -> Iterator[tuple[TestClient, Container]]:
    from ai_memory.entrypoints.http.app import create_app

    topic = f"aimem.changes.{uuid.uuid4().hex[:10]}"
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
    assert r.status_code in (200, 201), r.text
    position: int = r.json()["position"]
    return position


def test_the_feed_pages_over_partitions_by_scope(kafka_app: tuple[TestClient, Container]) -> None:
    client, container = kafka_app
    admin = key(container, "acme", "admin")
    limited = key(container, "acme", "reader", "team:k0,team:k1,team:k2")
    other = key(container, "globex", "writer")
    tokens = [put(client, admin, f"a{i}", f"team:k{i}") for i in range(6)]
    positions = [container.services.positions.taken("acme", t) for t in tokens]  # the log's
    for i in range(6):
        put(client, other, f"g{i}", f"team:k{i}")
    assert len({partition_of(p) for p in positions}) > 1
    update = {**memory("team:k1"), "content": "changed"}
    assert client.put("/v1/memories/a1?wait=true", json=update, headers=auth(admin)).is_success
    assert client.delete("/v1/memories/a2?wait=true", headers=auth(admin)).status_code == 200

    entries = everything(client, limited, limit=2)
    seen = [(e["kind"], e["id"], e["version"]) for e in entries]
    assert sorted(seen) == sorted(
        [
            ("written", "a0", 1),
            ("written", "a1", 1),
            ("written", "a2", 1),
            ("written", "a1", 2),
            ("forgotten", "a2", 1),
        ]
    )
    for memory_id in ("a1", "a2"):  # one memory's changes keep their order
        mine = [(e["kind"], e["version"]) for e in entries if e["id"] == memory_id]
        assert mine == sorted(mine, key=lambda kv: (kv[0] == "forgotten", kv[1]))
    assert len({e["cursor"] for e in entries}) == len(entries)
    assert {e["id"] for e in everything(client, admin)} == {f"a{i}" for i in range(6)}

    # A long-poll from "now" wakes on an append to any partition.
    *_, start = feed(client, limited, since="now")
    late = threading.Timer(0.3, lambda: put(client, admin, "late", "team:k2"))
    late.start()
    began = time.monotonic()
    *news, _ = feed(client, limited, since=start["next"], timeout=15)
    woke_after = time.monotonic() - began
    late.join(60)  # its PUT waits for the projection: let it finish before the client closes
    assert [e["id"] for e in news] == ["late"] and woke_after < 10
