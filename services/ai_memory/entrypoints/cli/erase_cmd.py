"""``ai-memory erase``: subject erasure through a running server (``--url`` /
``AIMEM_URL``, an admin key in ``AIMEM_API_KEY``), like every other client command.

It prints the erasure id on stdout (so a script can keep it; ``--json``: the whole
answer) and, with ``--receipt``,
saves the signed receipt as the server served it — ready for ``ai-memory
verify-receipt`` and an auditor (``--public-key`` saves the key that verifies it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ai_memory.entrypoints.cli.output import Json, emit
from ai_memory.entrypoints.cli.transfer_cmds import DEFAULT_URL, api_key
from ai_memory.sdk import MemoryClient

err = Console(stderr=True)

Ids = Annotated[list[str] | None, typer.Option("--id", help="Erase this memory (repeatable).")]
Turns = Annotated[
    list[str] | None,
    typer.Option("--interaction-id", help="Erase this raw turn (repeatable)."),
]


def erase_cmd(
    reason: Annotated[str, typer.Option(help="Why: recorded on the log and in the receipt.")],
    scope: Annotated[str | None, typer.Option(help="Erase everything of this scope.")] = None,
    source_agent: Annotated[
        str | None, typer.Option(help="Erase everything this agent wrote or said.")
    ] = None,
    memory_id: Ids = None,
    interaction_id: Turns = None,
    everything: Annotated[
        bool, typer.Option("--everything", help="Erase the whole tenant (offboarding).")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm --everything.")] = False,
    erasure_id: Annotated[
        str | None, typer.Option(help="Name the erasure, so running it again is the same one.")
    ] = None,
    receipt: Annotated[
        Path | None, typer.Option(help="Save the signed receipt (JSON) to this file.")
    ] = None,
    public_key: Annotated[
        Path | None, typer.Option(help="Save the key that verifies receipts (PEM) here.")
    ] = None,
    as_json: Json = False,
    url: Annotated[str, typer.Option(envvar="AIMEM_URL", help="Server base URL.")] = DEFAULT_URL,
) -> None:
    """Forget everything of one subject — exactly one of --scope, --source-agent, --id,
    --interaction-id or --everything — everywhere, destroying its data keys."""
    if everything and not yes:
        # Offboarding cannot be undone: a flag typed by mistake must not erase a tenant.
        err.print("[red]--everything erases the whole tenant; add --yes to confirm[/red]")
        raise typer.Exit(2)
    with MemoryClient(url, timeout=120.0, api_key=api_key()) as client:
        done = client.erase(
            reason=reason,
            scope=scope,
            source_agent=source_agent,
            ids=memory_id or None,
            interaction_ids=interaction_id or None,
            everything=everything,
            erasure_id=erasure_id,
            wait=True,  # the receipt then shows every projection applied
        )
        if as_json:
            emit(done)
        else:
            typer.echo(done.erasure_id)
        again = " (already done before)" if done.already_done else ""
        err.print(
            f"erased {done.memories} memories and {done.interactions} raw turns{again}",
            markup=False,
        )
        # The erasure happened whatever follows: a file that cannot be written is
        # reported (exit 4) and the erasure id above still names it.
        if receipt is not None:
            signed = client.erasure_receipt(done.erasure_id)
            text = json.dumps(signed.raw, ensure_ascii=False, indent=2) + "\n"
            receipt.write_text(text, encoding="utf-8")
            err.print(f"receipt saved to {receipt}", markup=False)
        if public_key is not None:
            public_key.write_text(client.erasure_public_key().pem, encoding="ascii")
            err.print(f"public key saved to {public_key}", markup=False)
