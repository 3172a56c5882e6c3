"""A whole container on the in-memory adapters (``memory://``): the service layer is
tested through its Python API, with in-process projections and a hand-moved clock.

One container per test module (stopping its projection threads takes a second, most of
the time this folder would otherwise spend); each test writes as its own tenant, and
tenants are isolated by every port, so tests cannot see each other's memories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.embedders import StaticEmbedder
from ai_memory.bootstrap import Container, build
from ai_memory.core.ports import Embedder
from ai_memory.settings import Settings
from tests.factories import FixedClock

MEMORY = "memory://"


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return StaticEmbedder()  # loaded once: it is immutable


@pytest.fixture(scope="module")
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def tenant(request: pytest.FixtureRequest) -> str:
    return f"t-{request.node.name.replace('_', '-')}"[:60]


def memory_container(data_dir: Path, clock: FixedClock, embedder: Embedder) -> Container:
    settings = Settings(
        data_dir=data_dir, event_log_url=MEMORY, record_store_url=MEMORY, index_url=MEMORY
    )
    return build(settings, clock=clock, embedder=embedder)


@pytest.fixture(scope="module")
def container(
    tmp_path_factory: pytest.TempPathFactory, clock: FixedClock, embedder: Embedder
) -> Iterator[Container]:
    c = memory_container(tmp_path_factory.mktemp("data"), clock, embedder)
    c.start()
    yield c
    c.close()
