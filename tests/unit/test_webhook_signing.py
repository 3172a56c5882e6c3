"""The delivery signature and the SDK's verifier: a genuine delivery passes; a changed
body, a changed signature, another secret, an old or a future timestamp, a missing or
malformed header are refused."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest

from ai_memory.core.webhooks.signing import signature_header
from ai_memory.sdk.webhooks import WebhookVerificationError, verify_webhook

SECRET = "whsec_test-secret"
NOW = 1_800_000_000
BODY = json.dumps({"type": "memory.changes", "events": [{"event_id": "evt_1"}]}).encode()


def signed(body: bytes = BODY, at: int = NOW, secret: str = SECRET) -> dict[str, str]:
    return {"X-AIMemory-Signature": signature_header(secret, at, body)}


def refusal(headers: dict[str, str], body: bytes | str = BODY, **kw: float) -> str:
    with pytest.raises(WebhookVerificationError) as caught:
        verify_webhook(SECRET, headers, body, now=kw.pop("now", NOW), **kw)
    return caught.value.reason


def test_the_scheme_is_hmac_sha256_of_timestamp_dot_body() -> None:
    """Written out, so another language's verifier can be checked against it."""
    expected = hmac.new(SECRET.encode(), f"{NOW}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert signed()["X-AIMemory-Signature"] == f"t={NOW},v1={expected}"


def test_a_genuine_delivery_is_accepted_and_parsed() -> None:
    delivery = verify_webhook(SECRET, signed(), BODY, now=NOW + 299)
    assert delivery["events"] == [{"event_id": "evt_1"}]
    # Header names are case-insensitive; a str body is its UTF-8 bytes.
    lower = {"x-aimemory-signature": signed()["X-AIMemory-Signature"]}
    assert verify_webhook(SECRET, lower, BODY.decode(), now=NOW)["type"] == "memory.changes"


def test_a_tampered_body_is_refused() -> None:
    tampered = BODY.replace(b"evt_1", b"evt_2")
    assert refusal(signed(), tampered) == "signature_mismatch"
    assert refusal(signed(), BODY + b" ") == "signature_mismatch"


def test_a_tampered_signature_is_refused() -> None:
    header = signed()["X-AIMemory-Signature"]
    flipped = header[:-1] + ("0" if header[-1] != "0" else "1")
    assert refusal({"X-AIMemory-Signature": flipped}) == "signature_mismatch"
    # The timestamp is signed: moving it (to pass the tolerance) breaks the signature.
    moved = header.replace(f"t={NOW}", f"t={NOW + 1}")
    assert refusal({"X-AIMemory-Signature": moved}) == "signature_mismatch"


def test_another_secret_is_refused() -> None:
    assert refusal(signed(secret="whsec_other")) == "signature_mismatch"


def test_an_old_timestamp_is_a_replay() -> None:
    assert refusal(signed(at=NOW - 301)) == "timestamp_out_of_tolerance"
    assert refusal(signed(at=NOW - 61), tolerance_s=60) == "timestamp_out_of_tolerance"
    assert refusal(signed(at=NOW + 301)) == "timestamp_out_of_tolerance"  # from the future


@pytest.mark.parametrize(
    "header",
    ["", "v1=abc", f"t={NOW}", f"t=x,v1={'0' * 64}", "garbage", f"t={NOW},t={NOW},v1=00"],
)
def test_a_missing_or_malformed_header_is_refused(header: str) -> None:
    reason = refusal({"X-AIMemory-Signature": header} if header else {})
    assert reason in ("missing_signature", "malformed_signature")


def test_one_matching_signature_of_several_is_enough() -> None:
    good = signed()["X-AIMemory-Signature"]
    rotated = f"{good},v1={'0' * 64}"
    assert verify_webhook(SECRET, {"X-AIMemory-Signature": rotated}, BODY, now=NOW)


def test_a_signed_body_that_is_not_an_object_is_refused() -> None:
    body = b"[1, 2]"
    assert refusal(signed(body), body) == "malformed_body"


def test_the_documented_test_vector() -> None:
    """docs/API.md gives this vector to verifiers in other languages."""
    header = signature_header("whsec_test-secret", 1_800_000_000, b'{"a":1}')
    vector = "77b55b9065c27028a07a7baaf5636e5988858d904a7c4f0b324ef23c0a22696a"
    assert header == f"t=1800000000,v1={vector}"
    doc = Path(__file__).resolve().parents[2] / "docs" / "API.md"
    assert vector in doc.read_text(encoding="utf-8")


@pytest.mark.parametrize("timestamp", ["²", "١٨٠٠٠٠٠٠٠٠", "1_800", " 1800000000", "+1800000000"])
def test_a_timestamp_of_anything_but_ascii_digits_is_malformed(timestamp: str) -> None:
    """``str.isdigit`` accepts "²" (then ``int`` fails) and other scripts' digits."""
    v1 = signed()["X-AIMemory-Signature"].split(",")[1]
    assert refusal({"X-AIMemory-Signature": f"t={timestamp},{v1}"}) == "malformed_signature"


@pytest.mark.parametrize("v1", ["é" * 64, "\u00e9" * 32, "ff" * 31 + "\u0100"])
def test_a_non_ascii_signature_is_a_mismatch_not_a_crash(v1: str) -> None:
    """``hmac.compare_digest`` raises TypeError on str with non-ASCII characters."""
    assert refusal({"X-AIMemory-Signature": f"t={NOW},v1={v1}"}) == "signature_mismatch"
