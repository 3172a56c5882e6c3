"""The SDK against a real server process over real HTTP: every endpoint round-trips
through ``MemoryClient`` (and ``AsyncMemoryClient``), errors arrive typed, a bundle moves
to a second server, and the two-agent scenario of docs/SDK.md works end to end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ai_memory.core.errors import Conflict, Gone, InvalidInput, NotFound
from ai_memory.sdk import (
    AsyncMemoryClient,
    ConflictError,
    GoneError,
    InvalidInputError,
    MemoryClient,
    MemoryIn,
    NotFoundError,
    end_session,
    observe,
    wake_up,
)
from tests.e2e.test_server_and_cli import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("sdk") / "data")
    yield s
    s.stop()


@pytest.fixture
def memory(server: Server) -> Iterator[MemoryClient]:
    with MemoryClient(server.url, timeout=30, retries=2) as client:
        yield client


def test_write_upsert_read_and_typed_errors(memory: MemoryClient) -> None:
    out = memory.write(
        "Bob deploys on Fridays only after the release checklist.",
        type="preference",
        scope="user:bob",
        source_agent="planner",
        tags=["deploy"],
        meta={"source": "test"},
        created_at="2024-03-12 09:30:00",
        wait=True,
    )
    assert out.created and out.record.version == 1
    assert out.record.created_at == "2024-03-12T09:30:00Z"
    memory_id = out.record.id
    got = memory.get(memory_id, min_position=out.position)
    assert got.content.startswith("Bob deploys") and got.tags == ["deploy"]

    record = MemoryIn.model_validate(
        {
            "type": "preference",
            "scope": "user:bob",
            "source_agent": "planner",
            "content": got.content,
            "tags": ["deploy"],
            "meta": {"source": "test"},
        }
    )
    same = memory.upsert(memory_id, record)
    assert not same.created and not same.changed and same.record.version == 1
    changed = memory.upsert(memory_id, record.model_copy(update={"content": "Bob deploys daily."}))
    assert changed.changed and changed.record.version == 2

    created = memory.create(
        MemoryIn.model_validate(
            {
                "type": "fact",
                "content": "Bob owns the billing service.",
                "scope": "user:bob",
                "source_agent": "planner",
            }
        ),
        wait=True,
    )
    assert created.created and created.record.id

    with pytest.raises(NotFoundError) as missing:
        memory.get("never-was")
    assert missing.value.status == 404 and missing.value.code == "memory_not_found"
    assert isinstance(missing.value, NotFound)

    moved = record.model_copy(update={"scope": "user:carol"})
    with pytest.raises(ConflictError) as conflict:
        memory.upsert(memory_id, moved)
    assert conflict.value.code == "scope_immutable" and isinstance(conflict.value, Conflict)

    with pytest.raises(InvalidInputError) as invalid:
        memory.write("x", scope="Not A Scope", source_agent="planner")
    assert invalid.value.status == 422 and invalid.value.field == "scope"
    assert isinstance(invalid.value, InvalidInput) and invalid.value.rule == "scope_format"

    deleted = memory.delete(memory_id, reason="test", wait=True)
    assert deleted.forgotten and not deleted.already_forgotten
    assert memory.delete(memory_id).already_forgotten
    with pytest.raises(GoneError) as gone:
        memory.get(memory_id)
    assert gone.value.status == 410 and gone.value.code == "memory_forgotten"
    assert isinstance(gone.value, Gone)
    with pytest.raises(GoneError):
        memory.upsert(memory_id, record)


def test_search_modes_filters_and_explanations(memory: MemoryClient) -> None:
    scope = "team:search-test"
    for kind, text in [
        ("skill", "When Kafka consumers lag, check max.poll.records before adding partitions."),
        ("task", "Migrate the nightly billing job to Airflow; blocked on credentials."),
        ("preference", "The team prefers short design docs with a decision log."),
    ]:
        memory.write(text, type=kind, scope=scope, source_agent="planner", tags=[kind], wait=True)

    hybrid = memory.search("consumer lag kafka", scope=scope, top_k=3)
    top = hybrid.results[0]
    assert top.record.type == "skill"
    assert top.explanation is not None and top.components
    keyword = memory.search("max.poll.records", scope=scope, mode="keyword", rerank=False)
    assert keyword.results[0].record.type == "skill" and keyword.results[0].explanation is None
    only_tasks = memory.search("billing", scope=scope, types=["task"], tags=["task"])
    assert [h.record.type for h in only_tasks.results] == ["task"]
    history = memory.search(
        "billing", scope=scope, states=["historical", "archived"], as_of="2030-01-01"
    )
    assert history.results == [] or all(h.record.scope == scope for h in history.results)
    with pytest.raises(InvalidInputError) as bad:
        memory.search("x", top_k=1000)
    assert bad.value.field == "top_k"


def test_export_then_import_into_a_second_server(memory: MemoryClient, tmp_path: Path) -> None:
    scope = "user:export-test"
    kept = memory.write("Dana writes Rust at work.", scope=scope, source_agent="planner")
    dropped = memory.write("Dana lives in Oslo.", scope=scope, source_agent="planner", wait=True)
    memory.delete(dropped.record.id, wait=True)

    lines = list(memory.export_lines(scope))
    kinds = [json.loads(line)["kind"] for line in lines]
    assert kinds == ["header", "record", "tombstone", "trailer"]
    bundle = tmp_path / "bundle.ndjson"
    assert memory.export_to(bundle, [scope]) == 4

    other = Server(tmp_path / "other")
    try:
        with MemoryClient(other.url) as fresh:
            first = fresh.import_bundle(bundle, wait=True)
            assert (first.written, first.tombstones_applied, first.rejected) == (1, 1, 0)
            assert fresh.get(kept.record.id).content == "Dana writes Rust at work."
            with pytest.raises(GoneError):
                fresh.get(dropped.record.id)
            again = fresh.import_bundle(bundle.read_bytes())
            assert (again.written, again.unchanged, again.rejected) == (0, 2, 0)
            bare = fresh.import_bundle(
                [
                    {"type": "fact", "scope": scope, "source_agent": "x", "content": "Bare line."},
                    "{not json",
                ],
                wait=True,
            )
            assert bare.written == 1 and bare.rejected == 1 and bare.errors[0].line == 2
            assert fresh.import_bundle(iter(lines)).written == 0
    finally:
        other.stop()


def test_notes_round_trip(memory: MemoryClient) -> None:
    saved = memory.save_note("coder", "neo, jobs", "neo asked about the batch jobs; owe an answer")
    assert saved.status == "created" and saved.topic == ["neo", "jobs"]
    replaced = memory.save_note("coder", ["neo", "jobs"], "updated note")
    assert replaced.status == "replaced" and replaced.id == saved.id
    page = memory.recall_notes("coder", "neo")
    assert page.topic_notes[0].note == "updated note" and page.topic_notes[0].why.tier == 1
    assert [t.topic for t in page.your_topics] == [["neo", "jobs"]]
    assert memory.save_note("coder", "neo jobs", "off").status == "deleted"


def test_interactions_persona_episodes_lineage_and_governance(memory: MemoryClient) -> None:
    scope = "user:erin"
    first = memory.record_interaction(
        "I live in Auckland.", scope=scope, source_agent="chat", session_id="s1", wait=True
    )
    assert [m["slot"] for m in first.memories] == ["fact/residence"]
    second = memory.record_interaction(
        "Now I live in Tokyo.", scope=scope, source_agent="chat", session_id="s2", wait=True
    )
    persona = memory.persona(scope)
    assert [f["content"] for f in persona.facts] == ["Now I live in Tokyo."]
    sessions = {e.session_id for e in memory.episodes(scope).episodes}
    assert sessions == {"s1", "s2"}
    old = memory.lineage(first.memories[0]["id"])
    assert old.state in ("historical", "archived")
    assert old.superseded_by == [second.memories[0]["id"]]
    assert memory.run_governance(wait=True).transitions is not None
    with pytest.raises(NotFoundError):
        memory.lineage("never-was")


def test_write_triggers_observe_and_health(memory: MemoryClient) -> None:
    advice = memory.write_triggers("From now on, always answer in bullet points.")
    assert [s.trigger for s in advice.suggestions] == ["explicit_preference"]
    assert memory.write_triggers("What time is it?").suggestions == []

    seen = observe(memory, "From now on, always answer in bullet points.", "user:fay", "chat")
    assert [w.record.type for w in seen.written] == ["preference"]
    again = observe(memory, "From now on, always answer in bullet points.", "user:fay", "chat")
    assert again.written[0].record.id == seen.written[0].record.id and not again.written[0].changed
    closed = observe(memory, "The task is done, shipped it.", "user:fay", "chat", record_turn=True)
    assert [p.trigger for p in closed.pending] == ["task_closed"] and closed.interaction
    health = memory.health()
    assert health.status == "ok" and health.projections and health.embedder


def test_async_client_round_trip(server: Server, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with AsyncMemoryClient(server.url) as client:
            out = await client.write(
                "Gus prefers dark mode.",
                type="preference",
                scope="user:gus",
                source_agent="ui",
                wait=True,
            )
            assert (await client.get(out.record.id)).content == "Gus prefers dark mode."
            hits = await client.search("dark mode", scope="user:gus")
            assert hits.results[0].record.id == out.record.id
            lines = [line async for line in client.export_lines("user:gus")]
            assert len(lines) == 3
            assert await client.export_to(tmp_path / "gus.ndjson", "user:gus") == 3
            report = await client.import_bundle(lines)
            assert report.unchanged == 1

            async def stream() -> AsyncIterator[str]:
                for line in lines:
                    yield line

            assert (await client.import_bundle(stream())).unchanged == 1
            await client.delete(out.record.id, wait=True)
            with pytest.raises(GoneError):
                await client.get(out.record.id)
            assert (await client.health()).status == "ok"

    asyncio.run(scenario())


def test_readme_two_agents_scenario(memory: MemoryClient) -> None:
    """Agent A (planner) writes preferences and ends its session; agent B (coder) wakes
    up on a task and is told what A learned."""
    scope = "user:alice"
    memory.write(
        "Alice prefers answers as short bullet lists, no tables.",
        type="preference",
        scope=scope,
        source_agent="planner",
        wait=True,
    )
    memory.write(
        "Alice wants Python examples typed and tested with pytest.",
        type="preference",
        scope=scope,
        source_agent="planner",
        wait=True,
    )
    summary = end_session(
        memory,
        ["Plan the landing page refactor.", "Agreed: split hero and pricing components."],
        scope,
        "planner",
    )
    assert summary is not None and summary.record.type == "interaction"

    block = wake_up(memory, "write python code for the landing page", scope, k=5)
    assert block.startswith("## What you remember (user:alice)")
    assert "typed and tested with pytest" in block and "short bullet lists" in block
    assert "(planner," in block
    tight = wake_up(memory, "landing page", scope, budget_tokens=40, k=3)
    from ai_memory.sdk import estimate_tokens

    assert 0 < estimate_tokens(tight) <= 40


def test_ids_with_percent_escapes_read_back(memory: MemoryClient) -> None:
    """Over real HTTP (uvicorn) a path is decoded once: an id spelling "%00" or "%2F" is
    that text, never a NUL or a slash."""
    for memory_id in ("m-abc%00", "m-%2F-slash", "m-100%25"):
        memory.write(
            f"A memory whose id is {memory_id}.",
            scope="user:pct",
            source_agent="t",
            id=memory_id,
            wait=True,
        )
        assert memory.get(memory_id).id == memory_id
