"""``ai-memory dead-letters list|show|redrive|discard``: events projections parked.

A projection that cannot apply an event (or decode it) dead-letters it and moves on; the
server reports ``degraded`` on ``/healthz`` until every entry is re-driven or discarded.

``list``, ``show`` and ``discard`` only touch the dead-letter store (a table beside the
embedded log, or the Kafka ``.dlq`` topic) and work while the server runs. ``redrive``
reads each event back from the log and applies it through the projection's sink, so like
``ai-memory replay`` it opens the views: with the embedded index stop the server first
(a Qdrant Edge index is single-process). That is rarely a cost: an event that failed on its
own fails again until the code that rejected it is fixed, and shipping the fix restarts
the server anyway — re-drive between the stop and the start. A distributed deployment can
re-drive any time.
Exit codes: 0 done, 1 some re-drives failed again (kept with the new error), 2 nothing
matched, 4 no such data directory (never created here). ``--json`` on every subcommand.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ai_memory.bootstrap import PROJECTIONS, build_dead_letter_service
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import DeadLetter
from ai_memory.entrypoints.cli.existing_data import require_data_dir
from ai_memory.entrypoints.cli.output import AlwaysJson, Json, emit_json
from ai_memory.service.dead_letters import DeadLetterService
from ai_memory.settings import Settings

app = typer.Typer(
    no_args_is_help=True,
    help="Inspect, re-drive or discard events a projection dead-lettered.",
)
out = Console()
err = Console(stderr=True)

DataDir = Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")]
Projection = Annotated[str, typer.Argument(help="records|index")]
Position = Annotated[int | None, typer.Argument(help="log position (omit with --all)")]
All = Annotated[bool, typer.Option("--all", help="every entry of the projection")]


def _settings(data_dir: Path | None) -> Settings:
    settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    # The embedded dead letters are a table beside the log: never create a data dir.
    require_data_dir(settings, settings.resolved().event_log_url)
    return settings


def _check(projection: str) -> None:
    if projection not in PROJECTIONS:
        err.print(f"[red]unknown projection {projection!r}[/red] ({'|'.join(PROJECTIONS)})")
        raise typer.Exit(2)


def _open(data_dir: Path | None, *, redrive: bool = False) -> DeadLetterService:
    return build_dead_letter_service(_settings(data_dir), redrive=redrive)


def _chosen(
    store: DeadLetterService, projection: str, position: int | None, every: bool
) -> list[DeadLetter]:
    _check(projection)
    if (position is None) == (not every):
        err.print("[red]give a POSITION or --all[/red]")
        raise typer.Exit(2)
    if every:
        chosen = store.entries(projection)
    else:
        assert position is not None
        entry = store.get(projection, position)
        chosen = [] if entry is None else [entry]
    if not chosen:
        err.print("no matching dead letters")
        raise typer.Exit(2)
    return chosen


def _at(at: datetime) -> str:
    return at.isoformat(timespec="seconds").replace("+00:00", "Z")


def entry_json(entry: DeadLetter, *, raw: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {
        "projection": entry.projection,
        "position": entry.position,
        "partition": entry.partition,
        "reason": entry.reason,
        "error": entry.error,
        "attempts": entry.attempts,
        "first_failed_at": _at(entry.first_failed_at),
        "last_failed_at": _at(entry.last_failed_at),
        "raw_bytes": len(entry.raw),
    }
    if raw:
        body["raw_base64"] = base64.b64encode(entry.raw).decode()
    return body


@app.command("list")
def list_cmd(
    projection: Annotated[str | None, typer.Option(help="records|index")] = None,
    as_json_lines: Annotated[bool, typer.Option("--json", help="one JSON object a line")] = False,
    data_dir: DataDir = None,
) -> None:
    """Unresolved dead letters, oldest position first."""
    if projection is not None:
        _check(projection)
    store = _open(data_dir)
    try:
        entries = store.entries(projection)
    finally:
        store.close()
    if as_json_lines:
        for entry in entries:
            typer.echo(json.dumps(entry_json(entry), ensure_ascii=False))
        return
    table = Table("projection", "position", "partition", "reason", "attempts", "last", "error")
    for e in entries:
        error = e.error if len(e.error) <= 80 else e.error[:77] + "..."
        table.add_row(
            e.projection,
            str(e.position),
            str(e.partition),
            e.reason,
            str(e.attempts),
            _at(e.last_failed_at),
            error,
        )
    out.print(table)
    out.print(f"{len(entries)} dead-lettered event(s)")


@app.command("show")
def show_cmd(
    projection: Projection, position: int, as_json: AlwaysJson = False, data_dir: DataDir = None
) -> None:
    """One entry as JSON: error, original bytes (base64), the event if decodable."""
    store = _open(data_dir)
    try:
        (entry,) = _chosen(store, projection, position, False)
    finally:
        store.close()
    body = entry_json(entry, raw=True)
    try:
        body["event"] = store.describe(entry) if entry.raw else None
    except Exception as e:
        body["event_error"] = f"{type(e).__name__}: {e}"
    typer.echo(json.dumps(body, ensure_ascii=False, indent=2))


@app.command("discard")
def discard_cmd(
    projection: Projection,
    position: Position = None,
    every: All = False,
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Remove entries without applying them (the view lacks them until a replay)."""
    store = _open(data_dir)
    try:
        chosen = _chosen(store, projection, position, every)
        gone = store.discard(chosen)
    finally:
        store.close()
    if as_json:
        emit_json({"discarded": gone})
    else:
        out.print(f"discarded {gone} dead letter(s)")


@app.command("redrive")
def redrive_cmd(
    projection: Projection,
    position: Position = None,
    every: All = False,
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Re-read events from the log and apply them (stop an embedded server first).

    An entry is removed when its event applies, and kept with the new error otherwise."""
    store = _open(data_dir, redrive=True)
    try:
        chosen = _chosen(store, projection, position, every)
        try:
            redrive = store.redriver(projection)
        except InvalidInput as e:
            raise typer.BadParameter(e.message) from e
        failed = 0
        outcomes: list[dict[str, Any]] = []
        for entry in chosen:
            result = redrive(entry)
            outcomes.append(
                {"position": entry.position, "applied": result.resolved, "error": result.error}
            )
            if as_json:
                continue
            if result.resolved:
                out.print(f"{projection} {entry.position}: applied")
            else:
                failed += 1
                err.print(f"[red]{projection} {entry.position}: failed again[/red]: {result.error}")
    finally:
        store.close()
    failed = sum(not o["applied"] for o in outcomes)
    if as_json:
        emit_json({"projection": projection, "redriven": outcomes})
    else:
        out.print(f"re-driven {len(chosen) - failed}, still failing {failed}")
    if failed:
        raise typer.Exit(1)
