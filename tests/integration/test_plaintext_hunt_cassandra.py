"""The plaintext hunt on the distributed stores (docs/design/FORGETTING.md): a Kafka log, the
Cassandra record store and the Cassandra data-key vault, encryption on.

Canaries go into memories (content, tags, meta; two conflicting versions of one), raw
turns (and the memories extracted from them, a conflict between two of them), and notes.
One memory is forgotten and one subject (a source agent) erased. The records view keeps
content, tags and meta sealed under each memory's data key (``adapters/
sealed_record_store.py``), so the test walks through the node's files with automatic
compaction off and **no** ``garbagecollect``:

* after a flush, no SSTable and no commit-log segment holds a canary in clear — kept or
  forgotten: the view's rows are ciphertext, and a unique memory id (clear by design)
  shows the scan reads both;
* after the forget, the erasure and a flush — still no compaction — no SSTable and no
  commit-log segment holds a byte of a forgotten canary, while every kept one reads back
  through the API: destroying a key is enough, whatever the node keeps on disk;
* the vault's wrapped bytes of a destroyed key stay in the SSTables flushed before the
  destroy until ``nodetool garbagecollect -g CELL`` (or ``compact``) — the residue
  FORGETTING.md bounds — after which none is left while every kept key is;
* the broker's segments hold no canary at all, before or after, and the local
  directory (the Qdrant Edge index) no forgotten one.
"""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from ai_memory.adapters.cassandra import CassandraSession
from ai_memory.bootstrap import Container, build
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.entrypoints.http.app import create_app
from ai_memory.projector.tailer import ProjectionTailer
from ai_memory.serialization import AvroEventSerializer
from ai_memory.settings import Settings
from tests.contract.test_kafka_event_log import delete_topics
from tests.integration.hunt_support import (
    KAFKA_DATA,
    canary,
    files_holding,
    files_holding_bytes,
    memory,
    put,
    stored_dense,
)
from tests.servers import nodetool

TEN_DAYS = 864_000  # Cassandra's default gc_grace_seconds: no migration changes it


@dataclass
class Hunt:
    client: TestClient
    container: Container
    cql: CassandraSession
    topic: str
    sstables: Path  # the keyspace's directory under the node's data_file_directories
    commitlog: Path

    @property
    def keyspace(self) -> str:
        return self.cql.keyspace


def _setting(cql: CassandraSession, name: str) -> str:
    row = cql.execute("SELECT value FROM system_views.settings WHERE name = %s", (name,)).one()
    assert row is not None, name
    return str(row.value)


@pytest.fixture
def hunt(kafka_bootstrap: str, cassandra_contact: str, tmp_path: Path) -> Iterator[Hunt]:
    if not (KAFKA_DATA / "data").is_dir():
        pytest.skip(f"the broker's data directory is not at {KAFKA_DATA} (started elsewhere)")
    keyspace = f"hunt_{uuid.uuid4().hex[:16]}"
    url = f"cassandra://{cassandra_contact}/{keyspace}?replication_factor=1"
    topic = f"aimem.hunt.{uuid.uuid4().hex[:10]}"
    settings = Settings(
        data_dir=tmp_path / "data",
        event_log_url=f"kafka://{kafka_bootstrap}/{topic}?partitions=2&replication_factor=1",
        record_store_url=url,
        encryption="on",
        # A shared vault has no data directory to keep a generated root key in.
        root_key=SecretStr(base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")),
    )
    container = build(settings)  # runs the migrations: the keyspace exists from here on
    project_here(container)
    cql = CassandraSession.from_url(url)
    # The node's own answer, not a guess at servers.sh's layout: a node started elsewhere
    # (another checkout, AIMEM_LOCAL_RUN) is scanned where it really writes.
    data_dirs = _setting(cql, "data_file_directories").strip("[]").split(",")
    (data_dir,) = [d.strip() for d in data_dirs]  # servers.sh configures exactly one
    commitlog = Path(_setting(cql, "commitlog_directory"))
    if not Path(data_dir).is_dir():
        pytest.skip(f"the node's data directory {data_dir} is not on this machine")
    # Uncompressed SSTables: the scan greps bytes, and LZ4 (the default) splits a canary
    # into a literal and back-references, which would hide it from the scan and prove
    # nothing (compression is not protection: whoever has the file decompresses it).
    tables = cql.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (keyspace,)
    )
    for t in tables:
        cql.execute(
            f"ALTER TABLE {keyspace}.{t.table_name} WITH compression = {{'enabled': false}}"
        )
    # Compactions happen when the test says so: it shows what each step leaves on disk.
    nodetool("disableautocompaction", keyspace)
    container.start()
    try:
        with TestClient(create_app(container.services)) as client:
            yield Hunt(client, container, cql, topic, Path(data_dir) / keyspace, commitlog)
    finally:
        container.close()
        cql.execute(f"DROP KEYSPACE IF EXISTS {keyspace}")
        cql.close()
        delete_topics(kafka_bootstrap, [topic, f"{topic}.dlq", f"{topic}.heads"])


