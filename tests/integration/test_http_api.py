"""The six primitives over HTTP against the embedded adapters (in-process ASGI)."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container
from tests.factories import FixedClock

PROBLEM = "application/problem+json"


NDJSON_HEADERS = {"content-type": "application/x-ndjson"}


def memory(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "preference",
        "content": "Alice prefers green tea over coffee.",
        "scope": "user:alice",
        "source_agent": "agent-a",
    }
    base.update(kw)
    return base


def portable(bundle_text: str) -> tuple[list[str], list[str]]:
    """Records and tombstones of a bundle, order-insensitive, without what each instance
    stamps itself (export time, update time, read counts)."""
    records, tombstones = [], []
    for line in bundle_text.splitlines():
        item = json.loads(line)
        if item["kind"] == "record":
            records.append(json.dumps([item["record"], item["state"]], sort_keys=True))
        elif item["kind"] == "tombstone":
            tombstones.append(json.dumps([item["id"], item["scope"]]))
    return sorted(records), sorted(tombstones)


def write(client: TestClient, **kw: Any) -> dict[str, Any]:
    r = client.post("/v1/memories?wait=true", json=memory(**kw))
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def test_create_read_and_timestamps_in_utc(client: TestClient) -> None:
    r = client.post(
        "/v1/memories?wait=true",
        json=memory(created_at="2024-03-12T09:30:00+08:00", tags=["drinks"]),
    )
    assert r.status_code == 201
    body = r.json()
    assert body["created"] and body["changed"] and body["position"] > 0
    rid = body["record"]["id"]
    got = client.get(f"/v1/memories/{rid}").json()
    assert got["created_at"] == "2024-03-12T01:30:00Z"
    assert got["content"] == "Alice prefers green tea over coffee."
    assert got["version"] == 1 and got["state"] == "active" and got["tags"] == ["drinks"]


def test_put_is_an_idempotent_upsert_with_versions(client: TestClient) -> None:
    first = client.put("/v1/memories/pref-1?wait=true", json=memory())
    assert first.status_code == 201 and first.json()["record"]["version"] == 1
    again = client.put("/v1/memories/pref-1?wait=true", json=memory())
    assert again.status_code == 200
    assert again.json()["changed"] is False and again.json()["record"]["version"] == 1
    assert again.json()["position"] == first.json()["position"]
    changed = client.put(
        "/v1/memories/pref-1?wait=true", json=memory(content="Alice now prefers oolong tea.")
    )
    assert changed.json()["record"]["version"] == 2 and changed.json()["changed"]
    got = client.get("/v1/memories/pref-1").json()
    assert got["version"] == 2 and got["content"] == "Alice now prefers oolong tea."
    # The upsert without created_at kept the original creation time.
    assert got["created_at"] == first.json()["record"]["created_at"]


def test_404_never_existed_410_forgotten(client: TestClient) -> None:
    r = client.get("/v1/memories/nope")
    assert r.status_code == 404 and r.headers["content-type"] == PROBLEM
    assert r.json()["code"] == "memory_not_found"
    rid = write(client)["record"]["id"]
    d = client.delete(f"/v1/memories/{rid}?wait=true")
    assert d.status_code == 200 and d.json()["already_forgotten"] is False
    gone = client.get(f"/v1/memories/{rid}")
    assert gone.status_code == 410 and gone.json()["code"] == "memory_forgotten"
    assert client.delete(f"/v1/memories/{rid}").json()["already_forgotten"] is True
    assert client.delete("/v1/memories/never").status_code == 404
    # A forgotten id is never written again.
    again = client.put(f"/v1/memories/{rid}", json=memory())
    assert again.status_code == 410


def test_search_by_meaning_and_keyword_with_filters(client: TestClient) -> None:
    write(client, id="tea", content="Alice prefers green tea over coffee.", tags=["drinks"])
    write(
        client,
        id="rust",
        type="skill",
        scope="team:data-platform",
        content="To fix flaky CI builds, pin the Rust toolchain to 1.80 in rust-toolchain.toml.",
    )
    write(client, id="trip", type="task", content="Book the Kyoto trip for October; hotel pending.")
    write(
        client,
        id="chat",
        type="interaction",
        content="Alice said hello and asked about the weather.",
    )
    write(client, id="bob", scope="user:bob", content="Bob prefers black coffee, no sugar.")

    def ids(body: dict[str, Any]) -> list[str]:
        r = client.post("/v1/memories/search", json=body)
        assert r.status_code == 200, r.text
        return [hit["record"]["id"] for hit in r.json()["results"]]

    assert ids({"query": "which hot beverage does she enjoy", "scope": "user:alice"})[0] == "tea"
    assert ids({"query": "rust-toolchain.toml", "mode": "keyword"})[0] == "rust"
    assert ids({"query": "travel plans in Japan", "scope": "user:alice", "top_k": 1}) == ["trip"]
    assert "bob" not in ids({"query": "coffee", "scope": "user:alice"})
    assert set(ids({"query": "coffee", "types": ["task", "skill"]})) <= {"trip", "rust"}
    assert ids({"query": "drinks", "tags": ["drinks"]}) == ["tea"]
    hit = client.post("/v1/memories/search", json={"query": "green tea"}).json()["results"][0]
    assert hit["score"] > 0 and hit["record"]["id"] == "tea"


def test_deleted_and_expired_memories_are_not_found_by_search(
    client: TestClient, clock: FixedClock
) -> None:
    write(client, id="short", content="The staging password rotates every Monday.", ttl=60)
    write(client, id="gone", content="Alice's staging server is called orion.")
    client.delete("/v1/memories/gone?wait=true")

    def found() -> list[str]:
        r = client.post("/v1/memories/search", json={"query": "staging", "mode": "keyword"})
        return [h["record"]["id"] for h in r.json()["results"]]

    assert found() == ["short"]
    clock.advance(61)
    assert found() == []


def test_bad_input_is_a_problem_naming_the_field_and_changes_nothing(
    client: TestClient, container: Container
) -> None:
    write(client, id="keep")
    before = container.log.last_position()
    cases = [
        (memory(type="opinion"), "type"),
        (memory(content=""), "content"),
        (memory(content="x" * 20_000), "content"),
        (memory(created_at="someday"), "created_at"),
        (memory(colour="blue"), "colour"),
        (memory(scope="Alice"), "scope"),
        ({**memory(), "tags": "one,two"}, "tags"),
    ]
    for payload, field in cases:
        r = client.put("/v1/memories/keep", json=payload)
        assert 400 <= r.status_code < 500, (field, r.text)
        assert r.headers["content-type"] == PROBLEM
        problem = r.json()
        assert problem["field"] == field, problem
        assert problem["code"] and problem["detail"]
    broken = client.post(
        "/v1/memories", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 400 and broken.json()["code"] == "malformed_json"
    assert container.log.last_position() == before
    assert client.get("/v1/memories/keep").json()["content"] == memory()["content"]


def test_export_then_import_into_a_fresh_instance(client: TestClient, tmp_path: Any) -> None:
    from ai_memory.bootstrap import build
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.settings import Settings

    write(client, id="a", content="Alice's favourite editor is Helix.")
    write(client, id="b", type="task", content="Migrate the billing cron to Airflow by Friday.")
    write(client, id="c", content="Alice used to live in Auckland.")
    write(client, id="other", scope="user:bob", content="Bob's desk is on floor 3.")
    client.delete("/v1/memories/c?wait=true")
    export = client.get("/v1/export", params={"scope": "user:alice"})
    assert export.status_code == 200
    assert export.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(x) for x in export.text.splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["format"] == "ai-memory.bundle"
    assert {x["record"]["id"] for x in lines if x["kind"] == "record"} == {"a", "b"}
    assert [x["id"] for x in lines if x["kind"] == "tombstone"] == ["c"]
    assert "content" not in next(x for x in lines if x["kind"] == "tombstone")
    assert lines[-1]["kind"] == "trailer" and lines[-1]["counts"] == {"records": 2, "tombstones": 1}

    fresh = build(Settings(data_dir=tmp_path / "fresh"))
    fresh.start()
    try:
        with TestClient(create_app(fresh.services)) as other:
            first = other.post(
                "/v1/import?wait=true",
                content=export.content,
                headers={"content-type": "application/x-ndjson"},
            ).json()
            assert (first["received"], first["written"], first["tombstones_applied"]) == (3, 2, 1)
            assert first["rejected"] == 0
            assert (
                other.get("/v1/memories/a").json()["content"]
                == "Alice's favourite editor is Helix."
            )
            assert other.get("/v1/memories/c").status_code == 410
            second = other.post(
                "/v1/import?wait=true", content=export.content, headers=NDJSON_HEADERS
            ).json()
            assert second["written"] == 0 and second["unchanged"] == 3
            # A record whose id is tombstoned is never resurrected by an import.
            resurrect = json.dumps(
                {
                    "kind": "record",
                    "record": {
                        "id": "c",
                        "type": "fact",
                        "content": "Alice lives in Auckland.",
                        "scope": "user:alice",
                        "source_agent": "old-agent",
                    },
                }
            )
            third = other.post(
                "/v1/import?wait=true", content=resurrect, headers=NDJSON_HEADERS
            ).json()
            assert third["skipped_tombstoned"] == 1 and third["written"] == 0
            assert other.get("/v1/memories/c").status_code == 410
            re_export = other.get("/v1/export", params={"scope": "user:alice"}).text
            # Round trip: the same records (every field, state) and tombstones.
            assert portable(re_export) == portable(export.text)
            assert portable(re_export)[1] == [json.dumps(["c", "user:alice"])]
    finally:
        fresh.close()


def test_import_reports_every_bad_line_and_keeps_the_rest(client: TestClient) -> None:
    good = {"kind": "record", "record": memory(id="ok-1")}
    lines = [
        json.dumps({"kind": "header", "format": "ai-memory.bundle", "format_version": 1}),
        json.dumps(good),
        "{broken",
        json.dumps({"kind": "record", "record": memory(id="bad-type", type="opinion")}),
        json.dumps({"kind": "record", "record": memory(id="bad-time", created_at="soon")}),
        json.dumps({"kind": "record", "record": {**memory(id="extra"), "colour": "red"}}),
        json.dumps(memory(id="bare-ok", content="A bare record line is accepted.")),
        json.dumps({"kind": "mystery"}),
    ]
    body = ("\n".join(lines) + "\n").encode() + b"\xff\xfe bad bytes\n"
    r = client.post("/v1/import?wait=true", content=body, headers=NDJSON_HEADERS)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["received"] == 8 and report["written"] == 2 and report["rejected"] == 6
    by_line = {e["line"]: e for e in report["errors"]}
    assert by_line[3]["code"] == "malformed_json"
    assert by_line[4]["field"] == "type"
    assert by_line[5]["field"] == "created_at"
    assert by_line[6]["field"] == "colour"
    assert by_line[8]["code"] == "unknown_line_kind"
    assert by_line[9]["code"] == "invalid_utf8"
    assert client.get("/v1/memories/bare-ok").status_code == 200


def test_import_of_an_unknown_bundle_format_is_refused_whole(
    client: TestClient, container: Container
) -> None:
    before = container.log.last_position()
    body = (
        json.dumps({"kind": "header", "format": "other-tool", "format_version": 1})
        + "\n"
        + json.dumps({"kind": "record", "record": memory(id="x")})
    )
    r = client.post("/v1/import", content=body, headers=NDJSON_HEADERS)
    assert r.status_code == 422 and r.json()["code"] == "unsupported_format"
    assert container.log.last_position() == before


def test_healthz_metrics_and_openapi(client: TestClient) -> None:
    write(client)
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["lag"] == {"records": 0, "index": 0}
    metrics = client.get("/metrics").text
    assert "aimem_projection_lag_events" in metrics and "aimem_http_request_seconds" in metrics
    spec = client.get("/openapi.json").json()
    for path in (
        "/v1/memories",
        "/v1/memories/{memory_id}",
        "/v1/memories/search",
        "/v1/export",
        "/v1/import",
    ):
        assert path in spec["paths"], path
