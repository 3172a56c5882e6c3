"""``InProcessClient`` passes the HTTP client's own test cases (``test_sdk.py``) against a
container in this process: same models, same typed errors, same lifecycle helpers. It is
a caller like any other: with a key it is that key (a reader cannot write), without one
the open deployment's caller (or the tenant and actor it names); the async twin too."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.bootstrap import Container, build
from ai_memory.sdk import (
    ForbiddenError,
    GoneError,
    InvalidInputError,
    NotFoundError,
    UnauthenticatedError,
)
from ai_memory.sdk.in_process import AsyncInProcessClient, InProcessClient
from ai_memory.settings import Settings
from tests.integration.test_sdk import (  # the shared client cases, collected here too
    test_export_then_import_into_a_second_server,
    test_interactions_persona_episodes_lineage_and_governance,
    test_notes_round_trip,
    test_readme_two_agents_scenario,
    test_search_modes_filters_and_explanations,
    test_write_triggers_observe_and_health,
    test_write_upsert_read_and_typed_errors,
)

__all__ = [
    "test_export_then_import_into_a_second_server",
    "test_interactions_persona_episodes_lineage_and_governance",
    "test_notes_round_trip",
    "test_readme_two_agents_scenario",
    "test_search_modes_filters_and_explanations",
    "test_write_triggers_observe_and_health",
    "test_write_upsert_read_and_typed_errors",
]


@pytest.fixture(scope="module")
def container(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    c = build(Settings(data_dir=tmp_path_factory.mktemp("in-process") / "data"))
    c.start()
    yield c
    c.close()


@pytest.fixture
def memory(container: Container) -> Iterator[InProcessClient]:
    with InProcessClient(container) as client:
        yield client


def test_import_into_a_second_container(memory: InProcessClient, tmp_path: Path) -> None:
    scope = "user:in-process"
    kept = memory.write("Gil prefers tea.", scope=scope, source_agent="planner")
    gone = memory.write("Gil's door code.", scope=scope, source_agent="planner", wait=True)
    memory.delete(gone.record.id, wait=True)
    bundle = tmp_path / "bundle.ndjson"
    assert memory.export_to(bundle, scope) == 4
    other = build(Settings(data_dir=tmp_path / "other"))
    other.start()
    try:
        fresh = InProcessClient(other, actor="migrate")
        first = fresh.import_bundle(bundle, wait=True, source_name="test")
        assert (first.written, first.tombstones_applied, first.rejected) == (1, 1, 0)
        assert fresh.get(kept.record.id).content == "Gil prefers tea."
        with pytest.raises(GoneError):
            fresh.get(gone.record.id)
        assert fresh.import_bundle(bundle.read_bytes()).written == 0
        with pytest.raises(InvalidInputError) as bad:
            fresh.search("x" * 100_000)
        assert bad.value.code == "query_too_long"
    finally:
        other.close()


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    """A container with keys in force: every HTTP request needs one."""
    c = build(Settings(data_dir=tmp_path_factory.mktemp("in-process-keyed") / "data"))
    c.start()
    yield c
    c.close()


def issue(container: Container, role: str, tenant: str = "default") -> str:
    keys = container.services.keys
    assert keys is not None
    return keys.create(tenant=tenant, role=role, scopes=["*"], name=f"{tenant}-{role}").token


def test_with_a_key_the_client_is_that_key(keyed: Container) -> None:
    reader, writer = issue(keyed, "reader"), issue(keyed, "writer")
    with InProcessClient(keyed, api_key=writer) as w:
        written = w.write("Ida reads at night.", scope="user:ida", source_agent="a", wait=True)
    with InProcessClient(keyed, api_key=reader) as r:
        assert r.get(written.record.id).content == "Ida reads at night."
        with pytest.raises(ForbiddenError) as refused:
            r.write("A reader's write.", scope="user:ida", source_agent="a")
        assert refused.value.status == 403 and refused.value.code == "role_forbidden"
        with pytest.raises(ForbiddenError):
            r.delete(written.record.id)
    with pytest.raises(UnauthenticatedError):
        InProcessClient(keyed, api_key="aim_not-a-key").get(written.record.id)
    audit = InProcessClient(keyed).audit(action="written").entries
    assert audit[-1].actor.startswith("key:") and audit[-1].memory_ids == [written.record.id]


def test_without_a_key_it_is_the_open_deployments_caller(keyed: Container) -> None:
    """Keys in force or not, the embedded caller is what open mode serves: tenant
    ``default``, every scope, the actor open mode records — or the tenant and actor named."""
    issue(keyed, "admin")
    local = InProcessClient(keyed)
    mine = local.write("Jon likes maps.", scope="team:maps", source_agent="atlas", wait=True)
    assert local.audit(action="written").entries[-1].actor == "atlas"  # as open mode records
    acme = InProcessClient(keyed, tenant="acme", actor="migrate")
    theirs = acme.write("Acme's own fact.", scope="team:maps", source_agent="a", wait=True)
    with pytest.raises(NotFoundError):
        acme.get(mine.record.id)
    with pytest.raises(NotFoundError):
        local.get(theirs.record.id)
    assert [e.actor for e in acme.audit(action="written").entries] == ["migrate"]
    with pytest.raises(ValueError, match="api_key"):
        InProcessClient(keyed, api_key=issue(keyed, "writer", "acme"), tenant="acme")


def test_the_async_client_runs_over_the_same_app(keyed: Container) -> None:
    reader = issue(keyed, "reader")

    async def scenario() -> None:
        async with AsyncInProcessClient(keyed) as local:
            out = await local.write("Kim runs.", scope="user:kim", source_agent="a", wait=True)
            assert (await local.get(out.record.id)).content == "Kim runs."
            assert [m.id async for m in local.iter_memories(scope="user:kim")] == [out.record.id]
        async with AsyncInProcessClient(keyed, api_key=reader) as r:
            with pytest.raises(ForbiddenError):
                await r.write("No.", scope="user:kim", source_agent="a")

    asyncio.run(scenario())
