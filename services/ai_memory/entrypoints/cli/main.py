"""The ``ai-memory`` command line.

``serve`` and ``replay`` work on a data directory (replay needs the server stopped: the
embedded index is single-process). Every other command is a client of a running server
(``--url`` / ``AIMEM_URL``), so the CLI and agents see exactly the same API.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ai_memory.core.hosts import is_loopback
from ai_memory.entrypoints.cli.erase_cmd import erase_cmd
from ai_memory.entrypoints.cli.existing_data import require_data_dir
from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import CommandFailure, ReportingGroup
from ai_memory.entrypoints.cli.launcher import explain, missing_extra
from ai_memory.entrypoints.cli.output import AlwaysJson, emit
from ai_memory.entrypoints.cli.sync_cmd import sync_cmd
from ai_memory.entrypoints.cli.transfer_cmds import api_key, export_cmd, import_cmd
from ai_memory.entrypoints.cli.webhooks_cmd import app as webhooks_app
from ai_memory.sdk import MemoryClient, MemoryIn

if TYPE_CHECKING:
    from ai_memory.service.keys import KeyService
    from ai_memory.settings import Settings

app = typer.Typer(
    cls=ReportingGroup,  # every failure: one line and its exit code (failures.py)
    add_completion=False,
    no_args_is_help=True,
    help="ai-memory: event-sourced memory for AI agents.",
)
app.command("export")(export_cmd)
app.command("import")(import_cmd)
app.command("sync")(sync_cmd)
app.command("erase")(erase_cmd)
app.add_typer(webhooks_app, name="webhooks")
err = Console(stderr=True)


def _unavailable(name: str, error: ModuleNotFoundError, extra: str) -> Callable[..., None]:
    def command(ctx: typer.Context) -> None:
        err.print(explain(error, extra), markup=False)
        raise typer.Exit(2)

    command.__doc__ = f"(needs ai-memory[{extra}]) {name}"
    return command


def _server_command(name: str, module: str, attr: str, *, group: bool = False) -> None:
    """Register a command that works on the server or its data. Without the server's
    dependencies (a client-only install) it is still listed, and says what to install."""
    try:
        target = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as e:
        extra = missing_extra(e)
        if extra is None:
            raise
        loose = {"allow_extra_args": True, "ignore_unknown_options": True}
        app.command(name, context_settings=loose)(_unavailable(name, e, extra))
        return
    if group:
        app.add_typer(target, name=name)
    else:
        app.command(name)(target)


_server_command("replay", "ai_memory.entrypoints.cli.replay_cmd", "replay_cmd")
_server_command("dead-letters", "ai_memory.entrypoints.cli.dead_letters_cmd", "app", group=True)
_server_command("keys", "ai_memory.entrypoints.cli.keys_cmd", "app", group=True)
_server_command("vault", "ai_memory.entrypoints.cli.vault_cmd", "app", group=True)
_server_command("verify-receipt", "ai_memory.entrypoints.cli.receipt_cmd", "verify_receipt_cmd")
_server_command(
    "receipt-public-key", "ai_memory.entrypoints.cli.receipt_cmd", "receipt_public_key_cmd"
)
_server_command("project", "ai_memory.entrypoints.cli.project_cmd", "project_cmd")
_server_command("migrate", "ai_memory.entrypoints.cli.migrate_cmd", "migrate_cmd")
_server_command("doctor", "ai_memory.entrypoints.cli.doctor_cmd", "doctor_cmd")
_server_command("mcp", "ai_memory.entrypoints.cli.mcp_cmd", "mcp_cmd")
_server_command("bench", "ai_memory.entrypoints.cli.bench_cmd", "app", group=True)

Url = Annotated[str, typer.Option(envvar="AIMEM_URL", help="Server base URL.")]
DEFAULT_URL = "http://127.0.0.1:8080"


def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"ai-memory {version('ai-memory')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("ai-memory (version unknown: the package is not installed)")
        raise typer.Exit()


@app.callback()
def root(
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            envvar="AIMEM_DEBUG",
            help="On failure, print the Python traceback too (AIMEM_DEBUG=1).",
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """ai-memory: event-sourced memory for AI agents."""


@contextmanager
def client(url: str) -> Iterator[MemoryClient]:
    """The SDK client; what it raises is reported by ``failures.ReportingGroup``."""
    with MemoryClient(url, timeout=60.0, api_key=api_key()) as c:
        yield c


def open_bind_refusal(keys: KeyService | None, host: str, insecure_open: bool) -> str | None:
    """Why ``serve`` must not start, or None. With no API key the server is in open
    development mode — every caller is tenant ``default`` with every right — which is
    only safe where nobody else can connect."""
    if insecure_open or is_loopback(host) or (keys is not None and keys.required()):
        return None
    return (
        f"refusing to serve on {host!r} without API keys: in open development mode anyone "
        "who reaches the port can read, search and forget every memory. Create a key first "
        "(ai-memory keys create --tenant <t> --role admin --scopes '*' --name ops), bind "
        "127.0.0.1, or pass --insecure-open (AIMEM_INSECURE_OPEN=true) for development."
    )


def adopt_admin_key(keys: KeyService | None, settings: Settings) -> None:
    """Make the deployment's ``AIMEM_ADMIN_KEY`` (a secret, never logged) valid, so a
    server started from a manifest is closed from its first request."""
    token = settings.admin_key.get_secret_value()
    if keys is None or not token:
        return
    info = keys.adopt(token, tenant=settings.admin_tenant, name="AIMEM_ADMIN_KEY")
    state = "revoked" if info.revoked_at is not None else "active"
    err.print(f"admin key {info.key_id} of tenant {info.tenant!r} ({state})")


@app.command()
def serve(
    # No ``envvar`` on these: the settings read AIMEM_HOST, AIMEM_PORT, … themselves, so a
    # bad value is reported like any other setting (naming it, exit 5), not as usage.
    host: Annotated[str | None, typer.Option(help="Address to bind [AIMEM_HOST].")] = None,
    port: Annotated[int | None, typer.Option(help="Port [AIMEM_PORT].")] = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="The embedded deployment's folder [AIMEM_DATA_DIR].")
    ] = None,
    insecure_open: Annotated[
        bool,
        typer.Option(
            "--insecure-open",
            help="Serve beyond loopback with no API key (anyone who reaches the port can "
            "read and forget everything). Development only [AIMEM_INSECURE_OPEN].",
        ),
    ] = False,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            help="Also serve /metrics on this port, without a key, for Prometheus on the "
            "internal network (0: only on the API port, where it needs an operator key) "
            "[AIMEM_METRICS_PORT].",
        ),
    ] = None,
) -> None:
    """Run the HTTP server with the embedded log, record store and index."""
    import uvicorn

    from ai_memory.bootstrap import build, check_settings
    from ai_memory.core.errors import AiMemoryError
    from ai_memory.entrypoints import heap_freeze
    from ai_memory.entrypoints.cli.observability import start_tracing
    from ai_memory.entrypoints.http import access_log, metrics
    from ai_memory.entrypoints.http.app import create_app
    from ai_memory.entrypoints.http.slow_headers import with_header_timeout
    from ai_memory.settings import Settings

    given = {"host": host, "port": port, "data_dir": data_dir, "metrics_port": metrics_port}
    overrides: dict[str, object] = {k: v for k, v in given.items() if v is not None}
    if insecure_open:
        overrides["insecure_open"] = True
    settings = Settings.from_env(**overrides)
    check_settings(settings)  # every value, before a store or the data dir is touched
    bind = settings.host
    insecure_open = settings.insecure_open
    metrics_port = settings.metrics_port
    stop_tracing = start_tracing(settings, "ai-memory-gateway")
    container = build(settings)
    try:
        adopt_admin_key(container.services.keys, settings)
    except AiMemoryError as e:
        container.close()
        raise CommandFailure(f"bad setting AIMEM_ADMIN_KEY: {e}", ExitCode.BAD_SETTING) from e
    refusal = open_bind_refusal(container.services.keys, bind, insecure_open)
    if refusal is not None:
        container.close()
        err.print(f"[red]{refusal}[/red]")
        raise typer.Exit(2)
    container.start(governor=True)
    open_mode = None
    if insecure_open and not is_loopback(bind):
        from ai_memory.entrypoints.cli.open_mode import OpenModeWarning

        open_mode = OpenModeWarning(container.services.keys, bind)
        container.services.health.notices.append(open_mode.message)
        open_mode.start()
    try:
        api = create_app(container.services)
        if metrics_port:
            metrics.serve_on_port(api, metrics_port, bind)
        # Once the index has read its points into memory, the heap is frozen out of the
        # collector's full collections (their pauses stop every request).
        heap_freeze.start_for(container.services.index_compaction)
        uvicorn.run(
            api,
            host=bind,
            port=settings.port,
            log_level="info",
            log_config=access_log.log_config(settings.log_format),  # never query strings
            # httptools parses in C and uvloop runs the loop in C: less CPU per request
            # (slow_headers). Slow clients cannot hold connections: headers within
            # header_timeout (the body has its own timeout at the edge), at most 64 KiB
            # of request line and headers, idle keep-alives closed after 5 s.
            http=with_header_timeout(settings.header_timeout),
            loop="uvloop",
            timeout_keep_alive=5,
        )
    finally:
        if open_mode is not None:
            open_mode.stop()
        container.close()
        stop_tracing()


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
    as_json: AlwaysJson = False,
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
        record = MemoryIn.model_validate(body)
        if memory_id:
            emit(c.upsert(memory_id, record, wait=True))
        else:
            emit(c.create(record, wait=True))


@app.command()
def get(memory_id: str, as_json: AlwaysJson = False, url: Url = DEFAULT_URL) -> None:
    """Read one memory (exit 1 with 'gone' if it was forgotten)."""
    with client(url) as c:
        emit(c.get(memory_id))


@app.command()
def search(
    query: str,
    scope: Annotated[str | None, typer.Option()] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag")] = None,
    type_: Annotated[list[str] | None, typer.Option("--type")] = None,
    top_k: Annotated[int, typer.Option()] = 10,
    mode: Annotated[str, typer.Option(help="hybrid|semantic|keyword")] = "hybrid",
    as_json: AlwaysJson = False,
    url: Url = DEFAULT_URL,
) -> None:
    """Hybrid (semantic + keyword) search."""
    with client(url) as c:
        emit(
            c.search(
                query,
                scope=scope or None,
                tags=tag or None,
                types=type_ or None,
                top_k=top_k,
                mode=mode,
            )
        )


@app.command()
def delete(
    memory_id: str,
    reason: Annotated[str, typer.Option()] = "user_request",
    as_json: AlwaysJson = False,
    url: Url = DEFAULT_URL,
) -> None:
    """Forget one memory everywhere (log event, tombstone, every projection)."""
    with client(url) as c:
        emit(c.delete(memory_id, reason=reason, wait=True))


@app.command()
def audit(
    actor: Annotated[str | None, typer.Option(help="Only this actor (key:<id>).")] = None,
    action: Annotated[
        str | None, typer.Option(help="Only this action: written, forgotten, state_changed, …")
    ] = None,
    since: Annotated[str | None, typer.Option(help="Continue after a page's next.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many entries (1-1000).")] = 100,
    tenant: Annotated[str | None, typer.Option(help="The tenant (operator keys).")] = None,
    as_json: AlwaysJson = False,
    url: Url = DEFAULT_URL,
) -> None:
    """Who did what in your tenant, from the log (an admin key in AIMEM_API_KEY): one page
    as JSON, never content; pass its next as --since for the following page."""
    with client(url) as c:
        emit(c.audit(since=since, actor=actor, action=action, limit=limit, tenant=tenant))


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
    # On Kafka the governor appends through the gateways (it owns no partition).
    container = build(settings, owns_partitions=False)
    try:
        container.catch_up()  # in-process views: decide on the whole log
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
    settings = Settings.from_env(**overrides)
    require_data_dir(settings, settings.resolved().index_url)  # nothing to optimize
    container = build(settings)
    try:
        start = time.perf_counter()
        with err.status("optimizing the index"):
            changed = container.optimize_index()
        err.print(f"index optimized in {time.perf_counter() - start:.1f}s (changed: {changed})")
    finally:
        container.close()


def main() -> None:  # pragma: no cover - console entry point
    sys.exit(app())
