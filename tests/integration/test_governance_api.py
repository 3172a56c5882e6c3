"""Governed memory over HTTP: interactions → extracted memories → conflicts resolved by the
θ rule → persona shows only the current state, history stays searchable, and a replay of
the log reproduces every state exactly."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from tests.factories import FixedClock

DAY = 86_400


def say(client: TestClient, clock: FixedClock, text: str, *, days: float = 0) -> dict[str, Any]:
    clock.advance(days * DAY)
    r = client.post(
        "/v1/interactions?wait=true",
        json={"scope": "user:alice", "source_agent": "chat", "session_id": "s1", "text": text},
    )
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def states(client: TestClient) -> dict[str, str]:
    r = client.post(
        "/v1/memories/search",
        json={
            "query": "where does alice live",
            "scope": "user:alice",
            "top_k": 20,
            "states": ["active", "historical", "archived", "forgotten"],
        },
    )
    return {h["record"]["content"]: h["record"]["state"] for h in r.json()["results"]}


def test_moving_city_keeps_one_current_residence_and_the_history(
    client: TestClient, clock: FixedClock
) -> None:
    from ai_memory.core.timeparse import format_timestamp

    first = say(client, clock, "I live in Auckland.")
    auckland_time = format_timestamp(clock.now())
    assert [m["slot"] for m in first["memories"]] == ["fact/residence"]
    assert states(client) == {"I live in Auckland.": "active"}

    say(client, clock, "I moved to Sydney.", days=30)
    after_sydney = states(client)
    assert after_sydney["I moved to Sydney."] == "active"
    assert after_sydney["I live in Auckland."] in ("archived", "historical")

    third = say(client, clock, "Now I live in Tokyo.", days=60)
    final = states(client)
    assert final["Now I live in Tokyo."] == "active"
    assert [c for c, s in final.items() if s == "active"] == ["Now I live in Tokyo."]
    assert {final["I live in Auckland."], final["I moved to Sydney."]} <= {"archived", "historical"}
    assert any(t["cause"].startswith("conflict.theta") for t in third["transitions"])

    persona = client.get("/v1/persona", params={"scope": "user:alice"}).json()
    assert [f["content"] for f in persona["facts"]] == ["Now I live in Tokyo."]
    # Search defaults to active memories; history questions ask for other states.
    default = client.post(
        "/v1/memories/search", json={"query": "Auckland", "scope": "user:alice"}
    ).json()
    assert all(h["record"]["state"] == "active" for h in default["results"])
    history = client.post(
        "/v1/memories/search",
        json={"query": "Auckland", "scope": "user:alice", "states": ["historical", "archived"]},
    ).json()
    assert "I live in Auckland." in [h["record"]["content"] for h in history["results"]]
    believed_then = client.post(
        "/v1/memories/search",
        json={"query": "where does alice live", "scope": "user:alice", "as_of": auckland_time},
    ).json()
    assert [h["record"]["content"] for h in believed_then["results"]] == ["I live in Auckland."]
    assert believed_then["results"][0]["record"]["state"] == "active"
    ids = {m["content"]: m["id"] for m in third["memories"]}
    tokyo = client.get(f"/v1/memories/{ids['Now I live in Tokyo.']}/lineage").json()
    assert tokyo["state"] == "active" and len(tokyo["supersedes"]) >= 1
    sydney_id = tokyo["supersedes"][-1]
    sydney = client.get(f"/v1/memories/{sydney_id}/lineage").json()
    assert sydney["superseded_by"] == [ids["Now I live in Tokyo."]]
    change = [e for e in sydney["events"] if e["kind"] == "state_changed"][-1]
    assert change["from"] == "active" and change["cause"].startswith("conflict.theta")
    assert "new_score" in change["decision"] and "theta" in change["decision"]
    assert client.get("/v1/memories/nope/lineage").status_code == 404
    episodes = client.get("/v1/episodes", params={"scope": "user:alice"}).json()
    assert len(episodes["episodes"]) == 1 and len(episodes["episodes"][0]["memories"]) == 3


def test_chinese_interactions_and_preference_changes(client: TestClient, clock: FixedClock) -> None:
    say(client, clock, "我更喜欢Java。")
    say(client, clock, "我住在奥克兰。")
    say(client, clock, "我现在更喜欢Rust。", days=60)
    say(client, clock, "我搬到悉尼了。", days=1)
    persona = client.get("/v1/persona", params={"scope": "user:alice"}).json()
    assert [p["content"] for p in persona["preferences"]] == ["我现在更喜欢Rust。"]
    assert [f["content"] for f in persona["facts"]] == ["我搬到悉尼了。"]


def test_replay_reproduces_every_state_and_decision(
    client: TestClient, clock: FixedClock, container: Container
) -> None:
    for text, days in [
        ("I live in Auckland.", 0),
        ("I moved to Sydney.", 30),
        ("I plan to apply for a PhD.", 1),
        ("Now I live in Tokyo.", 60),
        ("Actually, I want to start a startup instead.", 5),
    ]:
        say(client, clock, text, days=days)
    client.post("/v1/governance/run?wait=true")
    before = list(container.store.scan_records("default"))
    for tailer in container.projections.tailers:
        tailer.stop()
    from ai_memory.projector.tailer import rebuild_all

    rebuild_all([t for t in container.projections.tailers if t.sink.name == "records"])
    assert list(container.store.scan_records("default")) == before


def test_interaction_validation(client: TestClient) -> None:
    r = client.post("/v1/interactions", json={"scope": "user:alice", "source_agent": "a"})
    assert r.status_code == 422 and r.json()["field"] == "text"
    r = client.post("/v1/interactions", json={"scope": "Alice", "source_agent": "a", "text": "hi"})
    assert r.status_code == 422 and r.json()["field"] == "scope"


def test_governor_expires_ttl_and_forgets_weak_memories_softly(
    client: TestClient, clock: FixedClock, container: Container
) -> None:
    from ai_memory.service.governor import Governor

    otp_write = client.post(
        "/v1/memories?wait=true",
        json={
            "id": "otp",
            "type": "fact",
            "scope": "user:alice",
            "source_agent": "a",
            "content": "The one-time login code is 4411.",
            "ttl": 60,
        },
    )
    chat_write = client.post(
        "/v1/memories?wait=true",
        json={
            "id": "chat",
            "type": "interaction",
            "scope": "user:alice",
            "source_agent": "a",
            "content": "Alice said good morning.",
            # Low value: S = α·0.1 + β·0.4 + γ·R + δ·F falls below τ_forget as R decays.
            "meta": {"governance": {"importance": 0.1, "confidence": 0.4}},
        },
    )
    assert otp_write.status_code == chat_write.status_code == 201, chat_write.text
    clock.advance(200 * DAY)
    governor = Governor(container.governance, ["default"], interval=0)
    assert governor.run_once() == 2
    container.service.wait_for(container.log.last_position())
    otp = client.get("/v1/memories/otp/lineage").json()
    chat = client.get("/v1/memories/chat/lineage").json()
    assert otp["events"][-1]["cause"] == "ttl.expired"
    assert chat["state"] == "forgotten" and chat["events"][-1]["cause"] == "score.below_forget"
    # Soft: still readable for audit, not found by default search.
    assert client.get("/v1/memories/chat").json()["state"] == "forgotten"
    hits = client.post("/v1/memories/search", json={"query": "good morning"}).json()["results"]
    assert "chat" not in [h["record"]["id"] for h in hits]
    assert governor.run_once() == 0  # nothing left to decide


def test_write_triggers_are_advisory(client: TestClient, container: Container) -> None:
    before = container.log.last_position()
    r = client.post(
        "/v1/write-triggers", json={"text": "From now on, always answer in bullet points."}
    )
    assert r.status_code == 200
    triggers = [s["trigger"] for s in r.json()["suggestions"]]
    assert any("preference" in t for t in triggers)
    nothing = client.post("/v1/write-triggers", json={"text": "What time is it?"}).json()
    assert nothing["suggestions"] == []
    assert container.log.last_position() == before


def test_governance_parameters_are_configurable_and_validated(tmp_path: Any) -> None:
    import pytest

    from ai_memory.bootstrap import governance_params
    from ai_memory.core.errors import InvalidInput
    from ai_memory.settings import Settings

    custom = governance_params(Settings(governance='{"theta": 0.2}'))
    assert custom.theta == 0.2
    with pytest.raises(InvalidInput):
        governance_params(Settings(governance='{"alpha": 0.9}'))  # weights must sum to 1