def project_here(c: Container) -> None:
    """Drive the shared views (the Cassandra records view) from this process, one tailer
    per log partition, as the embedded server drives its own: in a deployment
    ``ai-memory project`` workers do it, and would make the test start processes."""
    serializer = AvroEventSerializer(sealer=c.sealer)  # parked raw bytes stay sealed
    for sink in c.projections.external:
        c.projections.tailers += [
            ProjectionTailer(
                c.log,
                sink,
                partition=p,
                dead_letters=c.dead_letters,
                raw_of=lambda logged: serializer.encode(logged.event),
            )
            for p in c.log.partitions()
        ]
    c.projections.external.clear()


def say(client: TestClient, who: dict[str, str], text: str) -> dict[str, Any]:
    r = client.post("/v1/interactions?wait=true", json={**who, "text": text})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def note(client: TestClient, agent: str, text: str) -> None:
    r = client.put("/v1/notes", json={"agent": agent, "topic": ["hunt"], "note": text})
    assert r.status_code in (200, 201), r.text


def found_in(root: Path, needles: list[str]) -> set[str]:
    return {n for hits in files_holding(root, needles).values() for n in hits}


def wrapped(h: Hunt, subjects: list[str]) -> dict[str, bytes]:
    """The wrapped bytes of every key issued for each subject (one per creation, in
    ``data_keys_by_subject``; a key made before that layout, in ``data_keys``)."""
    found: dict[str, bytes] = {}
    for subject in subjects:
        rows = h.cql.execute(
            f"SELECT suffix, wrapped FROM {h.keyspace}.data_keys_by_subject"
            " WHERE tenant = 'default' AND subject = %s",
            (subject,),
        )
        found |= {f"{subject}/~{r.suffix}": bytes(r.wrapped) for r in rows if r.wrapped}
        old = h.cql.execute(
            f"SELECT wrapped FROM {h.keyspace}.data_keys WHERE tenant = 'default' AND key_id = %s",
            (subject,),
        ).one()
        if old is not None and old.wrapped:
            found[subject] = bytes(old.wrapped)
        assert any(k == subject or k.startswith(f"{subject}/~") for k in found), subject
    return found


def settle(h: Hunt) -> None:
    h.container.service.wait_for(h.container.log.last_position())
    h.container.index.flush()


