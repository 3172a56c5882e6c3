"""The plaintext hunt on a Kafka log (a real broker), encryption on: the broker's segment
files of the log topic, its head changelog and its dead-letter topic never hold a byte of
a canary, before or after a forget, while reads and searches work. The views are
in-process; the vault is ``vault.db`` beside them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.service.notes import note_id
from ai_memory.settings import Settings
from tests.contract.test_kafka_event_log import delete_topics
from tests.integration.hunt_support import KAFKA_DATA, canary, files_holding, memory, put


@pytest.fixture
def kafka_hunt(kafka_bootstrap: str, tmp_path: Path) -> Iterator[tuple[TestClient, Container, str]]:
    if not (KAFKA_DATA / "data").is_dir():
        pytest.skip(f"the broker's data directory is not at {KAFKA_DATA} (started elsewhere)")
    topic = f"aimem.hunt.{uuid.uuid4().hex[:10]}"
    settings = Settings(
        data_dir=tmp_path / "data",
        event_log_url=f"kafka://{kafka_bootstrap}/{topic}?partitions=2&replication_factor=1",
        encryption="on",
    )
    container = build(settings)
    container.start()
    try:
        with TestClient(create_app(container.services)) as client:
            yield client, container, topic
    finally:
        container.close()
        delete_topics(kafka_bootstrap, [topic, f"{topic}.dlq", f"{topic}.heads"])


def test_the_broker_never_holds_a_canary(kafka_hunt: tuple[TestClient, Container, str]) -> None:
    client, c, topic = kafka_hunt
    canaries = {f"m{i}": (canary(), canary().lower(), canary()) for i in range(4)}
    for memory_id, (content, tag, note) in canaries.items():
        put(client, memory_id, memory(f"Bob said {content}.", tag, note))
    put(client, "m0", memory(f"Bob changed his mind: {canaries['m0'][0]}!", "t", "n"))
    needles = [x for v in canaries.values() for x in v]
    for memory_id, (content, _, _) in canaries.items():
        assert content in client.get(f"/v1/memories/{memory_id}").json()["content"]
    hits = client.post(
        "/v1/memories/search", json={"query": canaries["m2"][0], "mode": "keyword"}
    ).json()["results"]
    assert hits and hits[0]["record"]["id"] == "m2"

    segments = f"{topic}*/*"
    # The scan reads the topic's segments: the clear fields (the scope) are there.
    assert files_holding(KAFKA_DATA / "data", ["user:alice"], f"{topic}-*/*.log")
    assert files_holding(KAFKA_DATA / "data", needles, segments) == {}

    assert client.delete("/v1/memories/m1?wait=true").status_code == 200
    c.service.wait_for(c.log.last_position())
    assert client.get("/v1/memories/m1").status_code == 410
    assert files_holding(KAFKA_DATA / "data", needles, segments) == {}
    assert files_holding(c.settings.data_dir, list(canaries["m1"])) == {}
    assert canaries["m3"][0] in client.get("/v1/memories/m3").json()["content"]


def test_the_broker_never_holds_a_session_id_or_a_note_topic(
    kafka_hunt: tuple[TestClient, Container, str],
) -> None:
    """A turn's session id is sealed with its text, a note's topic is its sealed tags and
    a keyed id: no segment of the log topic (nor its head changelog or dead letters)
    holds either, nor the plain hash of the topic, while they live, and after both are
    forgotten neither do they nor the data directory; with no compaction, what was
    appended is still all there, so a clear field would be found."""
    client, c, topic = kafka_hunt
    session, note_topic = canary(), canary().lower()
    note = {"agent": "scribe", "topic": [note_topic], "note": "Carol likes tea."}
    r = client.put("/v1/notes", json=note)
    assert r.status_code in (200, 201), r.text
    needles = [session, note_topic, note_id("scribe", (note_topic,))]
    turn = {
        "scope": "user:alice",
        "source_agent": "planner",
        "session_id": session,
        "text": f"I live in Canary{uuid.uuid4().hex}.",
    }
    r = client.post("/v1/interactions?wait=true", json=turn)
    assert r.status_code == 201, r.text
    interaction_id = r.json()["interaction_id"]
    segments = f"{topic}*/*"
    assert files_holding(KAFKA_DATA / "data", [interaction_id], f"{topic}-*/*.log")
    assert files_holding(KAFKA_DATA / "data", needles, segments) == {}

    r = client.put("/v1/notes", json={**note, "note": "off"})
    assert r.status_code == 200 and r.json()["status"] == "deleted", r.text
    gone = client.delete(f"/v1/interactions/{interaction_id}?wait=true")
    assert gone.status_code == 200, gone.text
    c.service.wait_for(c.log.last_position())
    assert files_holding(KAFKA_DATA / "data", needles, segments) == {}
    assert files_holding(c.settings.data_dir, needles) == {}
