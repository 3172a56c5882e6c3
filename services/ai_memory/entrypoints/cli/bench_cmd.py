"""``ai-memory bench``: load profiles against a real server started for the purpose.

``bench scale`` grows one embedded server to each size and measures it there: import,
search under writes, memory, disk, restart and replay (``ai_memory.benchmarks.scale``).
``bench locomo`` asks LoCoMo's questions of a fresh server and reports recall@k per
category with the latency (``ai_memory.benchmarks.recall``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ai_memory.benchmarks import locomo, plots, recall
from ai_memory.benchmarks.corpus import Corpus, SyntheticCorpus
from ai_memory.benchmarks.recall import RecallOptions
from ai_memory.benchmarks.report import markdown, write_json
from ai_memory.benchmarks.scale import (
    ScaleOptions,
    default_sizes,
    parse_sizes,
    run,
)
from ai_memory.benchmarks.server import BenchError

app = typer.Typer(no_args_is_help=True, help="Load profiles against a real ai-memory server.")
err = Console(stderr=True)


@app.callback()
def bench() -> None:
    """Load profiles against a real ai-memory server."""
    # A callback keeps ``bench`` a group when it is run on its own (loadtest/bench_scale.py)
    # too: Typer would otherwise turn a group of one command into that command.


@app.command("scale")
def scale_cmd(
    memories: Annotated[
        int, typer.Option(help="The largest size; the steps are 10k, 100k, 1M below it.")
    ] = 1_000_000,
    steps: Annotated[
        str | None,
        typer.Option(help="The sizes instead, increasing, e.g. 10k,100k or 2000,10000."),
    ] = None,
    write_rate: Annotated[
        float, typer.Option(help="Single writes per second while searches are timed (0: none).")
    ] = 100.0,
    queries: Annotated[
        int, typer.Option(min=1, help="Timed searches of each kind per size.")
    ] = 500,
    out: Annotated[
        Path, typer.Option(help="Where the JSON, the table, the plots and the server log go.")
    ] = Path("bench-scale"),
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Data dir of the server (empty or new; kept). Default: a temporary one."),
    ] = None,
    keep: Annotated[bool, typer.Option(help="Keep the temporary data dir.")] = False,
    locomo_path: Annotated[
        Path | None,
        typer.Option("--locomo", help="Use LoCoMo's turns and questions (locomo10.json)."),
    ] = None,
    replay: Annotated[
        bool, typer.Option(help="Replay the index from the log at each size (server stopped).")
    ] = True,
) -> None:
    """Grow a live embedded server to each size; print the table, write JSON and plots."""
    try:
        sizes = parse_sizes(steps) if steps else default_sizes(memories)
        corpus: Corpus = SyntheticCorpus() if locomo_path is None else locomo.load(locomo_path)
        options = ScaleOptions(
            sizes=sizes,
            write_rate=write_rate,
            queries=queries,
            out=out,
            data_dir=data_dir,
            keep=keep,
            replay=replay,
            corpus=corpus,
        )
        results = run(
            options, lambda line: err.print(line, markup=False, highlight=False, soft_wrap=True)
        )
    except (BenchError, locomo.LocomoError) as e:
        # Escaped: the server's log may hold brackets rich would read as markup.
        err.print(f"[red]bench scale: {escape(str(e))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    table = markdown(results)
    typer.echo(table)
    (out / "bench-scale.md").write_text(table + "\n", encoding="utf-8")
    write_json(out / "bench-scale.json", options, results)
    written = [out / "bench-scale.json", out / "bench-scale.md"]
    if plots.available():
        written += plots.write_plots(results, out)
    else:
        err.print(plots.INSTALL_HINT, highlight=False)
    err.print("wrote " + ", ".join(str(p) for p in written), highlight=False, soft_wrap=True)


@app.command("locomo")
def locomo_cmd(
    data: Annotated[
        Path, typer.Option("--data", help="LoCoMo's locomo10.json (not shipped; CC BY-NC 4.0).")
    ],
    embedder: Annotated[
        str | None,
        typer.Option(help="The server's embedder (static, minilm, mpnet); default: its own."),
    ] = None,
    context: Annotated[
        bool, typer.Option(help="Conversation context in search (the server's default: on).")
    ] = True,
    dates: Annotated[
        bool,
        typer.Option(help="Periods the questions name boost what was said then (default: on)."),
    ] = True,
    out: Annotated[
        Path, typer.Option(help="Where the JSON, the table, the plot and the server log go.")
    ] = Path("bench-locomo"),
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Data dir of the server (empty or new; kept). Default: a temporary one."),
    ] = None,
    keep: Annotated[bool, typer.Option(help="Keep the temporary data dir.")] = False,
) -> None:
    """Ask LoCoMo's questions of a fresh server: recall@k per category, latency, config."""
    options = RecallOptions(data, out, context, embedder, data_dir, keep, dates)
    try:
        result = recall.run(
            options, lambda line: err.print(line, markup=False, highlight=False, soft_wrap=True)
        )
    except BenchError as e:
        err.print(f"[red]bench locomo: {escape(str(e))}[/red]", highlight=False)
        raise typer.Exit(1) from None
    table = recall.markdown(result)
    typer.echo(table)
    json_path = out / recall.file_name(result)
    recall.write_json(json_path, result)
    (out / json_path.with_suffix(".md").name).write_text(table + "\n", encoding="utf-8")
    written = [json_path, out / json_path.with_suffix(".md").name]
    if plots.available():
        # Every configuration measured into this directory, so runs add up on one plot.
        written.append(plots.write_recall_plot(recall.read_results(out), out / "recall.png"))
    else:
        err.print(plots.INSTALL_HINT, highlight=False)
    err.print("wrote " + ", ".join(str(p) for p in written), highlight=False, soft_wrap=True)
