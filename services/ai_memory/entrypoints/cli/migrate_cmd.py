"""``ai-memory migrate``: move memories from another tool in one command, then prove it.

    ai-memory migrate --from mem0_export.json --to ./data
    ai-memory migrate --from agent.af --format letta --to http://127.0.0.1:8080 \\
        --scope-map agent:helper=user:alice
    ai-memory migrate --from graph.json --to ./data --scope-map group:=user: --dry-run

Prints the JSON report on stdout (progress and the check table on stderr) and exits 1
when any of the five verification checks fails, 2 when the migration cannot start, 4 when
the source does not exist, 3 when the target server cannot be reached (``docs/CLI.md``).
"""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import CommandFailure
from ai_memory.entrypoints.cli.output import AlwaysJson
from ai_memory.migration.importers import parse_scope_map
from ai_memory.migration.importers.detect import FORMATS
from ai_memory.migration.migrate import MigrationError, MigrationReport, migrate
from ai_memory.sdk import ApiError
from ai_memory.settings import client_api_key

err = Console(stderr=True)


def migrate_cmd(
    source: Annotated[Path, typer.Option("--from", help="Source file or directory.")],
    to: Annotated[str, typer.Option("--to", help="Target server URL or data directory.")],
    fmt: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")] = "auto",
    scope_map: Annotated[
        list[str] | None,
        typer.Option(
            "--scope-map",
            help="OLD=NEW scope (user:alice=user:a.smith) or kind (group:=user:); "
            "mem0:unknown-owner=user:<id> names the owner of a Mem0 history.db.",
        ),
    ] = None,
    default_scope: Annotated[
        str, typer.Option(help="Scope for rows that name no owner.")
    ] = "user:default",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Doctor and convert only.")] = False,
    as_json: AlwaysJson = False,
) -> None:
    """Migrate memories from Mem0, Letta, Zep/Graphiti, LangMem, cognee (COGX) or a bundle."""
    if fmt not in FORMATS:
        err.print(f"[red]unknown --format {fmt!r}[/red]; choose one of {', '.join(FORMATS)}")
        raise typer.Exit(2)
    try:
        mapping = parse_scope_map(scope_map)
    except ValueError as e:
        err.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from e
    if not source.exists():
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(source))
    columns = (TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=err, transient=False) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        try:
            report = migrate(
                source,
                to=to,
                fmt=fmt,
                scope_map=mapping,
                default_scope=default_scope,
                dry_run=dry_run,
                progress=progress,
                api_key=client_api_key(),
            )
        except MigrationError as e:
            failed = e.__cause__
            if isinstance(failed, ApiError):  # the target server: reported as any request
                raise failed from failed.__cause__
            raise CommandFailure(f"migration cannot start: {e}", ExitCode.USAGE) from e
    typer.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    _summary(report)
    if not report.ok:
        raise typer.Exit(1)


def _summary(report: MigrationReport) -> None:
    acc = report.accounting()
    err.print(
        f"{report.format} ({report.format_reason}): {acc['source_items']} source items, "
        f"{acc['converted']} converted, not imported {acc['not_imported'] or 'none'}"
    )
    if report.dry_run:
        err.print("dry run: nothing imported")
        return
    err.print(f"import: {acc['import_outcomes']} balanced={acc['balanced']}")
    table = Table("check", "result", "evidence")
    for check in report.checks:
        mark = "[green]pass[/green]" if check.passed else "[red]FAIL[/red]"
        table.add_row(check.name, mark, check.evidence)
    err.print(table)
