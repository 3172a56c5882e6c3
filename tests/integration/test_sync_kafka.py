"""Replication between an instance on a real Kafka log (3 partitions) and an embedded
one: the Kafka instance's feed is read from its log partitions by key, and two-way passes
bring writes, updates and forgets across until both hold the same memories."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ai_memory.bootstrap import Container, build
from ai_memory.core.convergence import SYNC_META_KEY
from ai_memory.sdk import GoneError, MemoryIn
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.sdk.replication import Replicator
from ai_memory.settings import Settings
from tests.contract.test_kafka_event_log import delete_topics

SCOPES = ("team:k0", "team:k1", "team:k2")


@pytest.fixture
def pair(kafka_bootstrap: str, tmp_path: Path) -> Iterator[tuple[Container, Container]]:
    topic = f"aimem.sync.{uuid.uuid4().hex[:10]}"
    on_kafka = build(
        Settings(
            data_dir=tmp_path / "kafka",
            event_log_url=f"kafka://{kafka_bootstrap}/{topic}?partitions=3&replication_factor=1",
            record_store_url="memory://",
            index_url="memory://",
        )
    )
    embedded = build(Settings(data_dir=tmp_path / "embedded"))
    for c in (on_kafka, embedded):
        c.start()
    try:
        yield on_kafka, embedded
    finally:
        for c in (on_kafka, embedded):
            c.close()
        delete_topics(kafka_bootstrap, [topic, f"{topic}.dlq", f"{topic}.heads"])


def put(client: InProcessClient, memory_id: str, scope: str, content: str) -> None:
    record = MemoryIn(content=content, type="fact", scope=scope, source_agent="k")
    client.upsert(memory_id, record, wait=True)


def replicated(client: InProcessClient, scope: str) -> tuple[dict[str, Any], set[str]]:
    records, tombstones = {}, set()
    for line in map(json.loads, client.export_lines(scope)):
        if line["kind"] == "record":
            meta = {k: v for k, v in line["record"]["meta"].items() if k != SYNC_META_KEY}
            records[line["record"]["id"]] = ({**line["record"], "meta": meta}, line["state"])
        elif line["kind"] == "tombstone":
            tombstones.add(line["id"])
    return records, tombstones


def test_two_way_sync_with_a_kafka_instance(pair: tuple[Container, Container]) -> None:
    k, e = (InProcessClient(c, tenant="acme") for c in pair)
    for i, scope in enumerate(SCOPES):  # over the Kafka log's partitions
        put(k, f"k{i}", scope, f"fact {i} from kafka")
        put(e, f"e{i}", scope, f"fact {i} from embedded")
    put(k, "both", SCOPES[0], "an older version")
    put(e, "both", SCOPES[0], "the newer version")
    k.delete("k1", wait=True)
    cursors: dict[str, str | None] = {}
    for scope in SCOPES:
        for name, source, target in (("k", k, e), ("e", e, k)):
            replicator = Replicator(source, target, scope, source_name=name, target_name="x")
            cursors[name + scope] = replicator.run(cursors.get(name + scope)).cursor
    for scope in SCOPES:
        assert replicated(k, scope) == replicated(e, scope)
    assert e.get("k0").content == "fact 0 from kafka"
    assert k.get("e2").content == "fact 2 from embedded"
    assert k.get("both").content == "the newer version"
    with pytest.raises(GoneError):
        e.get("k1")
    # A resumed pass from the saved cursor reads only what came after it (the winner
    # written back to the Kafka instance) and writes nothing; the next one reads nothing.
    replicator = Replicator(k, e, SCOPES[0], source_name="k", target_name="e")
    again = replicator.run(cursors["k" + SCOPES[0]])
    assert (again.entries, again.to_target, again.to_source) == (1, 0, 0)
    assert replicator.run(again.cursor).entries == 0
