"""``ai-memory replay``: rebuild projections from log position 0.

Embedded views (and any view of the records projection) are reset and replayed in place —
stop the server first. Poison does not stop a replay: an event the projection cannot
decode or apply is dead-lettered (``ai-memory dead-letters list``), the replay finishes,
reports how many were dead-lettered and exits 0. A projection's old dead letters are
cleared when its replay starts — the replay meets every one of them again and parks only
what still fails. A Qdrant server index is rebuilt with zero downtime instead: the
log is replayed into a new collection generation while searches keep using the current
one through the alias; the alias is switched when the new one has caught up, and a last
catch-up pass applies whatever arrived during the switch (``VectorIndex.rebuild``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from ai_memory.bootstrap import PROJECTIONS, open_replay
from ai_memory.entrypoints.cli.existing_data import require_data_dir
from ai_memory.entrypoints.cli.output import Json, emit_json
from ai_memory.settings import Settings

err = Console(stderr=True)


def replay_cmd(
    projection: Annotated[str, typer.Option(help="records|index|all")] = "all",
    data_dir: Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")] = None,
    as_json: Json = False,
) -> None:
    """Rebuild projections from log position 0 (progress bar, events/s)."""
    chosen = PROJECTIONS if projection == "all" else (projection,)
    if any(name not in PROJECTIONS for name in chosen):
        err.print(f"[red]unknown projection {projection!r}[/red] (records|index|all)")
        raise typer.Exit(2)
    overrides: dict[str, object] = {} if data_dir is None else {"data_dir": data_dir}
    settings = Settings.from_env(**overrides)
    require_data_dir(settings, settings.resolved().event_log_url)  # nothing to replay
    replay = open_replay(settings)
    summary: list[dict[str, object]] = []
    try:
        total = replay.log_size()
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} events/s"),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=err) as bar:
            for name in chosen:
                task = bar.add_task(f"replay {name}", total=total, rate="-")
                start = time.perf_counter()
                done = 0

                def progress(n: int, task: TaskID = task, start: float = start) -> None:
                    nonlocal done
                    done += n
                    rate = done / max(time.perf_counter() - start, 1e-9)
                    bar.update(task, completed=done, rate=f"{rate:,.0f}")

                replay.clear_dead_letters(name)
                cpu = time.process_time()
                applied, parked = replay.run(name, progress, switching=_switching)
                elapsed = time.perf_counter() - start
                # CPU of this process (every thread) for the replay alone, start-up left out:
                # what rebuilding a view costs per event, comparable across machines.
                cpu_ms = 1000 * (time.process_time() - cpu) / max(applied, 1)
                summary.append(
                    {
                        "projection": name,
                        "events": applied,
                        "seconds": round(elapsed, 3),
                        "cpu_ms_per_event": round(cpu_ms, 4),
                        "dead_lettered": parked,
                    }
                )
                err.print(
                    f"{name}: {applied} events in {elapsed:.2f}s "
                    f"({applied / max(elapsed, 1e-9):,.0f} events/s, "
                    f"{cpu_ms:.3f} ms of CPU per event here), "
                    f"{parked} dead-lettered",
                    soft_wrap=True,  # one line, whatever the terminal's width: it is parsed
                )
                if parked:
                    err.print(
                        f"[yellow]{name}: {parked} event(s) could not be applied and were "
                        "dead-lettered[/yellow]; see `ai-memory dead-letters list`"
                    )
    finally:
        replay.close()
    if as_json:
        emit_json(summary)


def _switching() -> None:
    err.print("switching to the rebuilt index …")
