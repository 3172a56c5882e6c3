"""``InProcessClient`` passes the HTTP client's own test cases (``test_sdk.py``) against a
container in this process: same models, same typed errors, same lifecycle helpers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.bootstrap import Container, build
from ai_memory.sdk import GoneError, InvalidInputError
from ai_memory.sdk.in_process import InProcessClient
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
