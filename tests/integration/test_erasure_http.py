"""Subject erasure end to end, embedded, with encryption on (docs/design/FORGETTING.md).

Canaries go into memories, raw turns (and the memories extracted from them) and notes of
two subjects — a scope and a source agent — and of people who stay. After both erasures
no file of the data directory holds a byte of an erased canary while every other one is
read back; the signed receipts verify offline and fail once changed; a replay from
position 0 and a re-import of an export taken before keep them absent.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ai_memory.bootstrap import Container, build
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.entrypoints.cli.main import app as cli
from ai_memory.entrypoints.http.app import create_app
from ai_memory.sdk.receipts import ReceiptInvalidError, load_public_key, verify_document
from ai_memory.settings import Settings
from tests.integration.test_plaintext_hunt import files_holding


def canary() -> str:
    return f"Canary{uuid.uuid4().hex}"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", encryption="on")


@pytest.fixture
def started(settings: Settings) -> Iterator[tuple[Container, TestClient]]:
    c = build(settings)
    c.start()
    with TestClient(create_app(c.services)) as client:
        yield c, client
    c.close()


def put(client: TestClient, memory_id: str, scope: str, agent: str, content: str) -> None:
    body = {"type": "fact", "content": content, "scope": scope, "source_agent": agent}
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body)
    assert r.status_code in (200, 201), r.text


def say(client: TestClient, scope: str, agent: str, text: str) -> dict[str, Any]:
    turn = {"scope": scope, "source_agent": agent, "text": text}
    r = client.post("/v1/interactions?wait=true", json=turn)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def settle(c: Container) -> None:
    c.service.wait_for(c.log.last_position())
    c.index.flush()


def signed(client: TestClient, erasure_id: str) -> tuple[dict[str, Any], str]:
    r = client.get(f"/v1/erasures/{erasure_id}")
    assert r.status_code == 200, r.text
    key = client.get("/v1/erasures/public-key")
    assert key.status_code == 200, key.text
    return r.json(), key.json()["pem"]


def test_erasing_a_scope_and_a_source_agent(
    started: tuple[Container, TestClient], settings: Settings, tmp_path: Path
) -> None:
    c, client = started
    bob, bob_place, scribe, scribe_note = canary(), canary(), canary(), canary()
    kept, kept_place = canary(), canary()
    put(client, "bob-1", "user:bob", "agent-a", f"Bob's locker code is {bob}.")
    bob_turn = say(client, "user:bob", "planner", f"I live in {bob_place}.")
    put(client, "carol-1", "user:carol", "scribe", f"Carol said {scribe}.")
    note = {"agent": "scribe", "topic": ["carol"], "note": f"Carol likes {scribe_note}."}
    r = client.put("/v1/notes", json=note)
    assert r.status_code in (200, 201), r.text
    put(client, "alice-1", "user:alice", "agent-a", f"Alice said {kept}.")
    alice_turn = say(client, "user:alice", "planner", f"I live in {kept_place}.")
    exported = client.get("/v1/export").text
    assert bob in exported and scribe in exported

    r = client.post(
        "/v1/erasures?wait=true", json={"scope": "user:bob", "reason": "subject request #1"}
    )
    assert r.status_code == 201, r.text
    by_scope = r.json()["erasure_id"]
    asked = {"source_agent": "scribe", "reason": "agent retired", "erasure_id": "era-scribe"}
    r = client.post("/v1/erasures?wait=true", json=asked)
    assert r.status_code == 201, r.text
    assert r.json()["memories"] == 2  # carol-1 and the scribe's note
    again = client.post("/v1/erasures?wait=true", json=asked)
    assert again.status_code == 200 and again.json()["already_done"] is True
    settle(c)

    erased = [bob, bob_place, bob_place.lower(), scribe, scribe_note]
    leftover = files_holding(settings.data_dir, erased)
    assert leftover == {}, leftover
    # The kept ones are in no file in clear either (the records view is sealed at rest:
    # they read back below), while the same scan finds a kept memory's id (clear by design).
    assert files_holding(settings.data_dir, [kept, kept_place]) == {}
    assert files_holding(settings.data_dir, ["alice-1"], "records.db*")
    for memory_id in ("bob-1", "carol-1", bob_turn["memories"][0]["id"]):
        assert client.get(f"/v1/memories/{memory_id}").status_code == 410
    assert client.get("/v1/persona", params={"scope": "user:bob"}).json()["facts"] == []
    assert client.get("/v1/episodes", params={"scope": "user:bob"}).json()["episodes"] == []
    assert client.get("/v1/notes", params={"agent": "scribe"}).json()["notes_used"] == 0
    assert kept in client.get("/v1/memories/alice-1").json()["content"]
    (alice_memory,) = alice_turn["memories"]
    assert kept_place in client.get(f"/v1/memories/{alice_memory['id']}").json()["content"]
    sealer = c.sealer
    assert sealer is not None
    assert sealer.vault.destroyed("default", interaction_key_id(bob_turn["interaction_id"]))
    assert sealer.vault.destroyed("default", memory_key_id("carol-1"))
    assert not sealer.vault.destroyed("default", interaction_key_id(alice_turn["interaction_id"]))

    # The receipts verify offline, and fail once anything in them changed.
    for erasure_id, wanted in ((by_scope, {"bob-1"}), ("era-scribe", {"carol-1"})):
        document, pem = signed(client, erasure_id)
        body = verify_document(document, load_public_key(pem))
        assert wanted <= set(body["erased"]["memory_ids"])
        assert body["verification"]["passed"] is True, body["verification"]
        assert body["verification"]["events_scanned"] >= 1
        assert all(p["applied"] for p in body["projections"]), body["projections"]
        assert body["keys"]["encryption"] == "on" and body["keys"]["destroyed_at"]
        assert set(body["events"]["tombstones"]) == set(body["erased"]["memory_ids"])
        for e in erased:
            assert e not in json.dumps(document)
        tampered = json.loads(json.dumps(document))
        tampered["receipt"]["erased"]["memory_ids"].pop()
        with pytest.raises(ReceiptInvalidError):
            verify_document(tampered, load_public_key(pem))
    document, pem = signed(client, by_scope)
    assert document["receipt"]["erased"]["interaction_ids"] == [bob_turn["interaction_id"]]
    assert document["receipt"]["request"] == {
        "criteria": {"scope": "user:bob"},
        "reason": "subject request #1",
    }

    # ai-memory verify-receipt: 0 for the receipt as served, 1 for one flipped byte.
    receipt_file, key_file = tmp_path / "receipt.json", tmp_path / "key.pem"
    receipt_file.write_text(json.dumps(document), encoding="utf-8")
    key_file.write_text(pem, encoding="ascii")
    args = ["verify-receipt", str(receipt_file), "--public-key", str(key_file)]
    ok = CliRunner().invoke(cli, args)
    assert ok.exit_code == 0, ok.output
    raw = bytearray(receipt_file.read_bytes())
    at = raw.index(b"user:bob") + len("user:")
    raw[at] ^= 0x01  # "user:bob" → "user:cob"
    receipt_file.write_bytes(bytes(raw))
    bad = CliRunner().invoke(cli, args)
    assert bad.exit_code == 1, bad.output

    # Re-importing the export taken before the erasures resurrects nothing.
    r = client.post(
        "/v1/import?wait=true", content=exported, headers={"content-type": "application/x-ndjson"}
    )
    assert r.status_code == 200, r.text
    assert client.get("/v1/memories/bob-1").status_code == 410
    assert client.get("/v1/memories/carol-1").status_code == 410
    settle(c)
    assert files_holding(settings.data_dir, erased) == {}


def test_a_replay_from_zero_keeps_the_erased_absent(settings: Settings) -> None:
    c = build(settings)
    c.start()
    secret, kept = canary(), canary()
    with TestClient(create_app(c.services)) as client:
        put(client, "keep", "user:alice", "agent-a", f"kept {kept}")
        put(client, "gone", "user:bob", "agent-a", f"private note {secret}")
        r = client.post("/v1/erasures?wait=true", json={"scope": "user:bob", "reason": "asked"})
        assert r.status_code == 201, r.text
    c.service.wait_for(c.log.last_position())
    c.close()
    rebuilt = build(settings)  # not started: replay is offline
    try:
        for tailer in rebuilt.projections.tailers:
            assert tailer.rebuild() == rebuilt.log.last_position()
        rebuilt.index.optimize()
        assert [r.record.id for r in rebuilt.store.scan_records("default")] == ["keep"]
        assert rebuilt.dead_letters is not None and rebuilt.dead_letters.counts() == {}
    finally:
        rebuilt.close()
    assert files_holding(settings.data_dir, [secret]) == {}


def test_forgetting_one_interaction(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    c, client = started
    place, other = canary(), canary()
    turn = say(client, "user:alice", "planner", f"I live in {place}.")
    kept = say(client, "user:bob", "planner", f"I live in {other}.")
    r = client.delete(f"/v1/interactions/{turn['interaction_id']}?wait=true")
    assert r.status_code == 200, r.text
    assert r.json()["memories"] == 1 and r.json()["interactions"] == 1
    settle(c)
    assert files_holding(settings.data_dir, [place, place.lower()]) == {}
    assert client.get(f"/v1/memories/{turn['memories'][0]['id']}").status_code == 410
    assert other in client.get(f"/v1/memories/{kept['memories'][0]['id']}").json()["content"]
    receipt = client.get(f"/v1/erasures/{r.json()['erasure_id']}").json()["receipt"]
    assert receipt["erased"]["interaction_ids"] == [turn["interaction_id"]]
    assert client.delete("/v1/interactions/no-such-turn").status_code == 404


def test_bad_erasures_are_refused_naming_the_field(started: tuple[Container, TestClient]) -> None:
    _, client = started
    cases: list[tuple[dict[str, Any], str]] = [
        ({"reason": "no subject"}, "scope"),
        ({"scope": "user:bob", "source_agent": "x", "reason": "two"}, "scope"),
        ({"scope": "user:bob", "reason": " "}, "reason"),
        ({"scope": "not a scope!", "reason": "r"}, "scope"),
        ({"ids": ["a"], "reason": "r", "erasure_id": "bad id"}, "erasure_id"),
    ]
    for body, field in cases:
        r = client.post("/v1/erasures", json=body)
        assert r.status_code in (400, 422), r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert field in r.text, (body, r.text)
    assert client.get("/v1/erasures/era-unknown").status_code == 404


def test_only_an_admin_of_the_tenant_erases_and_reads_receipts(
    started: tuple[Container, TestClient],
) -> None:
    c, client = started
    keys = c.services.keys
    assert keys is not None

    def bearer(tenant: str, role: str, scopes: list[str]) -> dict[str, str]:
        token = keys.create(tenant=tenant, role=role, scopes=scopes, name=role).token
        return {"Authorization": f"Bearer {token}"}

    acme, globex = bearer("acme", "admin", ["*"]), bearer("globex", "admin", ["*"])
    secret = canary()
    body = {"type": "fact", "content": f"gx {secret}", "scope": "user:gx", "source_agent": "a"}
    r = client.put("/v1/memories/gx-1?wait=true", json=body, headers=globex)
    assert r.status_code == 201, r.text
    erase = {"scope": "user:gx", "reason": "asked", "erasure_id": "era-gx"}
    for role, scopes in (("writer", ["user:gx"]), ("reader", ["user:gx"]), ("operator", ["*"])):
        refused = client.post("/v1/erasures", json=erase, headers=bearer("globex", role, scopes))
        assert refused.status_code == 403, (role, refused.text)
        assert refused.json()["code"] == "role_forbidden"
    # acme's admin erasing globex's scope name and ids erases nothing of globex.
    r = client.post("/v1/erasures?wait=true", json=erase, headers=acme)
    assert r.status_code == 201 and r.json()["memories"] == 0, r.text
    ids = {"ids": ["gx-1"], "reason": "asked", "erasure_id": "era-gx-ids"}
    r = client.post("/v1/erasures?wait=true", json=ids, headers=acme)
    assert r.status_code == 201 and r.json()["memories"] == 0, r.text
    assert secret in client.get("/v1/memories/gx-1", headers=globex).json()["content"]
    # globex's own erasure: its receipt is globex's alone.
    r = client.post(
        "/v1/erasures?wait=true", json={**erase, "erasure_id": "era-gx-own"}, headers=globex
    )
    assert r.status_code == 201 and r.json()["memories"] == 1, r.text
    assert client.get("/v1/erasures/era-gx-own", headers=acme).status_code == 404
    mine = client.get("/v1/erasures/era-gx-ids", headers=acme)
    assert mine.status_code == 200 and mine.json()["receipt"]["erased"]["memory_ids"] == []
    theirs = client.get("/v1/erasures/era-gx-own", headers=globex).json()["receipt"]
    assert theirs["tenant"] == "globex" and theirs["erased"]["memory_ids"] == ["gx-1"]
    assert client.get("/v1/memories/gx-1", headers=globex).status_code == 410


def test_offboarding_erases_everything_of_the_tenant(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    c, client = started
    keys = c.services.keys
    assert keys is not None

    def admin(tenant: str) -> dict[str, str]:
        token = keys.create(tenant=tenant, role="admin", scopes=["*"], name="admin").token
        return {"Authorization": f"Bearer {token}"}

    leaving, staying = admin("leaving"), admin("staying")
    gone, place, kept = canary(), canary(), canary()
    for headers, memory_id, text in ((leaving, "l-1", gone), (staying, "s-1", kept)):
        body = {"type": "fact", "content": text, "scope": "user:x", "source_agent": "a"}
        r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body, headers=headers)
        assert r.status_code == 201, r.text
    turn = {"scope": "team:ops", "source_agent": "b", "text": f"I live in {place}."}
    assert client.post("/v1/interactions?wait=true", json=turn, headers=leaving).status_code == 201
    r = client.post(
        "/v1/erasures?wait=true",
        json={"everything": True, "reason": "tenant offboarded", "erasure_id": "era-off"},
        headers=leaving,
    )
    assert r.status_code == 201 and r.json()["memories"] == 2, r.text
    settle(c)
    assert files_holding(settings.data_dir, [gone, place, place.lower()]) == {}
    assert client.get("/v1/memories/l-1", headers=leaving).status_code == 410
    assert kept in client.get("/v1/memories/s-1", headers=staying).json()["content"]
    receipt = client.get("/v1/erasures/era-off", headers=leaving).json()["receipt"]
    assert receipt["request"]["criteria"] == {"everything": True}
    assert receipt["verification"]["passed"] is True
