"""The bytes an erasure receipt is signed over, shared by the signer (the server) and
every verifier (the SDK, ``ai-memory verify-receipt``): one definition, so the two can
never canonicalise differently.

Canonical JSON is sorted keys, no whitespace, UTF-8, no NaN. A key is named by the first
16 hex digits of SHA-256 of its raw 32 public bytes: a hint for an auditor holding
several keys; the signature, not the id, is what is trusted.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

ALGORITHM = "Ed25519"


def canonical_json(value: Any) -> bytes:
    """The bytes a receipt is signed over: sorted keys, no whitespace, UTF-8."""
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def parse_signed(text: str | bytes) -> Any:
    """A signed document's JSON text, parsed strictly (``ValueError`` otherwise): no key
    twice in an object, no trailing data, no ``NaN``/``Infinity``, every number written
    as canonical JSON writes it. With a duplicated key, which value a parser keeps
    differs between parsers, so ``"tenant":"evil","tenant":"t4"`` could verify here
    while an auditor's tool reads ``evil``; a number written two ways is one value with
    two texts. Every verifier reads a receipt through this."""
    return json.loads(
        text,
        object_pairs_hook=_unique_keys,
        parse_constant=_no_constant,
        parse_int=_canonical_int,
        parse_float=_canonical_float,
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _canonical_int(text: str) -> int:
    value = int(text)
    if str(value) != text:
        raise ValueError(f"non-canonical number {text}")
    return value


def _canonical_float(text: str) -> float:
    value = float(text)
    if json.dumps(value) != text:
        raise ValueError(f"non-canonical number {text}")
    return value


def key_id_of(raw_public_key: bytes) -> str:
    """The id a receipt's ``signature.key_id`` names its key by."""
    return hashlib.sha256(raw_public_key).hexdigest()[:16]
