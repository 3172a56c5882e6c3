"""``ai-memory export`` / ``ai-memory import``: stream NDJSON bundles with progress bars."""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Annotated

import httpx
import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

err = Console(stderr=True)
DEFAULT_URL = "http://127.0.0.1:8080"


def export_cmd(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File (.ndjson or .ndjson.gz); stdout if absent."),
    ] = None,
    scope: Annotated[list[str] | None, typer.Option("--scope")] = None,
    url: Annotated[str, typer.Option(envvar="AIMEM_URL")] = DEFAULT_URL,
) -> None:
    """Export records and tombstones (optionally of some scopes) as an NDJSON bundle."""
    params: list[tuple[str, str | int | float | bool | None]] = [("scope", s) for s in scope or []]
    sink: IO[bytes] | gzip.GzipFile
    if output is None:
        sink = sys.stdout.buffer
    elif output.suffix == ".gz":
        sink = gzip.GzipFile(output, "wb")
    else:
        sink = output.open("wb")
    lines = 0
    try:
        with httpx.stream("GET", f"{url}/v1/export", params=params, timeout=None) as response:
            if response.is_error:
                response.read()
                err.print(f"[red]error {response.status_code}[/red]: {response.text}")
                raise typer.Exit(1)
            for chunk in response.iter_bytes():
                lines += chunk.count(b"\n")
                sink.write(chunk)
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
    with Progress(*columns, console=err) as bar:
        task = bar.add_task("import", total=size)

        def chunks() -> Iterator[bytes]:
            with path.open("rb") as raw:
                while block := raw.read(1 << 16):
                    bar.update(task, advance=len(block))
                    yield block

        body = _gunzip(chunks()) if path.suffix == ".gz" else chunks()
        response = httpx.post(
            f"{url}/v1/import",
            content=body,
            params={"wait": wait},
            headers={"content-type": "application/x-ndjson"},
            timeout=None,
        )
    report = response.json()
    typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    if response.is_error:
        raise typer.Exit(1)


def _gunzip(blocks: Iterator[bytes]) -> Iterator[bytes]:
    import zlib

    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    for block in blocks:
        yield inflater.decompress(block)
    yield inflater.flush()
