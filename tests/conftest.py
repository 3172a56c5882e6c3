"""Shared fixtures: an embedded container on a temporary data dir, and an HTTP client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import settings

from ai_memory.bootstrap import Container, build
from ai_memory.settings import Settings
from tests.factories import FixedClock
from tests.servers import cassandra_contact, kafka_bootstrap

__all__ = ["cassandra_contact", "kafka_bootstrap"]

# Property tests judge results, never time: a shared 2-core box can make any example slow,
# and Hypothesis' default 200 ms deadline then fails a correct test.
settings.register_profile("ai-memory", deadline=None)
settings.load_profile("ai-memory")


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def container(tmp_path: Path, clock: FixedClock) -> Iterator[Container]:
    c = build(Settings(data_dir=tmp_path / "data"), clock=clock)
    c.start()
    yield c
    c.close()


@pytest.fixture
def client(container: Container) -> Iterator[TestClient]:
    from ai_memory.entrypoints.http.app import create_app

    with TestClient(create_app(container.services)) as c:
        yield c
