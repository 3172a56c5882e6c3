"""The tag-digest decorator: what reaches the engine is the keyed digest of every tag,
the same whether it was computed now or remembered (``adapters.tag_digests``, the memo
shared with the sealed records view)."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import timedelta
from typing import Any

import pytest

from ai_memory.adapters import tag_digests
from ai_memory.adapters.tag_digest_index import TagDigestIndex
from ai_memory.core.projection import IndexPut
from ai_memory.core.record import MemoryRecord, MemoryState, MemoryType
from ai_memory.core.sealing import tag_digest
from tests.factories import T0, record

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


def test_the_digested_record_keeps_every_other_field() -> None:
    inner = _Inner()
    index = TagDigestIndex(inner, KEY)  # type: ignore[arg-type]
    original = record(
        "m9",
        "content",
        scope="s",
        type_=MemoryType.INTERACTION,
        source_agent="agent-z",
        created_at=T0 + timedelta(seconds=5),
        ttl=60,
        tags=("x",),
        meta={"session_id": "chat-1", "other": 2},
        schema_version=7,
    )
    index.apply([IndexPut("acme", original, MemoryState.ARCHIVED, 9)], {}, checkpoint=9)
    (sent,) = inner.applied
    session = tag_digest(KEY, "acme", "session\x00chat-1")
    expected = replace(original, tags=(tag_digest(KEY, "acme", "x"),), meta={"session_id": session})
    assert sent == IndexPut("acme", expected, MemoryState.ARCHIVED, 9)
    # Every field of the record is compared: one added later must be carried too.
    assert {f.name for f in fields(MemoryRecord)} == {
        "id",
        "type",
        "content",
        "scope",
        "source_agent",
        "created_at",
        "ttl",
        "tags",
        "meta",
        "schema_version",
    }
