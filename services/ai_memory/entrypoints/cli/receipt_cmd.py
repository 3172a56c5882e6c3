"""Erasure receipts on the command line.

* ``ai-memory verify-receipt receipt.json --public-key key.pem``: checks a receipt
  offline — no server, no data directory — against the server's public key (PEM, or the
  base64 of its raw 32 bytes). Exit codes: 0 valid, 1 invalid or tampered, 2 usage.
* ``ai-memory receipt-public-key``: prints the public key of this deployment's
  receipt-signing key (``AIMEM_RECEIPT_KEY`` or the data directory's ``receipt.key``),
  to hand to auditors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ai_memory.core.errors import AiMemoryError
from ai_memory.sdk.receipts import ReceiptInvalidError, load_public_key, verify_receipt
from ai_memory.settings import Settings, SettingsError

out = Console()
err = Console(stderr=True)

ReceiptFile = Annotated[Path, typer.Argument(help="The receipt (GET /v1/erasures/{id}).")]
PublicKey = Annotated[
    Path, typer.Option("--public-key", help="The server's receipt public key (PEM or base64).")
]
DataDir = Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")]


def verify_receipt_cmd(receipt: ReceiptFile, public_key: PublicKey) -> None:
    """Verify an erasure receipt offline; exit 1 if it was changed or signed by another key."""
    # The SDK's verifier (ai_memory.sdk.receipts): the command checks exactly what
    # ``verify_receipt`` in a program checks.
    try:
        key = load_public_key(public_key.read_bytes())
        document = receipt.read_bytes()
    except (OSError, ReceiptInvalidError) as e:
        err.print(f"cannot read: {e}", markup=False)
        raise typer.Exit(2) from None
    try:
        checked = verify_receipt(document, key)
    except ReceiptInvalidError as e:
        err.print(f"invalid: {e}", markup=False)
        raise typer.Exit(1) from None
    body = checked.receipt
    passed = body.verification.passed
    out.print(
        f"valid: erasure {body.erasure_id} of tenant {body.tenant}, signed by "
        f"key {checked.signature.key_id}; verification scan {'passed' if passed else 'FAILED'}",
        markup=False,
    )


def receipt_public_key_cmd(data_dir: DataDir = None) -> None:
    """Print the public key that verifies this deployment's erasure receipts (PEM)."""
    from ai_memory.bootstrap import receipt_signing_key
    from ai_memory.service.receipts import public_key_pem

    try:
        settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    except SettingsError as e:
        err.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    try:
        key = receipt_signing_key(settings)
    except AiMemoryError as e:
        err.print(f"{e.code}: {e}", markup=False)
        raise typer.Exit(1) from None
    out.print(public_key_pem(key.public_key()), end="", markup=False)
