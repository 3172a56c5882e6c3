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
from ai_memory.entrypoints.cli.existing_data import require_data_dir
from ai_memory.entrypoints.cli.output import Json, emit_json
from ai_memory.settings import Settings

app = typer.Typer(no_args_is_help=True, help="The data-key vault of crypto-shredding.")
out = Console()
err = Console(stderr=True)

DataDir = Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")]


def _existing(data_dir: Path | None) -> Settings:
    """The deployment's settings; its vault is never created here."""
    settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    require_data_dir(settings, settings.resolved().record_store_url)
    return settings


@app.command("reconcile")
def reconcile_cmd(as_json: Json = False, data_dir: DataDir = None) -> None:
    """Destroy again every key whose forget is on the log."""
    settings = _existing(data_dir)
    done = run_vault_reconcile(settings)
    if as_json:
        emit_json(
            {
                "destroyed": [{"tenant": t, "key_id": k} for t, k in done.destroyed],
                "keks_destroyed": [{"tenant": t, "version": v} for t, v in done.keks_destroyed],
                "tombstones": done.tombstones,
                "events": done.events,
            }
        )
        return
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
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Rotate a tenant's KEK: new version, every data key re-wrapped, old versions destroyed."""
    done = run_vault_rotate(_existing(data_dir), tenant)
    if as_json:
        emit_json(
            {
                "tenant": done.tenant,
                "new_version": done.new_version,
                "rewrapped": done.rewrapped,
                "old_versions_destroyed": list(done.old_versions),
                "resumed": done.resumed,
            }
        )
        return
    old = ", ".join(f"v{v}" for v in done.old_versions) or "none"
    out.print(
        f"tenant {done.tenant}: KEK v{done.new_version} wraps every data key "
        f"({done.rewrapped} re-wrapped); destroyed {old}"
        + (" (a rotation stopped part-way was finished)" if done.resumed else ""),
        markup=False,
    )
