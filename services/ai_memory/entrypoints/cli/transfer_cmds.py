"""``ai-memory export`` / ``ai-memory import``: stream NDJSON bundles with progress bars."""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

from ai_memory.sdk import ApiError, MemoryClient
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
    sink: IO[bytes] | gzip.GzipFile
    if output is None:
        sink = sys.stdout.buffer
    elif output.suffix == ".gz":
        sink = gzip.GzipFile(output, "wb")
    else:
        sink = output.open("wb")
    lines = 0
    try:
        with MemoryClient(url, timeout=60.0, api_key=api_key()) as client:
            for line in client.export_lines(scope or None):
                sink.write(line.encode("utf-8") + b"\n")
                lines += 1
    except ApiError as e:
        err.print(f"[red]error {e.status or '-'} {e.code}[/red]: {e.detail}")
        raise typer.Exit(1) from None
    finally:
        if output is not None:
            sink.close()
    err.print(f"exported {lines} lines")


def import_cmd(
    path: Annotated[Path, typer.Argument(help="NDJSON bundle (.ndjson or .ndjson.gz)")],
    url: Annotated[str, typer.Option(envvar="AIMEM_URL")] = DEFAULT_URL,
    wait: Annotated[bool, typer.Option(help="Return once projections applied it.")] = True,
) -> None:
    """Import an NDJSON bundle; prints the per-line report."""
    size = path.stat().st_size
    columns = (TextColumn("import"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    try:
        with (
            Progress(*columns, console=err) as bar,
            MemoryClient(url, timeout=None, api_key=api_key()) as client,
        ):
            task = bar.add_task("import", total=size)

            def lines() -> Iterator[bytes]:
                """The bundle's lines (newline kept); the bar follows the file's bytes."""
                with path.open("rb") as raw:
                    text: Iterable[bytes] = (
                        gzip.GzipFile(fileobj=raw) if path.suffix == ".gz" else raw
                    )
                    done = 0
                    for line in text:
                        yield line
                        bar.update(task, advance=raw.tell() - done)
                        done = raw.tell()

            report = client.import_bundle(lines(), wait=wait)
    except ApiError as e:
        typer.echo(json.dumps(e.problem or {"detail": e.detail}, ensure_ascii=False, indent=2))
        raise typer.Exit(1) from None
    typer.echo(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
