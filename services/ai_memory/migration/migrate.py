"""One-command migration: doctor → convert → import → verify.

``migrate(source, to=...)`` recognises (or is told) the source format, checks it
(doctor: type distribution, timestamps, what will not be imported), converts it with the
matching importer, imports the bundle lines into the target — a running server when
``to`` is an ``http(s)://`` URL, else an embedded container on that data directory — and
runs the five checks of :mod:`.verify`. The report accounts for every source row:
converted and then written / unchanged / skipped because forgotten / rejected by the
target, or not imported with a category and reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ai_memory.core.bundle import dumps, parse_line
from ai_memory.core.errors import InvalidInput
from ai_memory.migration import Converted, SourceReport, Unimported
from ai_memory.migration.generic import GenericImporter, GenericOptions, convert_file
from ai_memory.sdk import ApiError, ImportOut, MemoryClient
from ai_memory.sdk._wire import ImportSource
from ai_memory.service.transfer import derived_id

from .importers import ImportOptions, RowError
from .importers.detect import FORMATS, IMPORTERS, detect
from .verify import CheckResult, ClientTarget, Target, verify

BATCH = 500
Progress = Callable[[str, int, int], None]  # (stage, done, total)


class MigrationError(Exception):
    """The migration cannot start (unknown format, unreadable source, bad target)."""


# What the import report says happened to each line it received.
IMPORT_OUTCOMES = (
    "written",
    "unchanged",
    "stale",
    "skipped_tombstoned",
    "tombstones_applied",
    "rejected",
)


@dataclass
class MigrationReport:
    """Everything the migration did, JSON-ready via :meth:`to_json`."""

    source: str
    format: str
    format_reason: str
    target: str
    dry_run: bool
    doctor: dict[str, Any] = field(default_factory=dict)
    converted: SourceReport = field(default_factory=SourceReport)
    imported: dict[str, Any] = field(default_factory=dict)
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every check passed (a dry run has no checks)."""
        return all(c.passed for c in self.checks)

    def accounting(self) -> dict[str, Any]:
        """Every input item: converted (then each import outcome) or not imported."""
        received = int(self.imported.get("received", 0))
        outcomes = sum(int(self.imported.get(k, 0)) for k in IMPORT_OUTCOMES)
        converted = sum(self.converted.converted.values())
        return {
            "source_items": self.converted.total,
            "converted": converted,
            "not_imported": {k: v for k, v in self.converted.unimported.items() if v},
            "import_outcomes": {k: self.imported.get(k, 0) for k in IMPORT_OUTCOMES},
            "balanced": self.dry_run or (received == converted and outcomes == received),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole report."""
        return {
            "source": self.source,
            "format": self.format,
            "format_reason": self.format_reason,
            "target": self.target,
            "dry_run": self.dry_run,
            "doctor": self.doctor,
            "conversion": self.converted.to_json(),
            "import": self.imported,
            "accounting": self.accounting(),
            "checks": [c.to_json() for c in self.checks],
            "ok": self.ok,
        }


def _bundle(path: Path, options: ImportOptions) -> Iterator[Converted]:
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                line = parse_line(text)
            except InvalidInput as e:
                yield Unimported(f"{path.name}:{number}", "rejected", e.message)
                continue
            if line.kind in ("record", "tombstone"):
                yield _map_scope(line.body, options)


GENERIC_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".db", ".sqlite", ".sqlite3")


def _generic(path: Path, options: ImportOptions) -> Iterator[Converted]:
    """The generic importer (JSON / JSONL / CSV / SQLite rows), scopes mapped after. A
    directory is one export split over files of mixed formats: every file in it is read
    (in name order) and rows duplicated across files are recognised as duplicates."""
    generic_options = GenericOptions(default_scope=options.default_scope)
    files = (
        sorted(p for p in path.iterdir() if p.suffix.lower() in GENERIC_SUFFIXES)
        if path.is_dir()
        else [path]
    )
    importer = GenericImporter(generic_options)
    for file in files:
        for item in convert_file(file, generic_options, importer=importer):
            yield _map_scope(item, options)


def _map_scope(item: Converted, options: ImportOptions) -> Converted:
    if isinstance(item, Unimported) or not options.scope_map:
        return item
    if item.get("kind") == "tombstone":
        return {**item, "scope": options.scope(str(item["scope"]))}
    record = dict(item["record"])
    if isinstance(record.get("scope"), str):
        record["scope"] = options.scope(record["scope"])
    return {**item, "record": record}


def converter(fmt: str) -> Callable[[Path, ImportOptions], Iterator[Converted]]:
    """The importer function of a format name."""
    if fmt == "bundle":
        return _bundle
    if fmt == "generic":
        return _generic
    try:
        return IMPORTERS[fmt]
    except KeyError as e:
        raise MigrationError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}") from e


def convert_source(
    source: Path, fmt: str, options: ImportOptions
) -> tuple[str, str, list[dict[str, Any]], SourceReport]:
    """``(format, reason, bundle line dicts, report)``; raises MigrationError when the
    source as a whole cannot be read (a bad row only becomes a rejected row)."""
    try:
        fmt, reason = detect(source) if fmt == "auto" else (fmt, "given with --format")
        report = SourceReport(source=f"{fmt}:{source}")
        lines = [_with_id(line) for line in report.track(converter(fmt)(source, options))]
    except RowError as e:
        raise MigrationError(str(e)) from e
    return fmt, reason, lines, report


def _with_id(line: dict[str, Any]) -> dict[str, Any]:
    """Give an id-less record the id the import will derive, so verification can read it."""
    if line.get("kind") != "record" or line["record"].get("id") is not None:
        return line
    return {**line, "record": {**line["record"], "id": derived_id(line["record"])}}


def doctor(lines: list[dict[str, Any]], report: SourceReport) -> dict[str, Any]:
    """The doctor's check-up of the converted source: type mix, timestamps, warnings."""
    records = [line["record"] for line in lines if line.get("kind") == "record"]
    types = Counter(str(r.get("type")) for r in records)
    untimed = sum(1 for r in records if not r.get("created_at"))
    warnings: list[str] = []
    if records and types["interaction"] / len(records) > 0.9:
        warnings.append("over 90% of the memories are interactions: little distilled knowledge")
    if records and not types["preference"]:
        warnings.append("no preferences found: check the type mapping of this source")
    if untimed:
        warnings.append(f"{untimed} records have no timestamp and will be dated at import time")
    if report.unimported.get("rejected"):
        warnings.append(f"{report.unimported['rejected']} source rows are malformed (see examples)")
    return {
        "records": len(records),
        "tombstones": sum(1 for line in lines if line.get("kind") == "tombstone"),
        "types": dict(types),
        "scopes": len({r.get("scope") for r in records}),
        "without_timestamp": untimed,
        "warnings": warnings,
    }


def _wire(line: dict[str, Any]) -> str:
    """A bundle line as sent: ``source_ref`` is for this report only, not the bundle."""
    return dumps({k: v for k, v in line.items() if k != "source_ref"})


class Importer(Protocol):
    """The import call of the SDK client (``MemoryClient`` or ``InProcessClient``)."""

    def import_bundle(
        self, source: ImportSource, *, wait: bool = False, source_name: str | None = None
    ) -> ImportOut: ...


def import_lines(
    client: Importer, lines: list[dict[str, Any]], fmt: str, progress: Progress | None
) -> dict[str, Any]:
    """Import the bundle lines through the client and return its report (JSON)."""

    def body() -> Iterator[str]:
        for start in range(0, len(lines), BATCH):
            yield from (_wire(x) for x in lines[start : start + BATCH])
            if progress:
                progress("import", min(start + BATCH, len(lines)), len(lines))

    try:
        report = client.import_bundle(body(), wait=True, source_name=f"migrate:{fmt}")
    except ApiError as e:
        raise MigrationError(f"import failed: HTTP {e.status}: {e.detail[:500]}") from e
    imported: dict[str, Any] = report.model_dump(mode="json")
    return imported


def rejections_by_id(
    lines: list[dict[str, Any]], imported: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The import's errors keyed by the memory id of their line (lines are numbered from
    1 in the order they were sent), so a failed check can quote them."""
    found: dict[str, dict[str, Any]] = {}
    for error in imported.get("errors") or []:
        index = int(error.get("line", 0)) - 1
        if 0 <= index < len(lines):
            line = lines[index]
            memory_id = line.get("id") if line.get("kind") == "tombstone" else None
            memory_id = memory_id or (line.get("record") or {}).get("id")
            if memory_id is not None:
                found[str(memory_id)] = {"code": error.get("code"), "message": error.get("message")}
    return found


def _run_checks(
    target: Target,
    lines: list[dict[str, Any]],
    progress: Progress | None,
    imported: dict[str, Any] | None = None,
) -> list[CheckResult]:
    if progress:
        progress("verify", 0, 1)
    checks = verify(target, lines, rejections_by_id(lines, imported or {}))
    if progress:
        progress("verify", 1, 1)
    return checks


def migrate(
    source: Path,
    *,
    to: str,
    fmt: str = "auto",
    scope_map: dict[str, str] | None = None,
    default_scope: str = "user:default",
    dry_run: bool = False,
    tenant: str = "default",
    progress: Progress | None = None,
    api_key: str | None = None,
) -> MigrationReport:
    """Run the whole migration and return its report (never exits). ``api_key``: the key
    sent to a server ``to`` (its tenant is the one migrated into; imports need an admin
    key); ``tenant`` is for a data directory."""
    options = ImportOptions(scope_map=scope_map or {}, default_scope=default_scope)
    if progress:
        progress("convert", 0, 1)
    fmt, reason, lines, converted = convert_source(source, fmt, options)
    if progress:
        progress("convert", 1, 1)
    report = MigrationReport(
        str(source), fmt, reason, to, dry_run, doctor(lines, converted), converted
    )
    if dry_run:
        return report
    if to.startswith(("http://", "https://")):
        with MemoryClient(to, timeout=None, api_key=api_key) as remote:
            report.imported = import_lines(remote, lines, fmt, progress)
            report.checks = _run_checks(ClientTarget(remote), lines, progress, report.imported)
        return report
    from ai_memory.bootstrap import build
    from ai_memory.sdk.in_process import InProcessClient
    from ai_memory.settings import Settings

    container = build(Settings(data_dir=Path(to)))
    container.start()
    try:
        local = InProcessClient(container, tenant=tenant, actor="migrate")
        report.imported = import_lines(local, lines, fmt, progress)
        report.checks = _run_checks(ClientTarget(local), lines, progress, report.imported)
    finally:
        container.close()
    return report