def test_forgotten_values_leave_the_cassandra_files(
    hunt: Hunt, record_property: Callable[[str, object], None]
) -> None:
    h, client = hunt, hunt.client
    keep = (canary(), canary().lower(), canary())
    forget_v1 = (canary(), canary().lower(), canary())
    forget_v2 = (canary(), canary().lower(), canary())
    put(client, "keep-1", memory(f"Alice said {keep[0]} twice.", *keep[1:]))
    marker = f"marker-{uuid.uuid4().hex}"  # an id: clear by design, unique to this run
    put(client, marker, memory("A marker.", "marker", "m"))
    put(client, "forget-me", memory(f"Alice lives at {forget_v1[0]}.", *forget_v1[1:]))
    put(client, "forget-me", memory(f"Alice moved to {forget_v2[0]}.", *forget_v2[1:]))
    # The subject: a memory, two raw turns whose extracted memories conflict, a note.
    bob_said, bob_note, scribe_note = canary(), canary(), canary()
    bob_old, bob_new, alice_old, alice_new = (f"Canary{uuid.uuid4().hex}" for _ in range(4))
    bob = {"scope": "user:bob", "source_agent": "bob-agent"}
    put(client, "bob-1", memory(f"Bob's code is {bob_said}.", "bob", "n", **bob))
    bob_turns = [
        say(client, bob, f"I live in {bob_old}."),
        say(client, bob, f"I moved to {bob_new}."),
    ]
    note(client, "bob-agent", f"Bob likes {bob_note}.")
    alice = {"scope": "user:alice", "source_agent": "planner"}
    alice_turns = [
        say(client, alice, f"I live in {alice_old}."),
        say(client, alice, f"I moved to {alice_new}."),
    ]
    assert bob_turns[1]["transitions"] and alice_turns[1]["transitions"]  # conflicts decided
    note(client, "scribe", f"Alice likes {scribe_note}.")
    settle(h)

    bob_memories = ["bob-1", *(m["id"] for t in bob_turns for m in t["memories"])]
    # What the records view held while the memories lived (forget_v1 was overwritten in
    # the memtable before any flush).
    live_forgotten = [*forget_v2, bob_said, bob_old, bob_new, bob_note]
    kept = [*keep, alice_old, alice_new, scribe_note]
    # Stricter after the forget: every value ever written, in both cases.
    forgotten = sorted({f for v in (*forget_v1, *live_forgotten) for f in (v, v.lower())})
    destroyed = wrapped(
        h,
        [
            memory_key_id("forget-me"),
            *(memory_key_id(m) for m in bob_memories),
            *(interaction_key_id(t["interaction_id"]) for t in bob_turns),
        ],
    )
    kept_keys = wrapped(
        h,
        [
            memory_key_id("keep-1"),
            *(interaction_key_id(t["interaction_id"]) for t in alice_turns),
        ],
    )
    broker, segments = KAFKA_DATA / "data", f"{h.topic}*/*"
    vectors = {m: stored_dense(h.container, m) for m in ("keep-1", "forget-me", "bob-1")}

    # Before any forget: the records view holds no canary in clear, in its SSTables or
    # in the commit log; the marker's id (a partition key, clear by design) shows the
    # scan reads both, compression being off.
    nodetool("flush", h.keyspace)
    assert files_holding(h.sstables, [marker], "records-*/*-Data.db")  # the positive control
    assert files_holding(h.commitlog, [marker])
    assert found_in(h.sstables, live_forgotten + kept) == set()
    assert found_in(h.commitlog, live_forgotten + kept) == set()
    assert files_holding(broker, ["user:alice"], f"{h.topic}-*/*.log")  # the scan reads them
    assert files_holding(broker, forgotten + kept, segments) == {}

    assert client.delete("/v1/memories/forget-me?wait=true").status_code == 200
    r = client.post("/v1/erasures?wait=true", json={"source_agent": "bob-agent", "reason": "hunt"})
    assert r.status_code == 201, r.text
    settle(h)
    for memory_id in ("forget-me", *bob_memories):
        assert client.get(f"/v1/memories/{memory_id}").status_code == 410, memory_id
    assert client.get("/v1/notes", params={"agent": "bob-agent"}).json()["notes_used"] == 0

    # No compaction: the SSTables flushed before the forget still hold its rows (shadowed,
    # not removed) and the commit log its mutations, but as ciphertext under destroyed
    # keys — not a byte of a forgotten canary, while the kept ones still read back.
    nodetool("flush", h.keyspace)
    assert files_holding(h.sstables, forgotten) == {}
    assert files_holding(h.commitlog, forgotten) == {}
    assert keep[0] in client.get("/v1/memories/keep-1").json()["content"]
    # The vault's residue: a destroy is a cell tombstone, so the SSTables flushed before
    # it keep every destroyed key's wrapped bytes until a compaction drops them.
    assert {k for ks in files_holding_bytes(h.sstables, destroyed).values() for k in ks} == set(
        destroyed
    )
    key_residue = files_holding_bytes(h.commitlog, destroyed)
    record_property("commitlog_wrapped_key_residue", key_residue)
    print("commit log segments holding destroyed wrapped keys:", key_residue)

    # garbagecollect rewrites each SSTable without what a tombstone in any other one
    # shadows; -g CELL also drops deleted cells (a destroyed key is a cell tombstone: the
    # default ROW granularity leaves its wrapped bytes).
    nodetool("garbagecollect", "-g", "CELL", h.keyspace)
    assert files_holding(h.sstables, forgotten) == {}
    assert files_holding_bytes(h.sstables, destroyed) == {}
    assert {k for ks in files_holding_bytes(h.sstables, kept_keys).values() for k in ks} == set(
        kept_keys
    )

    # A major compaction agrees, at the default gc_grace_seconds: the grace period keeps
    # the tombstones themselves (the partition key: ids, clear by design), not the values.
    graces = h.cql.execute(
        "SELECT table_name, gc_grace_seconds FROM system_schema.tables"
        " WHERE keyspace_name = %s AND table_name IN ('records', 'data_keys')",
        (h.keyspace,),
    )
    assert {(g.table_name, g.gc_grace_seconds) for g in graces} == {
        ("records", TEN_DAYS),
        ("data_keys", TEN_DAYS),
    }
    nodetool("compact", h.keyspace)
    assert files_holding(h.sstables, forgotten) == {}
    assert files_holding_bytes(h.sstables, destroyed) == {}
    assert files_holding(h.sstables, ["forget-me"], "records-*/*-Data.db")  # its tombstone

    # The broker never held a canary; the local directory (the index) holds no forgotten
    # one, and after the vacuum no forgotten vector.
    assert files_holding(broker, forgotten + kept, segments) == {}
    local = h.container.settings.data_dir
    assert files_holding(local, forgotten) == {}
    assert h.container.index.optimize()
    h.container.index.flush()
    assert {m for ms in files_holding_bytes(local, vectors).values() for m in ms} == {"keep-1"}
    # Every kept value still reads back, and an export taken now holds none forgotten.
    assert keep[0] in client.get("/v1/memories/keep-1").json()["content"]
    for turn, place in zip(alice_turns, (alice_old, alice_new), strict=True):
        (extracted,) = turn["memories"]
        assert place in client.get(f"/v1/memories/{extracted['id']}").json()["content"]
    assert scribe_note in str(
        client.get("/v1/notes", params={"agent": "scribe", "topic": "hunt"}).json()
    )
    exported = client.get("/v1/export").text
    assert all(k in exported for k in kept)
    assert not [f for f in forgotten if f in exported]
