"""Agent notes over HTTP: save, replace, off, limits, ranking, read counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from ai_memory.entrypoints.http.app import create_app
from ai_memory.projector.tailer import rebuild_all
from tests.factories import FixedClock

PROBLEM = "application/problem+json"


def put(client: TestClient, topic: Any, note: str, agent: str = "scout", **kw: Any) -> Any:
    return client.put("/v1/notes", json={"agent": agent, "topic": topic, "note": note, **kw})


def save(client: TestClient, topic: Any, note: str, agent: str = "scout") -> dict[str, Any]:
    r = put(client, topic, note, agent)
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def recall(client: TestClient, topic: str | None = None, agent: str = "scout") -> dict[str, Any]:
    params = {"agent": agent} | ({"topic": topic} if topic is not None else {})
    r = client.get("/v1/notes", params=params)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def counts(body: dict[str, Any]) -> dict[str, int]:
    return {",".join(t["topic"]): t["read_count"] for t in body["your_topics"]}


def test_a_note_is_a_memory_of_the_agent(client: TestClient) -> None:
    r = put(client, "Neo, jobs", "neo asked about X; I owe a plain answer")
    assert r.status_code == 201
    body = r.json()
    assert body["status"] == "created" and body["topic"] == ["neo", "jobs"]
    assert body["notes_used"] == 1 and body["quota"] == 50
    memory = client.get(f"/v1/memories/{body['id']}").json()
    assert memory["scope"] == "agent:scout" and memory["source_agent"] == "scout"
    assert memory["tags"] == ["neo", "jobs"] and memory["meta"] == {"kind": "note"}
    assert memory["type"] == "fact" and memory["content"].startswith("neo asked")


def test_same_topic_replaces_the_note(client: TestClient) -> None:
    first = save(client, "neo, jobs", "v1")
    again = save(client, "JOBS neo", "v1")
    assert again["status"] == "unchanged" and again["id"] == first["id"]
    replaced = save(client, ["jobs", "neo"], "v2")
    assert replaced["status"] == "replaced" and replaced["id"] == first["id"]
    assert replaced["version"] == 2 and replaced["notes_used"] == 1
    page = recall(client, "neo")
    assert [n["note"] for n in page["topic_notes"]] == ["v2"]
    assert len(page["your_topics"]) == 1
    # Another agent's identical topic is a different note.
    assert save(client, "neo, jobs", "mine", agent="other")["id"] != first["id"]
    assert [n["note"] for n in recall(client, "neo", agent="other")["topic_notes"]] == ["mine"]


def test_off_forgets_the_note_and_the_topic_can_be_saved_again(client: TestClient) -> None:
    first = save(client, "neo", "remember neo")
    off = save(client, "neo", "off")
    assert off["status"] == "deleted" and off["id"] == first["id"] and off["notes_used"] == 0
    assert recall(client, "neo")["topic_notes"] == [] and recall(client)["your_topics"] == []
    gone = client.get(f"/v1/memories/{first['id']}")
    assert gone.status_code == 410 and gone.json()["code"] == "memory_forgotten"
    assert save(client, "neo", "OFF")["status"] == "already_off"
    back = save(client, "neo", "neo is back")
    assert back["status"] == "created" and back["id"] == first["id"] + "-2"
    assert [n["note"] for n in recall(client, "neo")["topic_notes"]] == ["neo is back"]
    missing = put(client, "never", "off")
    assert missing.status_code == 404 and missing.headers["content-type"] == PROBLEM
    assert missing.json()["code"] == "note_not_found"


def test_quota_refuses_the_51st_note_and_changes_nothing(
    client: TestClient, container: Container
) -> None:
    for i in range(50):
        save(client, f"t{i}", f"note {i}")
    before = (container.log.last_position(), recall(client)["your_topics"])
    r = put(client, "one-too-many", "x")
    assert r.status_code == 409 and r.headers["content-type"] == PROBLEM
    assert r.json()["code"] == "note_quota_exceeded" and "50" in r.json()["detail"]
    assert (container.log.last_position(), recall(client)["your_topics"]) == before
    # Replacing an existing topic is still allowed at the quota; so is another agent.
    assert save(client, "t7", "new text")["status"] == "replaced"
    assert save(client, "t0", "x", agent="other")["status"] == "created"
    save(client, "t1", "off")
    assert save(client, "one-too-many", "x")["notes_used"] == 50


def test_quota_is_configurable(tmp_path: Path) -> None:
    from ai_memory.bootstrap import build
    from ai_memory.settings import Settings

    configured = build(Settings(data_dir=tmp_path / "quota", note_quota=2))
    configured.start()
    try:
        with TestClient(create_app(configured.services)) as c:
            save(c, "a", "1")
            save(c, "b", "2")
            r = put(c, "c", "3")
            assert r.status_code == 409 and r.json()["code"] == "note_quota_exceeded"
    finally:
        configured.close()


@pytest.mark.parametrize(
    ("topic", "note", "field", "code"),
    [
        ("a b c d e f", "x", "topic", "topic_too_many_tags"),
        ("", "x", "topic", "invalid_input"),
        ("t" * 65, "x", "topic", "topic_tag_invalid"),
        ("ok", "字" * 501, "note", "note_too_long"),
        ("ok", "  ", "note", "invalid_input"),
    ],
)
def test_limits_are_clear_4xx_naming_the_field(
    client: TestClient, topic: str, note: str, field: str, code: str
) -> None:
    r = put(client, topic, note)
    assert r.status_code == 422 and r.headers["content-type"] == PROBLEM
    assert (r.json()["field"], r.json()["code"]) == (field, code)
    assert not recall(client)["your_topics"]


def test_five_tags_and_500_characters_are_accepted(client: TestClient) -> None:
    assert save(client, "a b c d e", "字" * 500)["topic"] == ["a", "b", "c", "d", "e"]
    bad_agent = put(client, "a", "x", agent="two words")
    assert bad_agent.status_code == 422 and bad_agent.json()["field"] == "agent"
    unknown = client.put("/v1/notes", json={"agent": "a", "topic": "a", "note": "x", "k": 1})
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_field"


def test_ranking_tiers_with_why(client: TestClient, clock: FixedClock) -> None:
    save(client, "people", "ask Neo about the job")
    clock.advance(1)
    save(client, "neo4j, graphs", "tag contains the word")
    save(client, "neo", "exact tag")
    save(client, "ops", "unrelated")
    page = recall(client, "neo")
    got = [(n["note"], n["why"]["tier"], n["why"]["match"]) for n in page["topic_notes"]]
    assert got == [
        ("exact tag", 1, "exact_tag"),
        ("tag contains the word", 2, "contains"),  # same reads: the newer first
        ("ask Neo about the job", 2, "contains"),
    ]
    whys = {n["note"]: n["why"] for n in page["topic_notes"]}
    assert whys["tag contains the word"]["tags"] == ["neo4j"]
    assert not whys["tag contains the word"]["in_body"]
    assert whys["ask Neo about the job"]["in_body"] and whys["ask Neo about the job"]["tags"] == []
    assert whys["exact tag"]["summary"] == "tier 1: exact tag match on 'neo'; read 0 time(s) before"
    assert page["topic"] == ["neo"] and len(page["your_topics"]) == 4
    # Reads rank inside a tier: once the body match has been read more, it comes first.
    recall(client, "job")
    again = recall(client, "neo")["topic_notes"]
    assert [(n["note"], n["why"]["read_count"]) for n in again[1:]] == [
        ("ask Neo about the job", 2),
        ("tag contains the word", 1),
    ]
    assert "read 2 time(s) before" in again[1]["why"]["summary"]


def test_recall_edge_cases(client: TestClient) -> None:
    assert recall(client, "anything", agent="nobody") == {
        "agent": "nobody",
        "topic": ["anything"],
        "topic_notes": [],
        "your_topics": [],
        "notes_used": 0,
        "quota": 50,
        "recall_position": None,
    }
    bad = client.get("/v1/notes", params={"agent": "a", "topic": "1 2 3 4 5 6"})
    assert bad.status_code == 422 and bad.json()["field"] == "topic"
    assert client.get("/v1/notes").json()["field"] == "agent"


def test_chinese_topics(client: TestClient) -> None:
    save(client, "记忆，数据库", "标签加读取计数，Agent能推理")
    save(client, "笔记", "Agent要的是一个笔记本，不是向量数据库")
    page = recall(client, "数据库")
    assert [n["why"]["tier"] for n in page["topic_notes"]] == [1, 2]
    assert page["topic_notes"][0]["topic"] == ["记忆", "数据库"]


def test_reads_increase_counts_and_survive_a_replay(
    client: TestClient, container: Container
) -> None:
    save(client, "neo, jobs", "a")
    save(client, "neo", "b")
    save(client, "ops", "c")
    assert counts(recall(client)) == {"neo,jobs": 0, "neo": 0, "ops": 0}  # listing ≠ read
    first = recall(client, "neo")
    assert first["recall_position"] > 0
    assert [n["read_count"] for n in first["topic_notes"]] == [0, 0]  # before this read
    recall(client, "jobs")
    after = recall(client)
    assert counts(after) == {"neo,jobs": 2, "neo": 1, "ops": 0}
    assert after["your_topics"][0]["topic"] == ["neo", "jobs"]  # most read first
    assert client.get(f"/v1/memories/{first['topic_notes'][0]['id']}").json()["read_count"] >= 1

    container.projections.stop()
    rebuild_all(container.projections.by_sink()["records"])
    container.projections.start()
    assert recall(client) == after
