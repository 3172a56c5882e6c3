"""The signature of a webhook delivery, and its verification.

A delivery is signed with the subscription's secret::

    X-AIMemory-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>

The HMAC key is the secret string as UTF-8 (``whsec_…`` included), the message the
decimal timestamp, a dot, and the raw body bytes exactly as sent. The timestamp is in
the signed message, so a captured delivery cannot be replayed later with a fresh one:
a verifier refuses a timestamp further than its tolerance from its own clock (300 s by
default), either way. Several ``v1=`` values may appear (a future secret rotation); one
matching is enough. Digests are compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

SIGNATURE_HEADER = "X-AIMemory-Signature"
DEFAULT_TOLERANCE_S = 300
_SCHEME = "v1"


class WebhookVerificationError(ValueError):
    """A delivery that must not be trusted; ``reason`` says why (stable words)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """Hex HMAC-SHA256 of ``"<timestamp>." + body`` under ``secret``."""
    message = str(timestamp).encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    return f"t={timestamp},{_SCHEME}={signature(secret, timestamp, body)}"


def header_of(headers: Mapping[str, str], name: str) -> str | None:
    """A header by name, whatever the case of the mapping's keys."""
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None


def verify(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> int:
    """The signed timestamp if ``body`` was signed with ``secret`` within
    ``tolerance_s`` seconds of ``now``; ``WebhookVerificationError`` otherwise."""
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    header = header_of(headers, SIGNATURE_HEADER)
    if not header:
        raise WebhookVerificationError("missing_signature", f"no {SIGNATURE_HEADER} header")
    timestamp: int | None = None
    candidates: list[str] = []
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            raise WebhookVerificationError("malformed_signature", "malformed signature header")
        if key == "t":
            # ASCII digits only: str.isdigit() also accepts "²" (int() then fails) and
            # other scripts' digits, which no signer writes.
            if (
                not (value.isascii() and value.isdigit())
                or len(value) > 12
                or timestamp is not None
            ):
                raise WebhookVerificationError("malformed_signature", "malformed timestamp")
            timestamp = int(value)
        elif key == _SCHEME:
            candidates.append(value)
    if timestamp is None or not candidates:
        raise WebhookVerificationError("malformed_signature", f"the header needs t= and {_SCHEME}=")
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_s:
        raise WebhookVerificationError(
            "timestamp_out_of_tolerance",
            f"signed at {timestamp}, {abs(current - timestamp):.0f} s from now "
            f"(tolerance {tolerance_s:g} s): a replay or a wrong clock",
        )
    expected = signature(secret, timestamp, raw)
    # Every candidate is compared (no early exit on the first mismatch's position).
    matched = False
    for candidate in candidates:
        # As bytes: compare_digest refuses str with non-ASCII characters (a TypeError).
        given = candidate.strip().lower().encode("utf-8")
        matched |= hmac.compare_digest(expected.encode("ascii"), given)
    if not matched:
        raise WebhookVerificationError("signature_mismatch", "the signature does not match")
    return timestamp
