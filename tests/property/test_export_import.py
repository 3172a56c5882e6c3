"""Any accepted memory survives a migration: exported from one instance as a bundle and
imported into another, it is written without a rejection and reads back the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai_memory.bootstrap import Container, build
from ai_memory.service.transfer import ImportSession, export_lines
from ai_memory.settings import Settings
from tests.factories import FixedClock, writing_of
from tests.strategies import record_bodies

TENANT = "default"


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Container]:
    c = build(Settings(data_dir=tmp_path / "target"), clock=FixedClock())
    c.start()
    yield c
    c.close()


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(bodies=st.lists(record_bodies(), min_size=1, max_size=4))
def test_accepted_memories_survive_export_and_import(
    container: Container, target: Container, bodies: list[dict[str, Any]]
) -> None:
    written = [container.service.write(TENANT, body, wait=True).record for body in bodies]
    scopes = sorted({r.scope for r in written})
    lines = list(export_lines(container.service.store, container.service.clock, TENANT, scopes))

    session = ImportSession(writing_of(target.service), TENANT)
    session.feed(list(enumerate(lines, start=1)))
    report = session.finish(wait=True)
    assert (report.rejected, report.errors) == (0, [])
    assert report.written == len(written)
    for record in written:
        assert target.service.get(TENANT, record.id).record == record
