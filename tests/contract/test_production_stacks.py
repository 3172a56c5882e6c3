"""The contract suites against the stacks the composition root builds for production.

The adapters pass their contracts alone (``test_sqlite_event_log``, ``test_kafka_event_log``,
``test_qdrant_edge_index``); what a process runs is more: appends go through the append
pipeline (data keys, encode once, prove projectable, then the log), with encryption on
the frames are sealed, and the index stores keyed digests of tags (``TagDigestIndex``).
Here the log is the container's — read as the projections read it, appended to through
the container's pipeline, as every unit of work does — and the index is ``build_index``'s.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ai_memory.adapters.tag_digest_index import TagDigestIndex
from ai_memory.bootstrap import Container, build, build_index
from ai_memory.core.events import DomainEvent, Head, LoggedEvent, TenantPage
from ai_memory.core.ports import EncodedEvent, EventLog, Vector
from ai_memory.core.sealing import derived_key
from ai_memory.settings import Settings
from tests.contract.event_log_contract import EventLogContract
from tests.contract.test_kafka_event_log import delete_topics
from tests.contract.vector_index_contract import DIM, MakeIndex, VectorIndexContract


class ContainerLog:
    """The container's log as its appenders and readers see it: ``append`` is the
    pipeline's, everything else the log's own."""

    def __init__(self, container: Container) -> None:
        self._pipeline = container.pipeline
        self._log = container.log

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        return self._pipeline.append(events)

    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        return self._log.append_encoded(events)

    def partitions(self) -> list[int]:
        return self._log.partitions()

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        return self._log.read(after=after, limit=limit, partition=partition)

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        return self._log.read_tenant(
            tenant, after=after, limit=limit, scan=scan, partition=partition
        )

    def read_changes(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int = 0,
    ) -> TenantPage:
        return self._log.read_changes(
            tenant, scopes, after=after, limit=limit, scan=scan, partition=partition
        )

    def last_position(self, partition: int = 0) -> int:
        return self._log.last_position(partition)

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        return self._log.wait_for_events(after=after, timeout=timeout, partition=partition)

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        return self._log.heads(tenant, memory_ids)

    def writers(self) -> dict[str, Any]:
        return self._log.writers()

    def close(self) -> None:
        pass  # the container closes the log


def container_log(settings: Settings) -> Iterator[EventLog]:
    c = build(settings)
    try:
        yield ContainerLog(c)
    finally:
        c.close()


def kafka_settings(bootstrap: str, tmp_path: Path, topic: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        event_log_url=f"kafka://{bootstrap}/{topic}?partitions=3&replication_factor=1",
        record_store_url="memory://",
        index_url="memory://",
    )


class TestEmbeddedProductionLog(EventLogContract):
    """The default deployment: encryption is on."""

    shreds = True

    @pytest.fixture
    def log(self, tmp_path: Path) -> Iterator[EventLog]:
        yield from container_log(Settings(data_dir=tmp_path / "data"))


class TestEmbeddedUnencryptedProductionLog(EventLogContract):
    @pytest.fixture
    def log(self, tmp_path: Path) -> Iterator[EventLog]:
        yield from container_log(Settings(data_dir=tmp_path / "data", encryption="off"))


@pytest.fixture
def kafka_topic(kafka_bootstrap: str) -> Iterator[str]:
    topic = f"aimem-stack-{uuid.uuid4().hex[:12]}"
    yield topic
    delete_topics(kafka_bootstrap, [topic, f"{topic}.dlq", f"{topic}.heads"])


class TestKafkaProductionLog(EventLogContract):
    shreds = True

    @pytest.fixture
    def log(self, kafka_bootstrap: str, kafka_topic: str, tmp_path: Path) -> Iterator[EventLog]:
        yield from container_log(kafka_settings(kafka_bootstrap, tmp_path, kafka_topic))


class TestKafkaUnencryptedProductionLog(EventLogContract):
    @pytest.fixture
    def log(self, kafka_bootstrap: str, kafka_topic: str, tmp_path: Path) -> Iterator[EventLog]:
        settings = kafka_settings(kafka_bootstrap, tmp_path, kafka_topic)
        yield from container_log(settings.model_copy(update={"encryption": "off"}))


class ContractEmbedder:
    """The vector index contract brings its own vectors; only the name and size count."""

    name = "contract-model"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> Vector:
        raise AssertionError("the contract never embeds")


class TestProductionIndex(VectorIndexContract):
    """The embedded index as deployed (encryption on by default): Qdrant Edge behind
    ``TagDigestIndex``."""

    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        tag_key = derived_key(os.urandom(32), "index-tags")
        url = f"qdrant-edge:///{tmp_path / 'index'}"

        def make() -> TagDigestIndex:
            index = build_index(url, ContractEmbedder(), tag_key=tag_key)
            assert isinstance(index, TagDigestIndex)  # the stack under test
            return index

        yield make


class TestUnencryptedProductionIndex(VectorIndexContract):
    """The embedded index with encryption off: Qdrant Edge as ``build_index`` opens it."""

    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        yield lambda: build_index(f"qdrant-edge:///{tmp_path / 'index'}", ContractEmbedder())
