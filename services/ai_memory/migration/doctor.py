"""``ai-memory doctor``: a health check of a memory dump before it is migrated (docs/CLI.md).

For any source the generic importer reads (NDJSON bundle, JSON, JSONL, CSV, SQLite) the
report covers the four checks of a pre-migration health check, plus what the importer
would do with each row:

1. **type distribution** of the memories, with warnings for skewed mixes (interaction
   > 80 %, any one type > 80 %, no preferences at all);
2. **secrets and personal data** (API keys/tokens, private IPs, phone numbers, e-mail
   addresses) with counts and masked examples; ``redact_to`` writes a redacted copy;
3. **context-dependent references** ("that thing", "the plan we discussed", "上次那个");
4. **timestamps**: formats seen (Unix s / ms, naive, ISO with offset), missing,
   unparseable, before 1990, in the future, mixed units;

and duplicates, system-log rows, vector-only rows and rows that would be rejected.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ai_memory.core.bundle import dumps, trailer_line
from ai_memory.core.errors import InvalidInput

from . import SourceReport, Unimported
from .classify import context_references
from .generic import GenericImporter, GenericOptions, normalize_timestamp, timestamp_kind
from .secrets import iter_strings, mask, redact, scan
from .sources import SourceRow, detect_format, read_rows

MAX_EXAMPLES = 5
SKEW_SHARE = 0.8
_EXCERPT = 80


@dataclass
class DoctorReport:
    """Everything ``doctor`` found; ``to_json`` is the ``--json`` output."""

    source: str
    format: str
    rows: int = 0
    outcome: SourceReport = field(default_factory=SourceReport)
    types: Counter[str] = field(default_factory=Counter)
    tombstones: int = 0
    secrets: Counter[str] = field(default_factory=Counter)
    secret_rows: int = 0
    secret_examples: dict[str, list[str]] = field(default_factory=dict)
    context_refs: int = 0
    context_examples: list[dict[str, str]] = field(default_factory=list)
    timestamps: Counter[str] = field(default_factory=Counter)
    timestamp_examples: dict[str, list[str]] = field(default_factory=dict)
    vector_columns: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    redacted_to: str | None = None

    @property
    def memories(self) -> int:
        """Rows that would become records."""
        return sum(self.types.values())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form of the report."""
        return {
            "source": self.source,
            "format": self.format,
            "rows": self.rows,
            "memories": self.memories,
            "types": dict(self.types),
            "tombstones": self.tombstones,
            "outcome": self.outcome.to_json(),
            "secrets": {
                "rows": self.secret_rows,
                "counts": dict(self.secrets),
                "examples": self.secret_examples,
            },
            "context_references": {"rows": self.context_refs, "examples": self.context_examples},
            "timestamps": {
                "counts": dict(self.timestamps),
                "examples": self.timestamp_examples,
            },
            "vector_columns": dict(self.vector_columns),
            "warnings": self.warnings,
            "redacted_to": self.redacted_to,
        }


def diagnose(
    path: Path,
    options: GenericOptions | None = None,
    *,
    fmt: str | None = None,
    table: str | None = None,
    redact_to: Path | None = None,
) -> DoctorReport:
    """Examine every row of ``path``; optionally write a redacted copy to ``redact_to``."""
    opts = options or GenericOptions()
    kind = fmt or detect_format(path)
    report = DoctorReport(source=str(path), format=kind)
    report.outcome.source = path.name
    importer = GenericImporter(opts)
    now = opts.now or datetime.now(UTC)
    writer = _RedactedWriter(redact_to) if redact_to is not None else None
    try:
        for row in read_rows(path, fmt=kind, table=table):
            if writer is not None:
                writer.write(row)
            if row.control:
                continue
            report.rows += 1
            _examine(report, importer, row, opts, now)
    finally:
        if writer is not None:
            writer.close()
            report.redacted_to = str(redact_to)
    report.outcome.notes.update(importer.notes)
    report.warnings = _warnings(report, opts)
    return report


def _examine(
    report: DoctorReport,
    importer: GenericImporter,
    row: SourceRow,
    opts: GenericOptions,
    now: datetime,
) -> None:
    item = importer.convert_row(row)
    report.outcome.add(item)
    if row.data is None:
        return
    if not isinstance(item, Unimported):
        if item.get("kind") == "tombstone":
            report.tombstones += 1
            return
        report.types[str(item["record"].get("type"))] += 1
    inner = row.data.get("record")
    data: dict[str, Any] = inner if isinstance(inner, dict) else row.data
    view = importer.reader.view(row.ref, data)
    for column in view.vectors:
        report.vector_columns[column] += 1
    note_secrets(
        report,
        row.ref,
        [s for c, v in data.items() if c not in view.vectors for s in iter_strings(v)],
    )
    content = view.get("content")
    if isinstance(content, str) and not isinstance(item, Unimported):
        phrases = context_references(content)
        if phrases:
            report.context_refs += 1
            if len(report.context_examples) < MAX_EXAMPLES:
                excerpt, _ = redact(content[:_EXCERPT])
                report.context_examples.append(
                    {"ref": row.ref, "phrase": phrases[0], "excerpt": excerpt}
                )
    _timestamp(report, row.ref, view.get("created_at"), opts, now)


