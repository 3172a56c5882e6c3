"""The tag-digest decorator: what reaches the engine is the keyed digest of every tag,
the same whether it was computed now or remembered (``adapters.tag_digests``, the memo
shared with the sealed records view)."""

from __future__ import annotations

from typing import Any

import pytest

from ai_memory.adapters import tag_digests
from ai_memory.adapters.tag_digest_index import TagDigestIndex
from ai_memory.core.projection import IndexPut
from ai_memory.core.record import MemoryState
from ai_memory.core.sealing import tag_digest
from tests.factories import record

KEY = b"k" * 32


class _Inner:
    def __init__(self) -> None:
        self.applied: list[Any] = []

    def apply(self, mutations: Any, vectors: Any, *, checkpoint: int, partition: int = 0) -> None:
        self.applied.extend(mutations)


def _put(tenant: str, tags: tuple[str, ...], position: int) -> IndexPut:
    return IndexPut(tenant, record(tags=tags), MemoryState.ACTIVE, position)


@pytest.mark.parametrize("bound", [1, 2, 1 << 16])
def test_every_tag_reaches_the_engine_as_its_digest(
    monkeypatch: pytest.MonkeyPatch, bound: int
) -> None:
    monkeypatch.setattr(tag_digests, "_MEMO", bound)  # full at once, or never
    inner = _Inner()
    index = TagDigestIndex(inner, KEY)  # type: ignore[arg-type]
    puts = [
        _put("acme", ("a", "b"), 1),
        _put("globex", ("a", "b"), 2),  # same tags, another tenant: other digests
        _put("acme", ("b", "c", "a"), 3),
    ] * 2
    index.apply(puts, {}, checkpoint=6)
    for put, sent in zip(puts, inner.applied, strict=True):
        assert sent.record.tags == tuple(tag_digest(KEY, put.tenant, t) for t in put.record.tags)
    assert inner.applied[0].record.tags != inner.applied[1].record.tags
    assert len(index._memo._known) <= bound
