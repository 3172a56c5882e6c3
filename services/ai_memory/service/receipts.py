"""Signed erasure receipts: canonical JSON and an Ed25519 signature over it (no I/O).

A receipt is evidence for an auditor who trusts neither the server nor the channel it
came through: ``{"receipt": {...}, "signature": {"algorithm", "key_id", "value"}}``, where
``value`` is the Ed25519 signature of the receipt's canonical JSON (sorted keys, no
whitespace, UTF-8). Verifying re-canonicalises the parsed receipt, so a pretty-printed
copy still verifies, while any changed value, added or removed field fails. ``key_id``
names the public key (the first 16 hex digits of SHA-256 of its raw 32 bytes) so an
auditor holding several can pick one; it is not trusted by itself — the signature is.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALGORITHM = "Ed25519"


class ReceiptInvalid(ValueError):
    """The receipt does not verify: malformed, another key, or changed after signing."""


def canonical_json(value: Any) -> bytes:
    """The bytes a receipt is signed over: sorted keys, no whitespace, UTF-8."""
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(key: Ed25519PublicKey) -> str:
    return hashlib.sha256(raw_public_key(key)).hexdigest()[:16]


def public_key_pem(key: Ed25519PublicKey) -> str:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def load_public_key(text: str | bytes) -> Ed25519PublicKey:
    """A PEM public key, or the base64 of its raw 32 bytes."""
    data = text.encode("ascii") if isinstance(text, str) else text
    try:
        if b"-----BEGIN" in data:
            key = serialization.load_pem_public_key(data)
        else:
            key = Ed25519PublicKey.from_public_bytes(base64.b64decode(data.strip(), validate=True))
    except ValueError as e:
        raise ReceiptInvalid(f"not an Ed25519 public key: {e}") from e
    if not isinstance(key, Ed25519PublicKey):
        raise ReceiptInvalid("not an Ed25519 public key")
    return key


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


def verify_receipt(document: Any, key: Ed25519PublicKey) -> dict[str, Any]:
    """The receipt, if ``document`` is one signed by ``key``; else ``ReceiptInvalid``."""
    if not isinstance(document, dict) or set(document) != {"receipt", "signature"}:
        raise ReceiptInvalid("a receipt has exactly the fields receipt and signature")
    receipt, signature = document["receipt"], document["signature"]
    if not isinstance(receipt, dict) or not isinstance(signature, dict):
        raise ReceiptInvalid("receipt and signature must be objects")
    if signature.get("algorithm") != ALGORITHM:
        raise ReceiptInvalid(f"signature.algorithm must be {ALGORITHM}")
    if signature.get("key_id") != key_id(key):
        raise ReceiptInvalid("signed by another key (signature.key_id)")
    value = signature.get("value")
    try:
        raw = base64.b64decode(str(value), validate=True)
        key.verify(raw, canonical_json(receipt))
    except (InvalidSignature, ValueError) as e:
        raise ReceiptInvalid("the signature does not match the receipt") from e
    return receipt