def _timestamp(
    report: DoctorReport, ref: str, value: object, opts: GenericOptions, now: datetime
) -> None:
    if value is None:
        report.timestamps["missing"] += 1
        return
    report.timestamps[timestamp_kind(value)] += 1
    try:
        normalize_timestamp(value, naive_tz=opts.naive_tz, now=now)
    except InvalidInput as e:
        problem = (
            "future"
            if "future" in e.message
            else "before_1990"
            if "1990" in e.message
            else "unparseable"
        )
        report.timestamps[problem] += 1
        bucket = report.timestamp_examples.setdefault(problem, [])
        if len(bucket) < MAX_EXAMPLES:
            bucket.append(f"{ref}: {value!r}")


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%"


def _warnings(r: DoctorReport, opts: GenericOptions) -> list[str]:
    out: list[str] = []
    total = r.memories
    if total:
        top, count = r.types.most_common(1)[0]
        if top == "interaction" and count / total > SKEW_SHARE:
            out.append(
                f"interaction is {_share(count, total)} of memories: mostly conversation "
                "traces; distil preferences, tasks and lessons before migrating"
            )
        elif count / total > SKEW_SHARE:
            out.append(f"skewed mix: {top} is {_share(count, total)} of memories")
        if not r.types.get("preference"):
            out.append("no preferences at all: the old agent may never have recorded any")
    unimported = r.outcome.unimported
    if unimported["system_log"]:
        out.append(
            f"{unimported['system_log']} rows are system logs mixed with memories; "
            "they will not be imported"
        )
    if r.secret_rows:
        kinds = ", ".join(f"{k} {n}" for k, n in r.secrets.most_common())
        out.append(f"{r.secret_rows} rows hold secrets or personal data ({kinds}); use --redact")
    if r.context_refs:
        out.append(
            f"{r.context_refs} memories lean on context the new agent will not have "
            "(e.g. 'that thing', '上次那个'); rewrite them as self-contained text"
        )
    ts = r.timestamps
    if ts["unix_s"] and ts["unix_ms"]:
        out.append(f"mixed Unix units: {ts['unix_s']} in seconds, {ts['unix_ms']} in milliseconds")
    if ts["naive"] or ts["date"]:
        out.append(
            f"{ts['naive'] + ts['date']} timestamps carry no timezone; they are read as "
            f"{opts.naive_tz} (set --tz)"
        )
    for problem in ("unparseable", "before_1990", "future"):
        if ts[problem]:
            out.append(f"{ts[problem]} timestamps are {problem.replace('_', ' ')}")
    if ts["missing"]:
        out.append(f"{ts['missing']} rows have no timestamp; the import time will be used")
    if unimported["duplicate"]:
        out.append(f"{unimported['duplicate']} duplicate rows (same memory twice)")
    if r.vector_columns:
        out.append(
            f"vector columns ({', '.join(r.vector_columns)}) are ignored; "
            "content is re-embedded by the server"
        )
    if unimported["rejected"]:
        out.append(f"{unimported['rejected']} rows would be rejected (see outcome.examples)")
    return out


class _RedactedWriter:
    """A redacted copy: bundles stay bundles (new trailer), anything else becomes JSONL."""

    def __init__(self, path: Path) -> None:
        self._file: IO[str] = path.open("w", encoding="utf-8")
        self._digest = hashlib.sha256()
        self._counts: Counter[str] = Counter()
        self._bundle = False

    def write(self, row: SourceRow) -> None:
        if row.data is None:
            return
        kind = row.data.get("kind")
        if kind == "trailer":
            return
        if kind == "header":
            self._bundle = True
        if kind in ("record", "tombstone"):
            self._counts[str(kind)] += 1
        self._emit(dumps(_redact_value(row.data)))

    def _emit(self, line: str) -> None:
        self._digest.update(line.encode("utf-8") + b"\n")
        self._file.write(line + "\n")

    def close(self) -> None:
        if self._bundle:
            self._file.write(
                trailer_line(
                    records=self._counts["record"],
                    tombstones=self._counts["tombstone"],
                    sha256=self._digest.hexdigest(),
                )
                + "\n"
            )
        self._file.close()


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)[0]
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items() if not _is_binary(v)}
    if isinstance(value, list):
        return [_redact_value(v) for v in value]
    return value


def _is_binary(value: object) -> bool:
    return isinstance(value, bytes | bytearray | memoryview)


def note_secrets(report: DoctorReport, ref: str, strings: list[str]) -> None:
    """Count the secrets found in one row's strings, keeping a few masked examples."""
    findings = [f for s in strings for f in scan(s)]
    if findings:
        report.secret_rows += 1
    for finding in findings:
        report.secrets[finding.kind] += 1
        bucket = report.secret_examples.setdefault(finding.kind, [])
        if len(bucket) < MAX_EXAMPLES:
            bucket.append(f"{ref}: {mask(finding)}")
