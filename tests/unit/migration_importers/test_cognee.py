"""cognee COGX archives."""

from __future__ import annotations

import shutil
from pathlib import Path

from ai_memory.migration.cogx import pack_archive
from ai_memory.migration.importers import cognee

from .conftest import FIXTURES, run

ARCHIVE = FIXTURES / "cognee" / "cogx_archive"


def test_record_kinds() -> None:
    records, _, report = run(cognee.convert, ARCHIVE)
    assert records["mem0:m-1"]["record"]["type"] == "preference"
    assert records["letta:block-7"]["record"]["type"] == "skill"
    assert records["letta:block-7"]["record"]["scope"] == "agent:helper"
    turns = [records["zep:ep-9#0"]["record"], records["zep:ep-9#1"]["record"]]
    assert [t["content"] for t in turns] == [
        "user: Book dinner for Friday.",
        "assistant: Booked Green Fork at 19:00.",
    ]
    assert records["cognee:f-2"]["state"] == "historical"
    assert report.unimported["duplicate"] == 1
    assert report.unimported["system_log"] == 1


def test_malformed_line_rejected_others_import() -> None:
    records, _, report = run(cognee.convert, ARCHIVE)
    assert report.examples["rejected"][0] == {
        "source_ref": "memories.jsonl:2",
        "reason": "malformed row: record without text content",
    }
    assert len(records) == 8


def test_packed_archive_and_newer_major_version(tmp_path: Path) -> None:
    packed = pack_archive(ARCHIVE, tmp_path / "x.cogx.tar.gz")
    records, _, _ = run(cognee.convert, packed)
    assert len(records) == 8
    newer = tmp_path / "newer"
    shutil.copytree(ARCHIVE, newer)
    (newer / "manifest.json").write_text('{"cogx_version": "1.0"}')
    try:
        list(cognee.convert(newer, cognee.ImportOptions()))
    except ValueError as e:
        assert "newer than this reader" in str(e)
    else:
        raise AssertionError("expected an error")
