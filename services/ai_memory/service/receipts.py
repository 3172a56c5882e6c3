"""Signed erasure receipts: canonical JSON and an Ed25519 signature over it (no I/O).

A receipt is evidence for an auditor who trusts neither the server nor the channel it
came through: ``{"receipt": {...}, "signature": {"algorithm", "key_id", "value"}}``, where
``value`` is the Ed25519 signature of the receipt's canonical JSON (sorted keys, no
whitespace, UTF-8). Verifying re-canonicalises the parsed receipt, so a pretty-printed
copy still verifies, while any changed value, added or removed field fails. ``key_id``
names the public key (the first 16 hex digits of SHA-256 of its raw 32 bytes) so an
auditor holding several can pick one; it is not trusted by itself — the signature is.
The canonical form is ``core.receipt_format``'s; verifying is the SDK's
(``ai_memory.sdk.receipts``), which auditors and ``ai-memory verify-receipt`` use.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ai_memory.core.receipt_format import ALGORITHM, canonical_json, key_id_of


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(key: Ed25519PublicKey) -> str:
    return key_id_of(raw_public_key(key))


def public_key_pem(key: Ed25519PublicKey) -> str:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def sign_receipt(key: Ed25519PrivateKey, receipt: Mapping[str, Any]) -> dict[str, Any]:
    public = key.public_key()
    signature = key.sign(canonical_json(receipt))
    return {
        "receipt": dict(receipt),
        "signature": {
            "algorithm": ALGORITHM,
            "key_id": key_id(public),
            "value": base64.b64encode(signature).decode("ascii"),
        },
    }
