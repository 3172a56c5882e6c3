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


def key_id_of(raw_public_key: bytes) -> str:
    """The id a receipt's ``signature.key_id`` names its key by."""
    return hashlib.sha256(raw_public_key).hexdigest()[:16]
