"""``ai-memory webhooks create|list|show|delete|resume``: a tenant's webhook
subscriptions, through a running server (``AIMEM_URL``, an admin key in
``AIMEM_API_KEY``), like every other client command (``--url`` is the server; the
receiver is ``create``'s argument).

``create`` prints the signing secret once (the server never shows it again); ``--json``
on every subcommand prints the server's answer. Failures (a refused destination, a
reader key, an unknown id) are reported by ``failures.py``: one line and its exit code.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ai_memory.entrypoints.cli.output import Json, emit, emit_json
from ai_memory.entrypoints.cli.transfer_cmds import DEFAULT_URL, api_key
from ai_memory.sdk import MemoryClient, WebhookOut

app = typer.Typer(
    no_args_is_help=True,
    help="Subscribe URLs to the change feed (signed deliveries; an admin key).",
)
out = Console()
err = Console(stderr=True)

Server = Annotated[str, typer.Option("--url", envvar="AIMEM_URL", help="Server base URL.")]
WebhookId = Annotated[str, typer.Argument(help="The webhook's id (wh_…).")]


def _client(url: str) -> MemoryClient:
    return MemoryClient(url, api_key=api_key())


def _describe(hook: WebhookOut) -> None:
    """One webhook, a field a line (what ``show`` and ``resume`` print)."""
    status = hook.status if hook.paused_reason is None else f"paused ({hook.paused_reason})"
    lines = [
        ("id", hook.id),
        ("url", hook.url),
        ("scopes", ", ".join(hook.scopes)),
        ("kinds", ", ".join(hook.kinds)),
        ("description", hook.description),
        ("status", status),
        ("delivered", str(hook.delivered)),
        ("failures", str(hook.failures)),
        ("cursor", hook.cursor),
        ("last attempt", hook.last_attempt_at or "-"),
        ("last status", "-" if hook.last_status is None else str(hook.last_status)),
        ("last error", hook.last_error or "-"),
        ("created", f"{hook.created_at} by {hook.created_by}"),
    ]
    for name, value in lines:
        typer.echo(f"{name + ':':<14}{value}")


@app.command("create")
def create_cmd(
    receiver: Annotated[
        str, typer.Argument(help="Where deliveries are POSTed (an http or https URL).")
    ],
    scope: Annotated[
        list[str], typer.Option("--scope", help="A scope to follow (repeatable; '*': every one).")
    ],
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", help="written|state_changed|forgotten (repeatable; default all)."),
    ] = None,
    description: Annotated[str, typer.Option(help="Free text for people.")] = "",
    as_json: Json = False,
    server: Server = DEFAULT_URL,
) -> None:
    """Subscribe a URL to the changes of some scopes, from now on; prints the secret once."""
    with _client(server) as client:
        created = client.create_webhook(
            receiver, scopes=scope, kinds=kind or None, description=description
        )
    if as_json:
        emit(created)
    else:
        typer.echo(f"id:     {created.id}")
        typer.echo(f"secret: {created.secret}")
    err.print(
        "Keep the secret now: it verifies every delivery and will not be shown again.",
        markup=False,
    )


@app.command("list")
def list_cmd(as_json: Json = False, server: Server = DEFAULT_URL) -> None:
    """The tenant's webhooks and their delivery state (never their secrets)."""
    with _client(server) as client:
        found = client.list_webhooks()
    if as_json:
        emit(found)
        return
    if not found.webhooks:
        err.print("no webhooks", markup=False)
        return
    table = Table()
    # Ids whole (a command takes them); the rest folds on a narrow terminal.
    table.add_column("id", no_wrap=True, min_width=19)
    table.add_column("status", no_wrap=True)
    for name in ("failures", "delivered", "scopes", "url"):
        table.add_column(name, overflow="fold")
    for hook in found.webhooks:
        table.add_row(
            hook.id,
            hook.status,
            str(hook.failures),
            str(hook.delivered),
            ",".join(hook.scopes),
            hook.url,
        )
    out.print(table)


@app.command("show")
def show_cmd(webhook_id: WebhookId, as_json: Json = False, server: Server = DEFAULT_URL) -> None:
    """One webhook: active or paused (and why), the cursor, the last attempt."""
    with _client(server) as client:
        hook = client.get_webhook(webhook_id)
    if as_json:
        emit(hook)
    else:
        _describe(hook)


@app.command("delete")
def delete_cmd(webhook_id: WebhookId, as_json: Json = False, server: Server = DEFAULT_URL) -> None:
    """Stop delivering for good."""
    with _client(server) as client:
        client.delete_webhook(webhook_id)
    if as_json:
        emit_json({"id": webhook_id, "deleted": True})
    else:
        typer.echo(f"deleted {webhook_id}")


@app.command("resume")
def resume_cmd(webhook_id: WebhookId, as_json: Json = False, server: Server = DEFAULT_URL) -> None:
    """Resume a paused webhook from the last change its receiver acknowledged."""
    with _client(server) as client:
        hook = client.resume_webhook(webhook_id)
    if as_json:
        emit(hook)
    else:
        _describe(hook)
