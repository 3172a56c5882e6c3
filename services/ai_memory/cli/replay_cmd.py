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

from ai_memory.bootstrap import PROJECTIONS, Container, build, replay_tailers
from ai_memory.core import positions
from ai_memory.core.ports import EventLog
from ai_memory.projector.sinks import IndexSink, ProjectionSink, RecordsSink
from ai_memory.projector.tailer import ProgressCallback, ProjectionTailer, rebuild_all
from ai_memory.settings import Settings

err = Console(stderr=True)


def log_size(log: EventLog, packed: bool) -> int:
    """Events on the log (upper bound), for the progress bar."""
    total = 0
    for p in log.partitions():
        last = log.last_position(p)
        total += (positions.offset_of(last) + 1 if last else 0) if packed else last
    return total


def replay_cmd(
    projection: Annotated[str, typer.Option(help="records|index|all")] = "all",
    data_dir: Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")] = None,
) -> None:
    """Rebuild projections from log position 0 (progress bar, events/s)."""
    chosen = PROJECTIONS if projection == "all" else (projection,)
    if any(name not in PROJECTIONS for name in chosen):
        err.print(f"[red]unknown projection {projection!r}[/red] (records|index|all)")
        raise typer.Exit(2)
    overrides: dict[str, object] = {} if data_dir is None else {"data_dir": data_dir}
    container = build(Settings.from_env(**overrides))
    packed = container.projections.packed_positions
    try:
        total = log_size(container.log, packed)
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

                _clear_dead_letters(container, name)
                tailers: list[ProjectionTailer] = []
                applied = _replay_one(container, name, progress, tailers)
                elapsed = time.perf_counter() - start
                parked = sum(t.dead_lettered for t in tailers)
                err.print(
                    f"{name}: {applied} events in {elapsed:.2f}s "
                    f"({applied / max(elapsed, 1e-9):,.0f} events/s), "
                    f"{parked} dead-lettered"
                )
                if parked:
                    err.print(
                        f"[yellow]{name}: {parked} event(s) could not be applied and were "
                        "dead-lettered[/yellow]; see `ai-memory dead-letters list`"
                    )
    finally:
        container.close()


def _clear_dead_letters(container: Container, name: str) -> None:
    store = container.dead_letters
    if store is not None:
        for entry in store.entries(name, limit=1_000_000):
            store.resolve(entry.projection, entry.position)


def _replay_one(
    container: Container, name: str, progress: ProgressCallback, used: list[ProjectionTailer]
) -> int:
    """Replay one projection; ``used`` receives the tailers (for their counts)."""

    def _tailers(sink: ProjectionSink) -> list[ProjectionTailer]:
        tailers = replay_tailers(container, sink)
        used.extend(tailers)
        return tailers

    if name == "records":
        return rebuild_all(_tailers(RecordsSink(container.store)), progress)
    # The index's own rebuild (a port operation): a new generation switched in by alias
    # on a Qdrant server, the live index reset and compacted in place otherwise.
    rebuild = container.index.rebuild()
    try:
        tailers = _tailers(IndexSink(rebuild.target, container.embedder))
        for tailer in tailers:
            tailer.rewind()
        applied = sum(t.catch_up(progress) for t in tailers)
        err.print("switching to the rebuilt index …")
        rebuild.switch()
        # Events that arrived while switching: live workers may have sent them to the old
        # generation; replaying them into the new one is idempotent.
        applied += sum(t.catch_up(progress) for t in tailers)
    finally:
        rebuild.close()
    return applied
