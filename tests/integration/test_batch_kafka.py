"""``POST /v1/memories:batch`` on a Kafka log (a real broker), which takes a batch's
events in one producer batch: per-item results, versions of one memory in one batch,
positions packed per partition, read-your-writes, and a retry that writes nothing twice.
The views are in-process here; the log is the distributed one."""

from __future__ import annotations

import json
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

BATCH = "/v1/memories:batch?wait=true"


@pytest.fixture
def kafka_client(kafka_bootstrap: str, tmp_path: Path) -> Iterator[tuple[TestClient, Container]]:
    from ai_memory.entrypoints.http.app import create_app

    topic = f"aimem.batch.{uuid.uuid4().hex[:10]}"
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


def memory(memory_id: str, scope: str, content: str, **kw: Any) -> dict[str, Any]:
    return {
        "id": memory_id,
        "type": "fact",
        "content": content,
        "scope": scope,
        "source_agent": "fleet",
        **kw,
    }


def test_a_batch_over_scopes_lands_on_kafka_item_by_item(
    kafka_client: tuple[TestClient, Container],
) -> None:
    client, _ = kafka_client
    scopes = [f"team:k{i}" for i in range(6)]  # keyed by tenant/scope: several partitions
    items: list[Any] = [memory(f"m{i}", s, f"Fact {i} of {s}.") for i, s in enumerate(scopes)]
    items += [
        memory("m0", scopes[0], "Fact 0, second version."),
        memory("bad", "Not A Scope", "Refused."),
        memory("m1", scopes[2], "Moved?"),  # refused: another scope
    ]
    r = client.post(BATCH, json={"items": items})
    assert r.status_code == 200, r.text
    out = r.json()
    results = out["results"]
    assert [x["status"] for x in results] == [201] * 6 + [200, 422, 409]
    assert results[6]["version"] == 2 and results[6]["position"] != results[0]["position"]
    # The log positions behind the tokens: versions of one memory stay in order on its
    # partition.
    container = kafka_client[1]
    logged = [container.services.positions.taken("default", x.get("position", 0)) for x in results]
    assert partition_of(logged[6]) == partition_of(logged[0])
    assert logged[6] > logged[0]
    assert len({partition_of(p) for p in logged[:6]}) > 1
    assert (out["written"], out["unchanged"], out["rejected"]) == (7, 0, 2)
    # wait=true: every item is readable at once.
    assert client.get("/v1/memories/m0").json()["content"] == "Fact 0, second version."
    for i in range(1, 6):
        assert client.get(f"/v1/memories/m{i}").json()["version"] == 1
    assert client.get("/v1/memories/m1").json()["scope"] == scopes[1]

    # The same batch of each memory's newest content again: nothing is produced twice.
    newest = [memory("m0", scopes[0], "Fact 0, second version."), *items[1:6]]
    again = client.post(BATCH, json={"items": newest}).json()
    assert (again["written"], again["unchanged"]) == (0, 6), again
    assert [x["version"] for x in again["results"]] == [2, 1, 1, 1, 1, 1]


def test_an_import_with_wait_is_readable_on_every_partition_it_touched(
    kafka_client: tuple[TestClient, Container],
) -> None:
    """``wait=true`` waits for each partition's newest position, not for the highest
    position (which says nothing about the other partitions)."""
    client, _ = kafka_client
    lines = [
        json.dumps({"kind": "record", "record": memory(f"i{n}", f"team:i{n % 12}", f"Fact {n}.")})
        for n in range(240)
    ]
    r = client.post(
        "/v1/import?wait=true",
        content="\n".join(lines) + "\n",
        headers={"content-type": "application/x-ndjson"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["written"] == 240
    for n in range(240):
        got = client.get(f"/v1/memories/i{n}")
        assert got.status_code == 200, (n, got.text)
