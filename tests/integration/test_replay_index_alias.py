"""`ai-memory replay --projection index` on a Qdrant server index: the log is replayed into
a new collection generation and the alias switched, with the same search results."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from ai_memory.adapters.qdrant_server_index import QdrantServerIndex
from ai_memory.adapters.tag_digest_index import TagDigestIndex
from ai_memory.bootstrap import build
from ai_memory.entrypoints.cli.main import app
from ai_memory.service.memory_service import SearchRequest
from ai_memory.settings import Settings

TEXTS = [
    "Alice prefers green tea over coffee.",
    "Pin the Rust toolchain to stop flaky builds.",
    "Book the Kyoto trip for October.",
    "The deploy checklist lives in the ops wiki.",
]


def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", index_url=f"qdrant+local:///{tmp_path / 'qdrant'}")


def search_ids(tmp_path: Path) -> tuple[str, list[list[str]]]:
    c = build(settings(tmp_path))
    try:
        # With encryption on the index is wrapped (tags kept as keyed digests).
        index = c.index.inner if isinstance(c.index, TagDigestIndex) else c.index
        assert isinstance(index, QdrantServerIndex)
        found = [
            [h.stored.record.id for h in c.service.search("default", SearchRequest(q, top_k=3))]
            for q in ("what does alice drink", "rust builds", "travel to japan")
        ]
        return index.collection, found
    finally:
        c.close()


def test_replay_switches_the_alias_to_a_new_generation(tmp_path: Path) -> None:
    c = build(settings(tmp_path))
    c.start()
    for i, text in enumerate(TEXTS):
        c.service.write(
            "default",
            {
                "id": f"m{i}",
                "type": "fact",
                "content": text,
                "scope": "user:alice",
                "source_agent": "a",
            },
            wait=True,
        )
    c.service.delete("default", "m3", actor="test", wait=True)
    c.close()
    before_collection, before = search_ids(tmp_path)

    env = {
        "AIMEM_DATA_DIR": str(tmp_path / "data"),
        "AIMEM_INDEX": f"qdrant+local:///{tmp_path / 'qdrant'}",
    }
    result = CliRunner().invoke(app, ["replay", "--projection", "index"], env={**os.environ, **env})
    assert result.exit_code == 0, result.output
    assert "index: " in result.output and "events/s" in result.output

    after_collection, after = search_ids(tmp_path)
    assert after_collection != before_collection  # a new generation behind the same alias
    assert after == before
    assert all("m3" not in ids for ids in after)
