"""No event can stop a projection: poison appended straight to the embedded log (past every
validation) is dead-lettered, later writes are projected and searchable, ``/healthz`` says
``degraded`` and names it, the CLI lists, re-drives and discards it, and ``ai-memory
replay`` finishes and exits 0."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from ai_memory.bootstrap import Container, build
from ai_memory.core.errors import Unavailable
from ai_memory.core.events import LoggedEvent, MemoryWritten
from ai_memory.entrypoints.cli.main import app as cli
from ai_memory.entrypoints.http.app import create_app
from ai_memory.projector.sinks import IndexSink
from ai_memory.service.health import forget_cached_counts
from ai_memory.settings import Settings
from tests.factories import FixedClock, record, written

JUNK = b"\x00\x01 these bytes are no Avro frame"


def far_future_write() -> MemoryWritten:
    """Valid Avro that the index sink cannot apply: its expiry is beyond year 9999."""
    far = datetime(9999, 12, 31, tzinfo=UTC)
    return written(
        record("far-future", "Poison with an expiry past 9999.", created_at=far, ttl=10**9)
    )


def insert_raw(events_db: Path, payload: bytes) -> int:
    """Append bytes to the embedded log's table directly, as corruption or a foreign
    writer would."""
    conn = sqlite3.connect(events_db, timeout=30)
    try:
        with conn:
            cur = conn.execute(
                "INSERT INTO events (event_id, tenant, partition_key, event_type, appended_at,"
                " payload) VALUES (?, 'default', 'default/user:alice', 'MemoryWritten', ?, ?)",
                (f"junk-{time.time_ns()}", time.time(), payload),
            )
        return int(cur.lastrowid or 0)
    finally:
        conn.close()


def memory(content: str, **kw: Any) -> dict[str, Any]:
    return {"type": "fact", "scope": "user:alice", "source_agent": "a", "content": content, **kw}


def wait_until(predicate: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


def cli_run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output + repr(result.exception)
    return result.output


def listed(data_dir: Path) -> list[dict[str, Any]]:
    out = cli_run("dead-letters", "list", "--json", "--data-dir", str(data_dir))
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def server(data_dir: Path) -> Iterator[tuple[Container, TestClient]]:
    forget_cached_counts()
    container = build(Settings(data_dir=data_dir), clock=FixedClock())
    container.start()
    with TestClient(create_app(container.services)) as client:
        yield container, client
    container.close()
    forget_cached_counts()


def test_the_far_future_event_really_is_poison_for_the_index(tmp_path: Path) -> None:
    """The premise of the tests below (bypassing validation, this event cannot be indexed)."""
    c = build(Settings(data_dir=tmp_path / "data"), clock=FixedClock())
    try:
        with pytest.raises(Exception):  # noqa: B017 - whatever the sink raises
            IndexSink(c.index, c.embedder).apply([LoggedEvent(1, far_future_write())])
    finally:
        c.close()


def test_poison_is_dead_lettered_and_the_projections_keep_going(
    server: tuple[Container, TestClient], data_dir: Path
) -> None:
    container, client = server
    assert client.get("/healthz").json()["status"] == "ok"

    (far,) = container.log.append([far_future_write()])
    junk = insert_raw(data_dir / "events.db", JUNK)

    # A later write waits for every projection and is searchable: nothing is wedged.
    r = client.post("/v1/memories?wait=true", json=memory("The Zanzibar ferry leaves at dawn."))
    assert r.status_code == 201, r.text
    later = r.json()
    assert later["position"] > junk > far
    hits = client.post(
        "/v1/memories/search", json={"query": "Zanzibar ferry", "mode": "keyword"}
    ).json()["results"]
    assert [h["record"]["id"] for h in hits] == [later["record"]["id"]]
    # The records projection could apply the far-future event; only the index parks it.
    assert client.get("/v1/memories/far-future").status_code == 200

    forget_cached_counts()
    health = client.get("/healthz")
    assert health.status_code == 200  # degraded is not dead: no liveness restart loop
    body = health.json()
    assert body["status"] == "degraded"
    assert body["dead_letters"] == {"index": 2, "records": 1}
    assert body["stuck"] == []
    assert all(p["lag"] == 0 for p in body["projections"])

    metrics = client.get("/metrics").text
    assert 'aimem_dead_letters{projection="index"} 2.0' in metrics
    assert 'aimem_dead_lettered_events_total{projection="index",reason="bad_magic"} 1.0' in metrics
    assert 'aimem_projection_stuck{partition="0",projection="index"} 0.0' in metrics

    entries = {(e.projection, e.position): e for e in container.dead_letters.entries()}  # type: ignore[union-attr]
    assert set(entries) == {("index", far), ("index", junk), ("records", junk)}
    assert entries[("index", junk)].raw == JUNK and entries[("index", junk)].reason == "bad_magic"
    parked = entries[("index", far)]
    assert parked.reason == "projection:OverflowError" and parked.error.startswith("Overflow")
    assert parked.raw  # the event's bytes, for inspection


def test_the_cli_lists_redrives_and_discards_dead_letters(
    server: tuple[Container, TestClient], data_dir: Path
) -> None:
    container, client = server
    (far,) = container.log.append([far_future_write()])
    junk = insert_raw(data_dir / "events.db", JUNK)
    ok = client.post("/v1/memories?wait=true", json=memory("A healthy memory.")).json()
    # The answer shows the tenant's token; dead letters (the operator's) hold log positions.
    ok["position"] = container.services.positions.taken("default", ok["position"])
    wait_until(lambda: len(container.dead_letters.entries()) == 3)  # type: ignore[union-attr]
    # An entry whose event applies now (as after a fix): what a re-drive should clear.
    entry = container.dead_letters.get("index", far)  # type: ignore[union-attr]
    assert entry is not None
    from dataclasses import replace

    container.dead_letters.put(replace(entry, position=ok["position"], attempts=1))  # type: ignore[union-attr]

    rows = listed(data_dir)  # works while the server runs
    assert [(r["projection"], r["position"]) for r in rows] == [
        ("index", far),
        ("index", junk),
        ("index", ok["position"]),
        ("records", junk),
    ]
    shown = json.loads(
        cli_run("dead-letters", "show", "index", str(far), "--data-dir", str(data_dir))
    )
    assert shown["reason"].startswith("projection:") and "far-future" in shown["event"]

    client.__exit__(None, None, None)
    container.close()  # re-driving opens the embedded index: the server must be stopped

    out = cli_run(
        "dead-letters", "redrive", "index", str(ok["position"]), "--data-dir", str(data_dir)
    )
    assert "applied" in out
    out = cli_run("dead-letters", "redrive", "index", str(far), "--data-dir", str(data_dir), code=1)
    assert "failed again" in out
    after = {(r["projection"], r["position"]): r for r in listed(data_dir)}
    assert ("index", ok["position"]) not in after
    assert after[("index", far)]["attempts"] > rows[0]["attempts"]  # kept, with the new try

    cli_run("dead-letters", "discard", "index", str(far), "--data-dir", str(data_dir))
    cli_run("dead-letters", "discard", "records", "--all", "--data-dir", str(data_dir))
    assert [(r["projection"], r["position"]) for r in listed(data_dir)] == [("index", junk)]
    cli_run("dead-letters", "discard", "index", "--all", "--data-dir", str(data_dir))
    assert listed(data_dir) == []
    cli_run("dead-letters", "discard", "index", "--all", "--data-dir", str(data_dir), code=2)

    forget_cached_counts()
    restarted = build(Settings(data_dir=data_dir), clock=FixedClock())
    restarted.start()
    try:
        with TestClient(create_app(restarted.services)) as again:
            assert again.get("/healthz").json()["status"] == "ok"
    finally:
        restarted.close()


def test_a_projection_stuck_on_a_down_store_is_reported_and_recovers(
    server: tuple[Container, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    container, client = server
    healthy_apply = container.index.apply
    down = True

    def flaky_apply(*args: Any, **kwargs: Any) -> None:
        if down:
            raise Unavailable("the index store is down")
        healthy_apply(*args, **kwargs)

    monkeypatch.setattr(container.index, "apply", flaky_apply)
    r = client.post("/v1/memories", json=memory("Written while the index is down."))
    token = r.json()["position"]  # the tenant's; /healthz (deployment-wide here) the log's
    position = container.services.positions.taken("default", token)
    wait_until(lambda: client.get("/healthz").json()["stuck"] != [])
    body = client.get("/healthz").json()
    assert body["status"] == "degraded"
    (stuck,) = body["stuck"]
    assert stuck["projection"] == "index" and stuck["partition"] == 0
    assert stuck["position"] == position and stuck["retryable"] is True
    assert "the index store is down" in stuck["last_error"]
    assert 'aimem_projection_stuck{partition="0",projection="index"} 1.0' in (
        client.get("/metrics").text
    )

    down = False
    assert (
        client.get(f"/v1/memories/{r.json()['record']['id']}?min_position={token}").status_code
        == 200
    )
    wait_until(lambda: client.get("/healthz").json()["status"] == "ok")
    assert container.dead_letters.entries() == []  # type: ignore[union-attr]  # never for infra


def test_replay_survives_poison_and_reports_it(data_dir: Path) -> None:
    container = build(Settings(data_dir=data_dir), clock=FixedClock())
    try:
        container.service.write("default", memory("Before the poison.", id="before"))
        container.log.append([far_future_write()])
        junk = insert_raw(data_dir / "events.db", JUNK)
        container.service.write("default", memory("After the poison.", id="after"))
    finally:
        container.close()

    out = cli_run("replay", "--data-dir", str(data_dir))
    assert "index: " in out and "2 dead-lettered" in out and "1 dead-lettered" in out
    assert [(r["projection"], r["position"]) for r in listed(data_dir)] == [
        ("index", junk - 1),
        ("index", junk),
        ("records", junk),
    ]
    out = cli_run("replay", "--data-dir", str(data_dir))  # again: the same entries, not twice
    assert len(listed(data_dir)) == 3

    c = build(Settings(data_dir=data_dir), clock=FixedClock())
    try:
        assert {r.record.id for r in c.store.scan_records("default")} == {
            "before",
            "after",
            "far-future",
        }
        assert c.index.count("default") == 2
    finally:
        c.close()
