"""Erasure receipts on the command line.

* ``ai-memory verify-receipt receipt.json --public-key key.pem``: checks a receipt
  offline — no server, no data directory — against the server's public key (PEM, or the
  base64 of its raw 32 bytes). Exit codes: 0 valid, 1 invalid or tampered, 2 usage,
  4 a file that cannot be read.
* ``ai-memory receipt-public-key``: prints the public key of this deployment's
  receipt-signing key (``AIMEM_RECEIPT_KEY`` or the data directory's ``receipt.key``),
  to hand to auditors. It refuses a data directory that does not exist (exit 4) rather
  than generate a key there that verifies nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ai_memory.entrypoints.cli.existing_data import require_data_dir
from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.entrypoints.cli.failures import CommandFailure
from ai_memory.entrypoints.cli.output import Json, emit_json
from ai_memory.sdk.receipts import ReceiptInvalidError, load_public_key, verify_receipt
from ai_memory.settings import Settings

out = Console()
err = Console(stderr=True)

ReceiptFile = Annotated[Path, typer.Argument(help="The receipt (GET /v1/erasures/{id}).")]
PublicKey = Annotated[
    Path, typer.Option("--public-key", help="The server's receipt public key (PEM or base64).")
]
DataDir = Annotated[Path | None, typer.Option(envvar="AIMEM_DATA_DIR")]


def verify_receipt_cmd(receipt: ReceiptFile, public_key: PublicKey, as_json: Json = False) -> None:
    """Verify an erasure receipt offline; exit 1 if it was changed or signed by another key."""
    # The SDK's verifier (ai_memory.sdk.receipts): the command checks exactly what
    # ``verify_receipt`` in a program checks.
    try:
        key = load_public_key(public_key.read_bytes())
    except ReceiptInvalidError as e:
        raise CommandFailure(f"cannot read {public_key}: {e}", ExitCode.BAD_INPUT) from e
    document = receipt.read_bytes()
    try:
        checked = verify_receipt(document, key)
    except ReceiptInvalidError as e:
        if as_json:
            emit_json({"valid": False, "reason": str(e)})
        raise CommandFailure(f"invalid receipt: {e}", ExitCode.REFUSED) from e
    body = checked.receipt
    passed = body.verification.passed
    if as_json:
        emit_json(
            {
                "valid": True,
                "erasure_id": body.erasure_id,
                "tenant": body.tenant,
                "key_id": checked.signature.key_id,
                "verification_passed": passed,
            }
        )
        return
    out.print(
        f"valid: erasure {body.erasure_id} of tenant {body.tenant}, signed by "
        f"key {checked.signature.key_id}; verification scan {'passed' if passed else 'FAILED'}",
        markup=False,
    )


def receipt_public_key_cmd(data_dir: DataDir = None, as_json: Json = False) -> None:
    """Print the public key that verifies this deployment's erasure receipts (PEM)."""
    from ai_memory.bootstrap import receipt_signing_key
    from ai_memory.service.receipts import public_key_pem

    settings = Settings.from_env(**({} if data_dir is None else {"data_dir": data_dir}))
    if not settings.receipt_key.get_secret_value().strip():
        # The key is the data directory's receipt.key: a directory that does not exist
        # would get a new key, which verifies no receipt this deployment signed.
        require_data_dir(settings, settings.resolved().record_store_url)
    pem = public_key_pem(receipt_signing_key(settings).public_key())
    if as_json:
        emit_json({"public_key_pem": pem})
        return
    out.print(pem, end="", markup=False)
