"""Helpers shared by the importer tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ai_memory.migration import Converted, SourceReport
from ai_memory.migration.importers import ImportOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "migration"


def run(
    convert: Callable[[Path, ImportOptions], Iterator[Converted]],
    path: Path,
    options: ImportOptions | None = None,
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], SourceReport]:
    """(records by id, all lines, report) of one conversion."""
    report = SourceReport()
    lines = list(report.track(convert(path, options or ImportOptions())))
    records = {line["record"]["id"]: line for line in lines if line["kind"] == "record"}
    return records, lines, report
