from __future__ import annotations

from ai_memory.adapters.memory import (
    MemoryDeadLetters,
    MemoryEventLog,
    MemoryRecordStore,
    MemoryVectorIndex,
)
from ai_memory.adapters.tag_digest_index import TagDigestIndex
from ai_memory.bootstrap import Container


def test_memory_urls_build_a_container_with_nothing_on_disk(container: Container) -> None:
    assert isinstance(container.log, MemoryEventLog)
    assert isinstance(container.store, MemoryRecordStore)
    index = container.index
    # With encryption on (the default) the index is wrapped: tags kept as keyed digests.
    assert isinstance(
        index.inner if isinstance(index, TagDigestIndex) else index, MemoryVectorIndex
    )
    assert isinstance(container.dead_letters, MemoryDeadLetters)
    # every projection is driven in-process: the in-memory views live in this process
    assert {t.sink.name for t in container.projections.tailers} == {"records", "index"}
    assert not container.projections.external
    assert list(container.settings.data_dir.iterdir()) == []
