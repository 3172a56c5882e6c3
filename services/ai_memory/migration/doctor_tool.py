"""``doctor`` on what ``migrate`` reads: one reader per format, so the two always agree.

For a tool's artefacts (Mem0, Letta, Zep/Graphiti, LangMem/LangGraph, cognee), a bundle
or a directory, the health check runs the very converter ``migrate`` runs
(:func:`ai_memory.migration.migrate.convert_source`) and examines its output: the row
accounting, types, tombstones and refusals are exactly what the migration will see. The
content checks (secrets, context-dependent references, timestamps) then look at the
converted memories. A single generic file keeps the row-level examination of
:mod:`.doctor`, which runs the same generic importer row by row on the raw values
(needed to judge timestamp formats before normalisation).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .classify import context_references
from .doctor import (
    MAX_EXAMPLES,
    DoctorReport,
    _RedactedWriter,
    _timestamp,
    _warnings,
    note_secrets,
)
from .generic import GenericOptions
from .importers import ImportOptions, RowError
from .importers.detect import FORMATS, detect
from .secrets import iter_strings, redact
from .sources import SourceRow

# Formats ``doctor --format`` accepts: every importer, and the generic reader's file kinds.
IMPORTER_FORMATS = tuple(f for f in FORMATS if f != "auto")
_EXCERPT = 80


def shared_format(path: Path, fmt: str | None) -> tuple[str, str] | None:
    """``(format, reason)`` when ``doctor`` must use ``migrate``'s converter, else None
    (a single generic file, examined row by row). Raises RowError like ``migrate``."""
    if fmt not in (None, "auto"):
        return (fmt, "given with --format") if fmt in IMPORTER_FORMATS else None
    found = detect(path)
    if found[0] == "generic" and not path.is_dir():
        return None
    return found


def diagnose_converted(
    path: Path,
    fmt: str,
    reason: str,
    options: GenericOptions,
    *,
    scope_map: dict[str, str] | None = None,
    redact_to: Path | None = None,
) -> DoctorReport:
    """Examine what ``migrate`` would import from ``path`` (RowError when it would refuse)."""
    from .migrate import MigrationError, convert_source

    try:
        fmt, _, lines, outcome = convert_source(path, fmt, ImportOptions(scope_map=scope_map or {}))
    except MigrationError as e:
        raise RowError(str(e)) from e
    report = DoctorReport(source=str(path), format=f"{fmt} ({reason})", outcome=outcome)
    report.rows = outcome.total
    now = options.now or datetime.now(UTC)
    writer = _RedactedWriter(redact_to) if redact_to is not None else None
    try:
        if writer is not None and fmt == "bundle":
            # A redacted bundle stays a bundle: its header first, a new trailer last.
            header = _bundle_header(path)
            if header is not None:
                writer.write(SourceRow(f"{path.name}:1", header, control=True))
        for number, line in enumerate(lines, start=1):
            ref = str(line.get("source_ref") or f"{path.name}#{number}")
            if writer is not None:  # as migrate sends it: source_ref is for reports only
                writer.write(SourceRow(ref, {k: v for k, v in line.items() if k != "source_ref"}))
            if line.get("kind") == "tombstone":
                report.tombstones += 1
                continue
            _examine_record(report, ref, line["record"], options, now)
    finally:
        if writer is not None:
            writer.close()
            report.redacted_to = str(redact_to)
    report.warnings = _warnings(report, options)
    return report


def _bundle_header(path: Path) -> dict[str, Any] | None:
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline()
    try:
        value = json.loads(first)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) and value.get("kind") == "header" else None


def _examine_record(
    report: DoctorReport, ref: str, record: dict[str, Any], opts: GenericOptions, now: datetime
) -> None:
    report.types[str(record.get("type"))] += 1
    note_secrets(report, ref, list(iter_strings(record)))
    content = record.get("content")
    if isinstance(content, str):
        phrases = context_references(content)
        if phrases:
            report.context_refs += 1
            if len(report.context_examples) < MAX_EXAMPLES:
                excerpt, _ = redact(content[:_EXCERPT])
                report.context_examples.append(
                    {"ref": ref, "phrase": phrases[0], "excerpt": excerpt}
                )
    _timestamp(report, ref, record.get("created_at"), opts, now)
