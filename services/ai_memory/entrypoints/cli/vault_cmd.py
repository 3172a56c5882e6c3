"""``ai-memory vault``: the data-key vault of crypto-shredding.

``reconcile`` brings the vault in line with the log: it destroys again the key of every
memory forgotten on the log (and of the turn it was extracted from) and the KEKs of an
offboarded tenant that the vault still holds — run it after restoring a vault backup, or
after a forget whose key destroy failed. ``rotate --tenant T`` gives a tenant a new KEK
version, wraps every data key again under it and destroys the old versions
(``service.key_rotation``). Both need ``AIMEM_ENCRYPTION=on`` and the same root key as
the server, are safe while the server runs and finish the job when run again.
Exit codes: 0 done, 1 refused, 2 usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ai_memory.bootstrap import run_vault_reconcile, run_vault_rotate
from ai_memory.core.errors import AiMemoryError
from ai_memory.settings import Settings, SettingsError

app = typer.Typer(no_args_is_help=True, help="The data-key vault of crypto-shredding.")
out = Console()
err = Console(stderr=True)

DataDir = Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")]


@app.command("reconcile")
def reconcile_cmd(data_dir: DataDir = None) -> None:
    """Destroy again every key whose forget is on the log."""
    try:
        settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    except SettingsError as e:
        err.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    try:
        done = run_vault_reconcile(settings)
    except AiMemoryError as e:
        err.print(f"[red]{e.code}[/red]: {e}", markup=True)
        raise typer.Exit(1) from None
    out.print(
        f"{len(done.destroyed)} keys destroyed again "
        f"({done.tombstones} forgotten memories, {done.events} events read)"
    )
    for tenant, key_id in done.destroyed:
        out.print(f"  {tenant} {key_id}", markup=False)
    for tenant, version in done.keks_destroyed:
        out.print(f"  {tenant} KEK v{version} (offboarded) destroyed again", markup=False)


@app.command("rotate")
def rotate_cmd(
    tenant: Annotated[str, typer.Option(help="The tenant whose KEK is rotated.")],
    data_dir: DataDir = None,
) -> None:
    """Rotate a tenant's KEK: new version, every data key re-wrapped, old versions destroyed."""
    try:
        settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    except SettingsError as e:
        err.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    try:
        done = run_vault_rotate(settings, tenant)
    except AiMemoryError as e:
        err.print(f"[red]{e.code}[/red]: {e}", markup=True)
        raise typer.Exit(1) from None
    old = ", ".join(f"v{v}" for v in done.old_versions) or "none"
    out.print(
        f"tenant {done.tenant}: KEK v{done.new_version} wraps every data key "
        f"({done.rewrapped} re-wrapped); destroyed {old}"
        + (" (a rotation stopped part-way was finished)" if done.resumed else ""),
        markup=False,
    )
