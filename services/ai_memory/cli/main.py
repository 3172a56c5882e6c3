"""The ``ai-memory`` command line.

``serve`` and ``replay`` work on a data directory (replay needs the server stopped: the
embedded index is single-process). Every other command is a client of a running server
(``--url`` / ``AIMEM_URL``), so the CLI and agents see exactly the same API.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console

from ai_memory.cli.dead_letters_cmd import app as dead_letters_app
from ai_memory.cli.doctor_cmd import doctor_cmd
from ai_memory.cli.mcp_cmd import mcp_cmd
from ai_memory.cli.migrate_cmd import migrate_cmd
from ai_memory.cli.project_cmd import project_cmd
from ai_memory.cli.replay_cmd import replay_cmd
from ai_memory.cli.transfer_cmds import export_cmd, import_cmd

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="ai-memory: event-sourced memory for AI agents.",
)
app.command("export")(export_cmd)
app.command("import")(import_cmd)
app.command("replay")(replay_cmd)
app.add_typer(dead_letters_app, name="dead-letters")
app.command("project")(project_cmd)
app.command("migrate")(migrate_cmd)
app.command("doctor")(doctor_cmd)
app.command("mcp")(mcp_cmd)
err = Console(stderr=True)

Url = Annotated[str, typer.Option(envvar="AIMEM_URL", help="Server base URL.")]
DEFAULT_URL = "http://127.0.0.1:8080"


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=60.0)


def emit(response: httpx.Response) -> None:
    """Print the JSON body; exit non-zero with the problem detail on an error status."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    if response.is_error:
        detail = body.get("detail") if isinstance(body, dict) else body
        code = body.get("code") if isinstance(body, dict) else response.status_code
        err.print(f"[red]error {response.status_code} {code}[/red]: {detail}")
        raise typer.Exit(1)
    typer.echo(json.dumps(body, ensure_ascii=False, indent=2))


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(envvar="AIMEM_HOST")] = None,
    port: Annotated[int | None, typer.Option(envvar="AIMEM_PORT")] = None,
    data_dir: Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")] = None,
) -> None:
    """Run the HTTP server with the embedded log, record store and index."""
    import uvicorn

    from ai_memory.bootstrap import build
    from ai_memory.gateway.http_app import create_app
    from ai_memory.gateway.slow_headers import with_header_timeout
    from ai_memory.settings import Settings, SettingsError

    overrides: dict[str, object] = {}
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    try:
        settings = Settings.from_env(**overrides)
    except SettingsError as e:
        err.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    container = build(settings)
    container.start(governor=True)
    try:
        uvicorn.run(
            create_app(container),
            host=host or settings.host,
            port=port or settings.port,
            log_level="info",
            # Slow clients cannot hold connections: headers within header_timeout (the
            # body has its own timeout at the edge), idle keep-alives closed after 5 s,
            # and at most 64 KiB of an incomplete request line and headers buffered.
            http=with_header_timeout(settings.header_timeout),
            timeout_keep_alive=5,
            h11_max_incomplete_event_size=64 * 1024,
        )
    finally:
        container.close()


@app.command()
def write(
    content: Annotated[str, typer.Argument(help="Self-contained text of the memory.")],
    scope: Annotated[str, typer.Option(help="e.g. user:alice")],
    type_: Annotated[str, typer.Option("--type", help="fact|task|preference|skill|interaction")],
    source_agent: Annotated[str, typer.Option(envvar="AIMEM_AGENT")] = "cli",
    memory_id: Annotated[str | None, typer.Option("--id")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag")] = None,
    ttl: Annotated[int | None, typer.Option()] = None,
    created_at: Annotated[str | None, typer.Option()] = None,
    url: Url = DEFAULT_URL,
) -> None:
    """Write (or upsert with --id) one memory."""
    body: dict[str, Any] = {
        "type": type_,
        "content": content,
        "scope": scope,
        "source_agent": source_agent,
        "tags": tag or [],
    }
    if ttl is not None:
        body["ttl"] = ttl
    if created_at is not None:
        body["created_at"] = created_at
    with client(url) as c:
        if memory_id:
            emit(c.put(f"/v1/memories/{memory_id}", json=body, params={"wait": True}))
        else:
            emit(c.post("/v1/memories", json=body, params={"wait": True}))


@app.command()
def get(memory_id: str, url: Url = DEFAULT_URL) -> None:
    """Read one memory (exit 1 with 'gone' if it was forgotten)."""
    with client(url) as c:
        emit(c.get(f"/v1/memories/{memory_id}"))


@app.command()
def search(
    query: str,
    scope: Annotated[str | None, typer.Option()] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag")] = None,
    type_: Annotated[list[str] | None, typer.Option("--type")] = None,
    top_k: Annotated[int, typer.Option()] = 10,
    mode: Annotated[str, typer.Option(help="hybrid|semantic|keyword")] = "hybrid",
    url: Url = DEFAULT_URL,
) -> None:
    """Hybrid (semantic + keyword) search."""
    body: dict[str, Any] = {"query": query, "top_k": top_k, "mode": mode}
    if scope:
        body["scope"] = scope
    if tag:
        body["tags"] = tag
    if type_:
        body["types"] = type_
    with client(url) as c:
        emit(c.post("/v1/memories/search", json=body))


@app.command()
def delete(
    memory_id: str,
    reason: Annotated[str, typer.Option()] = "user_request",
    url: Url = DEFAULT_URL,
) -> None:
    """Forget one memory everywhere (log event, tombstone, every projection)."""
    with client(url) as c:
        emit(c.delete(f"/v1/memories/{memory_id}", params={"wait": True, "reason": reason}))


@app.command()
def govern(
    once: Annotated[bool, typer.Option(help="Run one pass and exit.")] = False,
    interval: Annotated[float | None, typer.Option(envvar="AIMEM_GOVERN_INTERVAL")] = None,
) -> None:
    """Run the governor (distributed deployments; the embedded server governs itself)."""
    from ai_memory.bootstrap import build
    from ai_memory.service.governor import Governor
    from ai_memory.settings import Settings

    settings = Settings.from_env()
    container = build(settings)
    try:
        for tailer in container.projections.tailers:
            tailer.catch_up()  # in-process views: decide on the whole log
        every = settings.govern_interval if interval is None else interval
        governor = Governor(container.governance, settings.govern_tenants, every)
        while True:
            done = governor.run_once()
            err.print(f"governor pass: {done} transitions")
            if once or every <= 0:
                return
            time.sleep(every)
    finally:
        container.close()


@app.command()
def optimize(
    data_dir: Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")] = None,
) -> None:
    """Compact the embedded index and build its HNSW graph (stop the server first)."""
    from ai_memory.bootstrap import build
    from ai_memory.settings import Settings

    overrides: dict[str, object] = {} if data_dir is None else {"data_dir": data_dir}
    container = build(Settings.from_env(**overrides))
    try:
        start = time.perf_counter()
        with err.status("optimizing the index"):
            changed = container.index.optimize()
        err.print(f"index optimized in {time.perf_counter() - start:.1f}s (changed: {changed})")
    finally:
        container.close()


def main() -> None:  # pragma: no cover - console entry point
    sys.exit(app())
