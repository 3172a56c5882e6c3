"""``ai-memory doctor PATH``: the pre-migration health check of a memory dump (offline).

Reads the file or directory directly (no server needed) with the same reader as
``migrate`` (so a refusal, a row count or a rejected row is the same in both) and prints
a report: type distribution,
secrets and personal data (masked), context-dependent references, timestamp anomalies,
duplicates, system logs and vector columns, with warnings. ``--json`` prints the report as
JSON; ``--redact OUT`` also writes a copy with every secret replaced by
``[REDACTED:<kind>]``. Exit code 0 even with warnings; 4 if the file is missing or cannot
be read; 2 for a bad option or a dump migrate would refuse.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import typer
from rich.console import Console
from rich.table import Table

from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import CommandFailure
from ai_memory.migration.doctor import DoctorReport, diagnose
from ai_memory.migration.doctor_tool import IMPORTER_FORMATS, diagnose_converted, shared_format
from ai_memory.migration.generic import GenericOptions
from ai_memory.migration.importers import RowError, parse_scope_map
from ai_memory.migration.mapping import FieldMap, MappingError, load_mapping_file, parse_map_spec
from ai_memory.migration.sources import FORMATS as READER_FORMATS

err = Console(stderr=True)


def doctor_cmd(
    path: Annotated[
        Path,
        typer.Argument(
            help="A file or directory: a tool's artefacts, a bundle, JSON, JSONL, CSV, SQLite."
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    redact: Annotated[
        Path | None, typer.Option("--redact", help="Write a redacted copy to this file.")
    ] = None,
    table: Annotated[str | None, typer.Option(help="SQLite table (default: all).")] = None,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help=f"An importer ({' | '.join(IMPORTER_FORMATS)}; default: recognised as "
            f"migrate does) or a generic file kind ({' | '.join(READER_FORMATS)}).",
        ),
    ] = None,
    scope_map: Annotated[
        list[str] | None,
        typer.Option("--scope-map", help="OLD=NEW scope, as for migrate."),
    ] = None,
    tz: Annotated[str, typer.Option(help="Timezone of naive timestamps (IANA name).")] = "UTC",
    map_spec: Annotated[
        str | None, typer.Option("--map", help="e.g. content=text,created_at=ts,scope=uid:user:{}")
    ] = None,
    mapping_file: Annotated[
        Path | None, typer.Option("--mapping", help="JSON/YAML mapping file.")
    ] = None,
) -> None:
    """Health-check a memory dump before migrating it."""
    try:
        naive_tz = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as e:
        err.print(f"[red]unknown timezone[/red] {tz!r}")
        raise typer.Exit(2) from e
    try:
        mapping = load_mapping_file(mapping_file) if mapping_file else FieldMap()
        if map_spec:
            mapping = parse_map_spec(map_spec, mapping)
    except (MappingError, OSError, ValueError) as e:
        err.print(f"[red]bad mapping[/red]: {e}")
        raise typer.Exit(2) from e
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
    if fmt is not None and fmt not in (*IMPORTER_FORMATS, *READER_FORMATS, "auto"):
        choices = ", ".join((*IMPORTER_FORMATS, *READER_FORMATS))
        err.print(f"[red]unknown --format {fmt!r}[/red]; choose one of {choices}")
        raise typer.Exit(2)
    options = GenericOptions(mapping=mapping, naive_tz=naive_tz)
    try:
        # The same reader as migrate, unless an option only the generic reader knows asks
        # for the row-level examination of one file.
        generic_only = table or map_spec or mapping_file or fmt in READER_FORMATS
        shared = None if generic_only else shared_format(path, fmt)
        if shared is not None:
            report = diagnose_converted(
                path,
                *shared,
                options,
                scope_map=parse_scope_map(scope_map),
                redact_to=redact,
            )
        else:
            report = diagnose(path, options, fmt=fmt, table=table, redact_to=redact)
    except RowError as e:
        err.print(f"[red]migrate would refuse {path}[/red]: {e}")
        raise typer.Exit(2) from e
    except OSError:
        raise  # reported with its file name (exit 4)
    except ValueError as e:
        raise CommandFailure(f"cannot read {path}: {e}", ExitCode.BAD_INPUT) from e
    if as_json:
        typer.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        render(report, Console())


def render(report: DoctorReport, console: Console) -> None:
    """Print the report as rich tables."""
    outcome = report.outcome
    console.print(
        f"[bold]{report.source}[/bold] ({report.format}): {report.rows} rows, "
        f"{report.memories} memories, {report.tombstones} tombstones"
    )
    types = Table(title="Memory types")
    types.add_column("type")
    types.add_column("rows", justify="right")
    types.add_column("share", justify="right")
    for name in ("fact", "task", "preference", "skill", "interaction"):
        count = report.types.get(name, 0)
        share = f"{100 * count / report.memories:.1f}%" if report.memories else "-"
        types.add_row(name, str(count), share)
    console.print(types)

    rows = Table(title="Row outcome (what migrate will do with each row)")
    rows.add_column("outcome")
    rows.add_column("rows", justify="right")
    rows.add_column("example")
    rows.add_row("memory", str(outcome.converted.get("record", 0)), "")
    for category, count in outcome.to_json()["unimported"].items():
        examples = outcome.examples.get(category) or [{}]
        example = examples[0]
        text = f"{example.get('source_ref', '')} {example.get('reason', '')}".strip()
        rows.add_row(category, str(count), text)
    console.print(rows)

    findings = Table(title="Secrets and personal data")
    findings.add_column("kind")
    findings.add_column("count", justify="right")
    findings.add_column("examples (masked)")
    for kind, count in report.secrets.most_common():
        findings.add_row(kind, str(count), "\n".join(report.secret_examples.get(kind, [])[:3]))
    if report.secrets:
        console.print(findings)

    stamps = Table(title="Timestamps")
    stamps.add_column("kind")
    stamps.add_column("rows", justify="right")
    stamps.add_column("examples")
    for kind, count in sorted(report.timestamps.items()):
        stamps.add_row(kind, str(count), "\n".join(report.timestamp_examples.get(kind, [])[:3]))
    console.print(stamps)

    if report.context_examples:
        refs = Table(title=f"Context-dependent references ({report.context_refs} rows)")
        refs.add_column("row")
        refs.add_column("phrase")
        refs.add_column("excerpt")
        for ex in report.context_examples:
            refs.add_row(ex["ref"], ex["phrase"], ex["excerpt"])
        console.print(refs)

    for warning in report.warnings:
        console.print(f"[yellow]warning[/yellow]: {warning}")
    if report.redacted_to:
        console.print(f"redacted copy written to {report.redacted_to}")
