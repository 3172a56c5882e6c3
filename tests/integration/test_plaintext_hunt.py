"""The plaintext hunt (docs/design/FORGETTING.md), embedded, with encryption on.

Unique canaries go into memories (content, tags, meta, and an update of one) and into
interaction turns (the raw text, the extractor's decision, the memory extracted). Before any
forget, reads and searches find them while no byte of any canary is in the log's files
(``events.db`` with its WAL) nor in the records view's (``records.db`` with its WAL: sealed
at rest), and a copy of the view taken then no longer opens the forgotten memory after.
After one memory is forgotten and the projections applied its tombstone, no file of the
data directory holds a byte of its canaries — the log, the vault, the record store, the
index — while every other canary is still readable; a
replay from position 0 rebuilds the same projections without it, and re-importing an
export taken before the forget resurrects nothing.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.bootstrap import Container, build
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.events import InteractionRecorded
from ai_memory.core.record import StoredRecord
from ai_memory.entrypoints.http.app import create_app
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.notes import note_id
from ai_memory.settings import Settings
from tests.integration.hunt_support import (
    canary,
    files_holding,
    files_holding_bytes,
    memory,
    put,
    stored_dense,
)


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


def test_forget_means_forgotten(started: tuple[Container, TestClient], settings: Settings) -> None:
    c, client = started
    data = settings.data_dir
    kept = {m: (canary(), canary().lower(), canary()) for m in ("keep-1", "keep-2")}
    forgotten_v1 = (canary(), canary().lower(), canary())
    forgotten_v2 = (canary(), canary().lower(), canary())
    for memory_id, (content, tag, note) in kept.items():
        put(client, memory_id, memory(f"Alice said {content} twice.", tag, note))
    put(client, "forget-me", memory(f"Alice lives at {forgotten_v1[0]}.", *forgotten_v1[1:]))
    put(client, "forget-me", memory(f"Alice moved to {forgotten_v2[0]}.", *forgotten_v2[1:]))
    all_forgotten = [*forgotten_v1, *forgotten_v2]
    all_kept = [x for v in kept.values() for x in v]

    # Before any forget: reads and searches work, the log holds no canary at all.
    got = client.get("/v1/memories/forget-me").json()
    assert forgotten_v2[0] in got["content"] and got["tags"] == [forgotten_v2[1]]
    assert got["meta"] == {"note": forgotten_v2[2]}
    for memory_id, (content, _, _) in kept.items():
        assert content in client.get(f"/v1/memories/{memory_id}").json()["content"]
    hits = client.post(
        "/v1/memories/search", json={"query": kept["keep-1"][0], "mode": "keyword"}
    ).json()["results"]
    assert [h["record"]["id"] for h in hits][:1] == ["keep-1"]
    assert files_holding(data, all_forgotten + all_kept, "events.db*") == {}
    assert files_holding(data, ["user:alice"], "events.db*")  # the clear fields are there
    # The records view is sealed at rest too: records.db (with its WAL) holds no canary,
    # kept or not — so neither does a copy of it taken now, a backup of the data dir.
    assert files_holding(data, all_forgotten + all_kept, "records.db*") == {}
    assert files_holding(data, ["user:alice"], "records.db*")
    backup = data.parent / "backup"
    backup.mkdir()
    for f in data.glob("records.db*"):
        shutil.copy(f, backup / f.name)
    exported = client.get("/v1/export").text
    assert forgotten_v2[0] in exported  # an export is a copy in clear, by design

    # Forget: the tombstone first, then the key; wait until every projection applied it.
    assert client.delete("/v1/memories/forget-me?wait=true").status_code == 200
    c.service.wait_for(c.log.last_position())
    c.index.flush()  # what the idle projector does; no optimize, no vacuum needed
    assert client.get("/v1/memories/forget-me").status_code == 410
    leftover = files_holding(data, all_forgotten)
    assert leftover == {}, "\n".join(f"{k}: {v}" for k, v in leftover.items())
    for memory_id, (content, tag, note) in kept.items():
        got = client.get(f"/v1/memories/{memory_id}").json()
        assert content in got["content"] and got["tags"] == [tag]
        assert got["meta"] == {"note": note}
        by_tag = {"query": "Alice", "tags": [tag]}
        hits = client.post("/v1/memories/search", json=by_tag).json()["results"]
        assert [h["record"]["id"] for h in hits] == [memory_id]  # tag filters still work
    assert c.sealer is not None
    assert c.sealer.vault.destroyed("default", memory_key_id("forget-me"))
    # The copy taken before the forget still holds its row, which no longer opens.
    old = SealedRecordStore(SqliteRecordStore(backup / "records.db"), c.sealer, b"unused")
    try:
        assert isinstance(old.inner.get("default", "forget-me"), StoredRecord)  # still there
        assert old.get("default", "forget-me") is None
        got_old = old.get("default", "keep-1")
        assert isinstance(got_old, StoredRecord) and kept["keep-1"][0] in got_old.record.content
    finally:
        old.close()
    # A forgotten id is never written again, so its destroyed key is never needed again.
    again = client.put("/v1/memories/forget-me", json=memory("new", "t", "n"))
    assert again.status_code == 410

    # Re-importing the export taken before the forget resurrects nothing.
    r = client.post(
        "/v1/import?wait=true",
        content=exported,
        headers={"content-type": "application/x-ndjson"},
    )
    assert r.status_code == 200, r.text
    assert client.get("/v1/memories/forget-me").status_code == 410
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    assert files_holding(data, all_forgotten) == {}


def test_a_replay_from_zero_rebuilds_the_projections_without_the_forgotten(
    settings: Settings,
) -> None:
    c = build(settings)
    c.start()
    secret, kept = canary(), canary()
    with TestClient(create_app(c.services)) as client:
        put(client, "keep", memory(f"kept {kept}", "t", "n"))
        put(client, "gone", memory(f"private note {secret}", "t", "n"))
        put(client, "gone", memory(f"private note again {secret}", "t", "n"))
        assert client.delete("/v1/memories/gone?wait=true").status_code == 200
    c.service.wait_for(c.log.last_position())
    c.index.optimize()
    before = (list(c.store.scan_records("default")), list(c.store.scan_tombstones("default")))
    before_count = c.index.count("default")
    c.close()

    rebuilt = build(settings)  # not started: replay is offline
    try:
        for tailer in rebuilt.projections.tailers:
            assert tailer.rebuild() == rebuilt.log.last_position()
        rebuilt.index.optimize()
        after = (
            list(rebuilt.store.scan_records("default")),
            list(rebuilt.store.scan_tombstones("default")),
        )
        assert after == before
        assert rebuilt.index.count("default") == before_count == 1
        assert [r.record.id for r in after[0]] == ["keep"]
        assert [t.memory_id for t in after[1]] == ["gone"]
        assert rebuilt.dead_letters is not None and rebuilt.dead_letters.counts() == {}
    finally:
        rebuilt.close()
    assert files_holding(settings.data_dir, [secret]) == {}


def test_forgetting_an_extracted_memory_forgets_the_turn_it_came_from(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    c, client = started
    data = settings.data_dir
    place, kept_place = f"Canary{uuid.uuid4().hex}", f"Canary{uuid.uuid4().hex}"
    needles = [place, place.lower()]
    turns = {}
    for said, scope in ((place, "user:alice"), (kept_place, "user:bob")):
        turn = {"scope": scope, "source_agent": "planner", "text": f"I live in {said}."}
        r = client.post("/v1/interactions?wait=true", json=turn)
        assert r.status_code == 201, r.text
        turns[said] = r.json()
    (extracted,) = turns[place]["memories"]
    assert place in client.get(f"/v1/memories/{extracted['id']}").json()["content"]
    # The raw turn and the extractor's decision (which quotes the memory) are sealed too.
    both = [*needles, kept_place, kept_place.lower()]
    assert files_holding(data, both, "events.db*") == {}

    assert client.delete(f"/v1/memories/{extracted['id']}?wait=true").status_code == 200
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    sealer = c.sealer
    assert sealer is not None
    assert sealer.vault.destroyed("default", interaction_key_id(turns[place]["interaction_id"]))
    leftover = files_holding(data, needles)
    assert leftover == {}, leftover
    # The other turn and its memory are untouched.
    (other,) = turns[kept_place]["memories"]
    assert kept_place in client.get(f"/v1/memories/{other['id']}").json()["content"]
    assert not sealer.vault.destroyed(
        "default", interaction_key_id(turns[kept_place]["interaction_id"])
    )


def test_forgetting_the_newer_side_of_a_conflict_forgets_its_value_in_the_evidence(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    c, client = started
    old, new = f"Canary{uuid.uuid4().hex}", f"Canary{uuid.uuid4().hex}"
    extracted = []
    for text in (f"I live in {old}.", f"I moved to {new}."):
        turn = {"scope": "user:alice", "source_agent": "planner", "text": text}
        r = client.post("/v1/interactions?wait=true", json=turn)
        assert r.status_code == 201, r.text
        extracted += r.json()["memories"]
    older, newer = extracted
    assert r.json()["transitions"]  # the older residence was superseded: a decision
    # While both memories live, a reader of the lineage sees the whole decision.
    before = client.get(f"/v1/memories/{older['id']}/lineage").json()["events"]
    (decided,) = [e["decision"] for e in before if e["kind"] == "state_changed"]
    assert "sealed" not in decided and "evidence_forgotten" not in decided
    assert "reason" in decided  # the detector's reason, opened
    assert decided["superseded_by"] == newer["id"]
    assert client.delete(f"/v1/memories/{newer['id']}?wait=true").status_code == 200
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    assert files_holding(settings.data_dir, [new, new.lower()]) == {}
    # Lineage keeps the ids, the rule and the scores of the decision, and no content.
    lineage = client.get(f"/v1/memories/{older['id']}/lineage")
    assert lineage.status_code == 200, lineage.text
    assert new not in lineage.text and new.lower() not in lineage.text
    (change,) = [e for e in lineage.json()["events"] if e["kind"] == "state_changed"]
    assert change["decision"]["superseded_by"] == newer["id"]
    assert change["decision"]["evidence_forgotten"] is True
    assert {"cause", "theta", "margin", "new_score", "old_score"} <= set(change["decision"])


def test_an_optimize_rewrites_a_forgotten_memorys_vectors_out_of_the_index(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    c, client = started
    for memory_id in ("keep", "gone"):
        put(client, memory_id, memory(f"{memory_id} {canary()}", "t", "n"))
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    vectors = {m: stored_dense(c, m) for m in ("keep", "gone")}
    index = settings.data_dir / "index"
    assert set(files_holding_bytes(index, vectors).popitem()[1]) == {"keep", "gone"}

    assert client.delete("/v1/memories/gone?wait=true").status_code == 200
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    # The forget deleted the point (a tombstone point took its id): its vector stays in the
    # segment's file until the engine rewrites the segment. Vectors only, never text.
    assert "gone" in {m for hits in files_holding_bytes(index, vectors).values() for m in hits}
    assert c.index.optimize()  # the vacuum: every segment holding a deleted point
    c.index.flush()
    left = {m for hits in files_holding_bytes(index, vectors).values() for m in hits}
    assert left == {"keep"}
    hits = client.post("/v1/memories/search", json={"query": "keep", "mode": "semantic"}).json()
    assert [h["record"]["id"] for h in hits["results"]] == ["keep"]
    assert client.get("/v1/memories/gone").status_code == 410


def test_a_conversations_session_is_a_digest_in_the_index(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    """Conversation context matches turns by session, so the index holds the session of
    every interaction — sealed, only as a keyed digest (like tags): no file of the index
    holds the session id, and context still finds a turn through its neighbour."""
    c, client = started
    session = canary()
    turns = ["Ben: How long have you known your friends there?", "Anna: Four years now."]
    for i, text in enumerate(turns):
        body = memory(text, "t", "n", type="interaction", meta={"session_id": session})
        put(client, f"turn-{i}", {**body, "created_at": f"2023-05-08T13:56:0{i}Z"})
    c.index.flush()
    hits = client.post(
        "/v1/memories/search",
        json={"query": "how long known friends", "mode": "keyword", "rerank": False},
    ).json()["results"]
    assert [h["record"]["id"] for h in hits] == ["turn-0", "turn-1"]
    assert "context" in hits[1]["components"]
    assert list((settings.data_dir / "index").rglob("*"))  # the index is there, and holds
    assert files_holding(settings.data_dir, [session], "index/**/*") == {}  # no session id


def test_an_erased_turns_session_is_on_no_byte_of_the_data_dir(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    """A session id is the caller's handle on a conversation (often a user's): it is sealed
    with the turn's text, so no file of the log holds it even while the turn lives; the
    conversation still groups the turn's memories (episodes) while it lives; and once the
    turn is erased — by ``POST /v1/erasures`` or ``DELETE /v1/interactions/{id}`` — no
    file of the data directory holds a byte of its session, while a kept turn's session
    is still read back."""
    c, client = started
    data = settings.data_dir
    sessions = {name: canary() for name in ("erased", "deleted", "kept")}
    turns = {}
    for name, session in sessions.items():
        place = f"Canary{uuid.uuid4().hex}"
        turn = {
            "scope": "user:alice",
            "source_agent": "planner",
            "session_id": session,
            "text": f"I live in {place}.",
        }
        r = client.post("/v1/interactions?wait=true", json=turn)
        assert r.status_code == 201, r.text
        turns[name] = r.json()
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    # While the turns live: their conversations are read back from the opened events...
    episodes = client.get("/v1/episodes", params={"scope": "user:alice"}).json()["episodes"]
    assert {e["session_id"] for e in episodes} == set(sessions.values())
    # ...and the log's files never held a session id in the clear.
    assert files_holding(data, list(sessions.values()), "events.db*") == {}
    assert files_holding(data, ["user:alice"], "events.db*")  # the clear fields are there

    asked = {"interaction_ids": [turns["erased"]["interaction_id"]], "reason": "asked"}
    assert client.post("/v1/erasures?wait=true", json=asked).status_code == 201
    gone = client.delete(f"/v1/interactions/{turns['deleted']['interaction_id']}?wait=true")
    assert gone.status_code == 200, gone.text
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    forgotten = [sessions["erased"], sessions["deleted"]]
    leftover = files_holding(data, forgotten)
    assert leftover == {}, leftover
    episodes = client.get("/v1/episodes", params={"scope": "user:alice"}).json()["episodes"]
    assert [e["session_id"] for e in episodes] == [sessions["kept"]]
    # A reader of the log gets the kept turn's session back; the erased ones' are gone.
    opened = {
        e.event.interaction_id: e.event.session_id
        for e in c.log.read(after=0, limit=10_000)
        if isinstance(e.event, InteractionRecorded)
    }
    assert opened == {
        turns["erased"]["interaction_id"]: None,
        turns["deleted"]["interaction_id"]: None,
        turns["kept"]["interaction_id"]: sessions["kept"],
    }


def test_a_forgotten_notes_topic_is_on_no_byte_of_the_data_dir(
    started: tuple[Container, TestClient], settings: Settings
) -> None:
    """A note's topic is its tags (sealed) and once decided its id: the id stays on the
    tombstone for good, so it is a keyed digest — the plain hash of agent and topic, which
    anyone can compute from a guess, is in no file either, before or after the note is
    turned off; a kept note still reads back by its topic."""
    c, client = started
    data = settings.data_dir
    topic, kept_topic = canary().lower(), canary().lower()
    for t in (topic, kept_topic):
        note = {"agent": "scribe", "topic": [t], "note": f"About {t}."}
        r = client.put("/v1/notes", json=note)
        assert r.status_code in (200, 201), r.text
    guessable = [note_id("scribe", (t,)) for t in (topic, kept_topic)]
    assert files_holding(data, [topic, kept_topic, *guessable], "events.db*") == {}

    off = {"agent": "scribe", "topic": [topic], "note": "off"}
    r = client.put("/v1/notes", json=off)
    assert r.status_code == 200 and r.json()["status"] == "deleted", r.text
    c.service.wait_for(c.log.last_position())
    c.index.flush()
    leftover = files_holding(data, [topic, *guessable])
    assert leftover == {}, leftover
    page = client.get("/v1/notes", params={"agent": "scribe", "topic": kept_topic}).json()
    assert [n["topic"] for n in page["topic_notes"]] == [[kept_topic]]


def test_a_memory_forgotten_before_the_projections_read_it_reaches_no_file(
    settings: Settings,
) -> None:
    """The worst moment for the append's decoded events (serialization/decoded_frames.py):
    the proof has opened the write and kept the event for the projections, and the
    memory is forgotten — its key destroyed — before they read it. They must read the
    write as a decode would now, forgotten, and leave no byte of it in any file."""
    c = build(settings)  # not started: the projections read nothing until start()
    try:
        with TestClient(create_app(c.services)) as client:
            secret = (canary(), canary().lower(), canary())
            kept = canary()
            body = memory(f"Alice lives at {secret[0]}.", *secret[1:])
            assert client.put("/v1/memories/forget-me", json=body).status_code == 201
            keep = memory(f"Alice said {kept}.", "t", "n")
            assert client.put("/v1/memories/keep-me", json=keep).status_code == 201
            serializer = c.pipeline.serializer
            assert isinstance(serializer, AvroEventSerializer)
            decoded = serializer.decoded  # both writes' events, proved and kept
            assert decoded is not None and len(decoded) == 2
            assert client.delete("/v1/memories/forget-me").status_code == 200
            c.start()
            c.service.wait_for(c.log.last_position())
            c.index.flush()
            assert decoded.stale == 2  # each projection asked for the key, and it was gone
            assert files_holding(settings.data_dir, list(secret)) == {}
            got = client.get("/v1/memories/keep-me").json()
            assert kept in got["content"]  # what was kept is projected from the proof
            hits = client.post("/v1/memories/search", json={"query": kept, "mode": "keyword"})
            assert [h["record"]["id"] for h in hits.json()["results"]] == ["keep-me"]
    finally:
        c.close()
