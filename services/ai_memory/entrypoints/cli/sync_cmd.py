"""``ai-memory sync --from URL --to URL --scope S [--follow]``: replicate one scope from
one instance to another (``sdk.replication``; the convergence rule in
``docs/design/SYNC.md``).

Resumable: the cursor of the last change settled is kept in a state file (``--state``;
by default ``ai-memory-sync-<digest of from, to, scope>.json`` in the working directory)
after every batch, so a sync stopped anywhere — Ctrl-C, a crash, an instance down —
continues there. Idempotent: settling a memory twice writes nothing the second time.
Keys: ``AIMEM_FROM_API_KEY`` and ``AIMEM_TO_API_KEY`` (each falls back to
``AIMEM_API_KEY``); a pass may write to both instances (the loser of a conflict gets
the winner), so both keys need read and write rights in the scope.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ai_memory.entrypoints.cli.output import AlwaysJson
from ai_memory.sdk import ApiError, MemoryClient
from ai_memory.sdk.replication import Replicator, SyncReport
from ai_memory.settings import client_api_key

err = Console(stderr=True)


def default_state(source: str, target: str, scope: str) -> Path:
    digest = hashlib.sha256(f"{source}\n{target}\n{scope}".encode()).hexdigest()[:12]
    return Path(f"ai-memory-sync-{digest}.json")


def read_cursor(path: Path, identity: dict[str, str]) -> str | None:
    """The saved cursor; a state file of another sync is refused, not reused."""
    if not path.exists():
        return None
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if {k: state.get(k) for k in identity} != identity:
        raise typer.BadParameter(
            f"{path} is the state of another sync ({state.get('from')} → {state.get('to')}, "
            f"scope {state.get('scope')}); pass another --state",
            param_hint="--state",
        )
    cursor = state.get("cursor")
    return cursor if isinstance(cursor, str) else None


def write_cursor(path: Path, identity: dict[str, str], cursor: str) -> None:
    """Written whole then renamed: a crash leaves the old state or the new, never half."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({**identity, "cursor": cursor}), encoding="utf-8")
    partial.replace(path)


def sync_cmd(
    source: Annotated[str, typer.Option("--from", help="URL of the instance to read changes of.")],
    target: Annotated[str, typer.Option("--to", help="URL of the instance to bring them to.")],
    scope: Annotated[str, typer.Option("--scope", help="The scope to replicate.")],
    follow: Annotated[
        bool, typer.Option("--follow", help="Keep replicating changes as they come.")
    ] = False,
    state: Annotated[
        Path | None, typer.Option("--state", help="File keeping the cursor (resume point).")
    ] = None,
    batch: Annotated[int, typer.Option(min=1, max=1000, help="Changes settled per batch.")] = 100,
    as_json: AlwaysJson = False,
) -> None:
    """Replicate a scope between instances: writes, state changes and forgets, resumably."""
    path = state or default_state(source, target, scope)
    identity = {"from": source, "to": target, "scope": scope}
    cursor = read_cursor(path, identity)
    shared = client_api_key()
    report = SyncReport(cursor=cursor)
    try:
        with (
            MemoryClient(source, api_key=client_api_key("from_api_key") or shared) as a,
            MemoryClient(target, api_key=client_api_key("to_api_key") or shared) as b,
        ):
            replicator = Replicator(
                a, b, scope, source_name=source, target_name=target, batch=batch
            )
            report = replicator.run(
                cursor,
                follow=follow,
                save=lambda c: write_cursor(path, identity, c),
                progress=report,
            )
    except KeyboardInterrupt:
        err.print("stopped; the next run resumes from the saved cursor")
    except ApiError:
        # What was settled before the failure, then the failure's own line and code.
        err.print(json.dumps(report.to_json()), markup=False)
        raise
    typer.echo(json.dumps(report.to_json()))
