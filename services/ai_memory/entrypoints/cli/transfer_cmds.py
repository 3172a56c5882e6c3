"""``ai-memory export`` / ``ai-memory import``: stream NDJSON bundles with progress bars.

``export -o`` never leaves a partial file; ``import`` exits 6 when the server rejected
lines (``exit_codes.py``), with the report on stdout all the same.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import CommandFailure
from ai_memory.entrypoints.cli.output import AlwaysJson
from ai_memory.sdk import ImportOut, MemoryClient
from ai_memory.settings import client_api_key

err = Console(stderr=True)
DEFAULT_URL = "http://127.0.0.1:8080"


def api_key() -> str | None:
    """The key client commands send (``AIMEM_API_KEY``); none in open development mode."""
    return client_api_key()


def export_cmd(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File (.ndjson or .ndjson.gz); stdout if absent."),
    ] = None,
    scope: Annotated[list[str] | None, typer.Option("--scope")] = None,
    url: Annotated[str, typer.Option(envvar="AIMEM_URL")] = DEFAULT_URL,
) -> None:
    """Export records and tombstones (optionally of some scopes) as an NDJSON bundle."""
    if output is None:
        lines = _export(url, scope, sys.stdout.buffer)
    else:
        # Written beside the target and renamed at the end: a failed export (the server
        # down, the disk full, Ctrl-C) leaves no file, or the previous one untouched.
        partial = output.with_name(f".{output.name}.partial")
        try:
            with partial.open("wb") as raw:
                sink: IO[bytes] | gzip.GzipFile = raw
                if output.suffix == ".gz":
                    sink = gzip.GzipFile(output.name, mode="wb", fileobj=raw)
                lines = _export(url, scope, sink)
                sink.close()
            partial.replace(output)
        finally:
            partial.unlink(missing_ok=True)
    err.print(f"exported {lines} lines")


def _export(url: str, scope: list[str] | None, sink: IO[bytes] | gzip.GzipFile) -> int:
    lines = 0
    with MemoryClient(url, timeout=60.0, api_key=api_key()) as client:
        for line in client.export_lines(scope or None):
            sink.write(line.encode("utf-8") + b"\n")
            lines += 1
    return lines


class ImportRejected(CommandFailure):
    """An import that finished with rejected lines (exit 6, the count on stderr)."""

    def __init__(self, report: ImportOut) -> None:
        first = report.errors[0] if report.errors else None
        example = ""
        if first is not None:
            where = f" [{first.field}]" if first.field else ""
            example = f"; first: line {first.line} {first.code}{where}: {first.message}"
        every = " (every line)" if report.rejected >= report.received else ""
        super().__init__(
            f"{report.rejected} of {report.received} lines rejected{every}{example} — "
            "the report on stdout lists them",
            ExitCode.REJECTED,
        )


def import_cmd(
    path: Annotated[Path, typer.Argument(help="NDJSON bundle (.ndjson or .ndjson.gz)")],
    url: Annotated[str, typer.Option(envvar="AIMEM_URL")] = DEFAULT_URL,
    wait: Annotated[bool, typer.Option(help="Return once projections applied it.")] = True,
    as_json: AlwaysJson = False,
) -> None:
    """Import an NDJSON bundle; prints the per-line report (exit 6 if lines were rejected)."""
    # Opened before anything else: a missing file or a directory fails here, at once.
    with path.open("rb") as raw:
        size = os.fstat(raw.fileno()).st_size
        columns = (TextColumn("import"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
        with ExitStack() as stack:
            bar = stack.enter_context(Progress(*columns, console=err))
            client = stack.enter_context(MemoryClient(url, timeout=None, api_key=api_key()))
            task = bar.add_task("import", total=size)

            def lines() -> Iterator[bytes]:
                """The bundle's lines (newline kept); the bar follows the file's bytes."""
                text: Iterable[bytes] = raw
                if path.suffix == ".gz":
                    text = gzip.GzipFile(fileobj=raw)
                done = 0
                for line in text:
                    yield line
                    bar.update(task, advance=raw.tell() - done)
                    done = raw.tell()
                # Uploaded: the server now imports (and projects) before it answers, which
                # takes a while for a large bundle. Say so rather than sit at 100 %.
                bar.stop()
                doing = "import and project" if wait else "import"
                waiting = f"uploaded; waiting for the server to {doing} it…"
                if err.is_terminal:
                    stack.enter_context(err.status(waiting))
                else:  # a log: the line, not an animation
                    err.print(waiting, markup=False)

            report = client.import_bundle(lines(), wait=wait)
    typer.echo(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
    if report.rejected:
        raise ImportRejected(report)
