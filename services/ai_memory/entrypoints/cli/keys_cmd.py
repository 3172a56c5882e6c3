"""``ai-memory keys create|list|revoke|generate``: the API keys of a deployment.

These open the key store directly (``keys.db`` in the data directory, or the Cassandra
keyspace of ``AIMEM_RECORD_STORE``), so they work while the server runs; a running
server sees a new key at once and refuses a revoked one within 5 seconds (its cache).
Creating the first key ends open development mode: from then on every request needs a
key.

``create`` prints the key on stdout and nothing else (``KEY=$(ai-memory keys create …)``);
it is shown this once and cannot be recovered, only revoked and replaced.
Exit codes (``exit_codes.py``): 0 done, 1 refused (bad argument, unknown key), 2 usage,
4 no such data directory (``list`` and ``revoke`` never create one), 5 bad setting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ai_memory.bootstrap import build_key_service
from ai_memory.core.access import ROLES, KeyInfo, generate_token
from ai_memory.core.errors import InvalidInput
from ai_memory.entrypoints.cli.existing_data import require_data_dir
from ai_memory.entrypoints.cli.output import Json, emit_json
from ai_memory.service.keys import KeyService
from ai_memory.settings import Settings

app = typer.Typer(no_args_is_help=True, help="Create, list and revoke API keys.")
out = Console()
err = Console(stderr=True)

DataDir = Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")]
Tenant = Annotated[
    str,
    typer.Option(
        help="the tenant the key belongs to, e.g. acme; '*' for an operator key of every "
        "tenant (metrics, any tenant's audit trail and usage)"
    ),
]
_DURATION = re.compile(r"^(\d{1,6})([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> timedelta:
    """``90s``, ``15m``, ``12h``, ``30d``, ``8w``."""
    match = _DURATION.match(text.strip())
    if match is None or int(match[1]) == 0:
        raise InvalidInput("expires", "duration", f"{text!r}: use e.g. 30d, 12h, 15m, 8w")
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


@contextmanager
def _keys(data_dir: Path | None, *, existing: bool = True) -> Iterator[KeyService]:
    """The key service on this deployment's store. ``existing``: the command reads keys,
    so an embedded data directory that does not exist is refused, not created."""
    settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    if existing:
        require_data_dir(settings, settings.resolved().record_store_url)
    service = build_key_service(settings)
    try:
        yield service
    finally:
        service.close()


def _at(at: datetime | None) -> str:
    return "" if at is None else at.isoformat(timespec="seconds").replace("+00:00", "Z")


def status(info: KeyInfo, now: datetime) -> str:
    if info.revoked_at is not None:
        return "revoked"
    return "active" if info.active(now) else "expired"


def as_json_info(info: KeyInfo, now: datetime) -> dict[str, Any]:
    return {
        "key_id": info.key_id,
        "tenant": info.tenant,
        "name": info.name,
        "role": info.role,
        "scopes": list(info.scopes),
        "created_at": _at(info.created_at),
        "expires_at": _at(info.expires_at) or None,
        "revoked_at": _at(info.revoked_at) or None,
        "status": status(info, now),
    }


@app.command("create")
def create_cmd(
    tenant: Tenant,
    role: Annotated[str, typer.Option(help="|".join(ROLES))],
    name: Annotated[str, typer.Option(help="who or what uses the key, e.g. planner")],
    scopes: Annotated[
        str, typer.Option(help="comma-separated: '*', 'user:*', 'team:data', 'public'")
    ] = "*",
    expires: Annotated[str | None, typer.Option(help="lifetime: 30d, 12h, 15m, 8w")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the key and its description as JSON.")
    ] = False,
    data_dir: DataDir = None,
) -> None:
    """Issue a key and print it once (stdout); its id and rights go to stderr."""
    with _keys(data_dir, existing=False) as keys:  # the first key may open a new deployment
        lifetime = None if expires is None else parse_duration(expires)
        issued = keys.create(
            tenant=tenant, role=role, scopes=scopes.split(","), name=name, expires_in=lifetime
        )
    info = issued.key.info
    if as_json:
        emit_json({"key": issued.token, **as_json_info(info, datetime.now(UTC))})
    else:
        typer.echo(issued.token)
    until = f", expires {_at(info.expires_at)}" if info.expires_at else ""
    err.print(
        f"key {info.key_id} of tenant {info.tenant}: {info.role} in {', '.join(info.scopes)}"
        f"{until} — store it now, it is shown only once",
        markup=False,
        highlight=False,
    )


@app.command("list")
def list_cmd(
    tenant: Tenant,
    as_json_lines: Annotated[bool, typer.Option("--json", help="one JSON object a line")] = False,
    data_dir: DataDir = None,
) -> None:
    """The tenant's keys (revoked and expired too); never a secret."""
    with _keys(data_dir) as keys:
        infos = keys.list(tenant)
    now = datetime.now(UTC)
    if as_json_lines:
        for info in infos:
            typer.echo(json.dumps(as_json_info(info, now), ensure_ascii=False))
        return
    table = Table("key_id", "name", "role", "scopes", "created", "expires", "status")
    # Narrow terminals wrap the other columns; the id is printed whole (it is what
    # `keys revoke` takes).
    for column in table.columns:
        column.overflow = "fold"
    table.columns[0].no_wrap = True
    table.columns[0].min_width = max((len(i.key_id) for i in infos), default=6)
    for i in infos:
        table.add_row(
            i.key_id,
            i.name,
            i.role,
            ",".join(i.scopes),
            _at(i.created_at),
            _at(i.expires_at),
            status(i, now),
        )
    out.print(table)
    out.print(f"{len(infos)} key(s)")


@app.command("revoke")
def revoke_cmd(
    key_id: Annotated[str, typer.Argument(help="the key's id (the part after aimem_)")],
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Revoke a key for good; running servers refuse it within 5 seconds."""
    with _keys(data_dir) as keys:
        info = keys.revoke(key_id)
    if as_json:
        emit_json(as_json_info(info, datetime.now(UTC)))
        return
    out.print(
        f"revoked {info.key_id} ({info.name}, tenant {info.tenant}) at {_at(info.revoked_at)}"
    )


@app.command("generate")
def generate_cmd(as_json: Json = False) -> None:
    """Print a new, well-formed key without storing it: for a deployment's secret
    (``AIMEM_ADMIN_KEY``), which ``serve`` adopts as an admin key at start."""
    token = generate_token()
    if as_json:
        emit_json({"key": token})
    else:
        typer.echo(token)
