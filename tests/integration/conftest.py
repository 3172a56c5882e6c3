"""Fixtures of the SDK parity tests: one ``ai-memory serve`` process and one embedded
container per test module, and ``sdk_memory``, the same cases run through
``MemoryClient`` (HTTP) and ``InProcessClient``. Named ``sdk_*`` so they never shadow
the suite's ``container`` (a fresh one per test, on a fixed clock)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ai_memory.bootstrap import Container, build
from ai_memory.sdk import MemoryClient
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.settings import Settings
from tests.e2e.test_server_and_cli import Server


def _name(request: pytest.FixtureRequest) -> str:
    return request.module.__name__.rsplit(".", 1)[-1]


@pytest.fixture(scope="module")
def sdk_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp(f"server-{_name(request)}") / "data")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def sdk_container(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Container]:
    c = build(Settings(data_dir=tmp_path_factory.mktemp(f"in-process-{_name(request)}") / "data"))
    c.start()
    yield c
    c.close()


@pytest.fixture(params=["http", "in_process"])
def sdk_memory(
    request: pytest.FixtureRequest, sdk_server: Server, sdk_container: Container
) -> Iterator[MemoryClient]:
    if request.param == "http":
        with MemoryClient(sdk_server.url, timeout=30, retries=2) as http:
            yield http
    else:
        with InProcessClient(sdk_container) as local:
            yield local
