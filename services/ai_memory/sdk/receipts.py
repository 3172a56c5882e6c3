"""Offline verification of erasure receipts — the one verifier the SDK and
``ai-memory verify-receipt`` share.

A receipt (``GET /v1/erasures/{id}``) is ``{"receipt": {...}, "signature": {"algorithm",
"key_id", "value"}}``: ``value`` is the Ed25519 signature of the receipt's canonical JSON
(sorted keys, no whitespace, UTF-8). Verifying re-canonicalises the parsed receipt, so a
pretty-printed copy still verifies while any changed, added or removed field fails.
Nothing here touches a server: an auditor needs the receipt and the public key
(``GET /v1/erasures/public-key``), nothing else.

It needs the ``cryptography`` package, which a client-only install (``pip install
ai-memory``) does not bring; it is imported when a key is loaded, so the rest of the SDK
works without it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ai_memory.core.receipt_format import ALGORITHM, canonical_json, key_id_of, parse_signed

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from .models import ErasureReceipt

__all__ = [
    "ALGORITHM",
    "ReceiptInvalidError",
    "canonical_json",
    "key_id",
    "load_public_key",
    "verify_document",
    "verify_receipt",
]


class ReceiptInvalidError(ValueError):
    """The receipt does not verify: malformed, signed by another key, or changed after
    it was signed (or the public key is not an Ed25519 key)."""


def _without_cryptography(e: ModuleNotFoundError) -> ModuleNotFoundError:
    return ModuleNotFoundError(
        "verifying a receipt needs the cryptography package: pip install cryptography "
        "(or ai-memory[server])",
        name=e.name,
    )


def key_id(key: Ed25519PublicKey) -> str:
    """The id a receipt's ``signature.key_id`` names its key by: the first 16 hex digits
    of SHA-256 of the raw 32-byte public key (a hint for an auditor holding several keys;
    the signature, not the id, is what is trusted)."""
    from cryptography.hazmat.primitives import serialization

    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return key_id_of(raw)


def load_public_key(text: str | bytes) -> Ed25519PublicKey:
    """A PEM public key, or the base64 of its raw 32 bytes."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ModuleNotFoundError as e:  # a client-only install
        raise _without_cryptography(e) from e
    try:
        data = text.encode("ascii") if isinstance(text, str) else text
        if b"-----BEGIN" in data:
            key = serialization.load_pem_public_key(data)
        else:
            raw = base64.b64decode(data.strip(), validate=True)
            key = Ed25519PublicKey.from_public_bytes(raw)
    except (ValueError, UnicodeError) as e:
        raise ReceiptInvalidError(f"not an Ed25519 public key: {e}") from e
    if not isinstance(key, Ed25519PublicKey):
        raise ReceiptInvalidError("not an Ed25519 public key")
    return key


def verify_document(document: Any, key: Ed25519PublicKey) -> dict[str, Any]:
    """The receipt body, if ``document`` is a receipt signed by ``key``; otherwise
    ``ReceiptInvalidError`` saying why."""
    from cryptography.exceptions import InvalidSignature

    if not isinstance(document, dict) or set(document) != {"receipt", "signature"}:
        raise ReceiptInvalidError("a receipt has exactly the fields receipt and signature")
    receipt, signature = document["receipt"], document["signature"]
    if not isinstance(receipt, dict) or not isinstance(signature, dict):
        raise ReceiptInvalidError("receipt and signature must be objects")
    if signature.get("algorithm") != ALGORITHM:
        raise ReceiptInvalidError(f"signature.algorithm must be {ALGORITHM}")
    if signature.get("key_id") != key_id(key):
        raise ReceiptInvalidError("signed by another key (signature.key_id)")
    try:
        raw = base64.b64decode(str(signature.get("value")), validate=True)
        key.verify(raw, canonical_json(receipt))
    except (InvalidSignature, ValueError) as e:
        raise ReceiptInvalidError("the signature does not match the receipt") from e
    return receipt


def verify_receipt(
    receipt: ErasureReceipt | Mapping[str, Any] | str | bytes,
    public_key: str | bytes | Ed25519PublicKey,
) -> ErasureReceipt:
    """Check an erasure receipt offline and return it typed.

    ``receipt`` is what ``erasure_receipt`` returned, the signed document as a dict, or
    its JSON text; ``public_key`` the server's key as PEM (``erasure_public_key().pem``),
    the base64 of its raw bytes, or a loaded key. Raises ``ReceiptInvalidError`` when the
    receipt was changed, signed by another key, or is not a receipt. A valid signature
    says the server issued it; whether the erasure's own scan found nothing readable is
    ``.receipt.verification.passed``.
    """
    from .models import ErasureReceipt

    if isinstance(receipt, ErasureReceipt):
        document: Any = receipt.raw  # the bytes as served, not a re-serialised model
    elif isinstance(receipt, str | bytes):
        try:
            document = parse_signed(receipt)
        except ValueError as e:
            raise ReceiptInvalidError(f"not a JSON receipt: {e}") from e
    else:
        document = json.loads(json.dumps(receipt))  # plain JSON values, as signed
    key = public_key if not isinstance(public_key, str | bytes) else load_public_key(public_key)
    verify_document(document, key)
    try:
        return ErasureReceipt.model_validate(document)
    except ValueError as e:  # signed by the server, but not a receipt this SDK reads
        raise ReceiptInvalidError(f"not an erasure receipt: {e}") from e
