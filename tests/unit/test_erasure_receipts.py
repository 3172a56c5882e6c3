"""Erasure receipts: canonical JSON, Ed25519 signatures, the signing key's sources, and
what an erasure request may say."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ai_memory.adapters.receipt_key import RECEIPT_KEY_FILE, load_receipt_key, parse_receipt_key
from ai_memory.core.erasure import ErasureRequest
from ai_memory.core.errors import InvalidInput
from ai_memory.core.receipt_format import canonical_json
from ai_memory.core.record import Limits
from ai_memory.sdk.receipts import ReceiptInvalidError, load_public_key, verify_document
from ai_memory.service.receipts import key_id, public_key_pem, raw_public_key, sign_receipt

BODY = {"erasure_id": "era-1", "tenant": "acme", "erased": {"memory_ids": ["b", "a"]}, "n": 3}


def test_canonical_json_sorts_keys_and_has_no_whitespace() -> None:
    assert canonical_json({"b": 1, "a": [1, {"d": "é", "c": None}]}) == (
        '{"a":[1,{"c":null,"d":"é"}],"b":1}'.encode()
    )
    assert canonical_json({"a": 1, "b": 2}) == canonical_json({"b": 2, "a": 1})
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_a_signed_receipt_verifies_and_any_change_fails() -> None:
    key = Ed25519PrivateKey.generate()
    document = sign_receipt(key, BODY)
    assert verify_document(document, key.public_key()) == BODY
    # Pretty-printed, keys reordered: the same receipt.
    again = json.loads(json.dumps(document, indent=2, sort_keys=False))
    assert verify_document(again, key.public_key()) == BODY
    changes = [
        lambda d: d["receipt"].update(n=4),
        lambda d: d["receipt"]["erased"]["memory_ids"].pop(),
        lambda d: d["receipt"].update(extra=True),
        lambda d: d["receipt"].pop("tenant"),
        lambda d: d["signature"].update(value=base64.b64encode(b"\0" * 64).decode()),
        lambda d: d["signature"].update(value="not base64!"),
        lambda d: d["signature"].update(algorithm="RSA"),
        lambda d: d.update(more=1),
    ]
    for change in changes:
        tampered = json.loads(json.dumps(document))
        change(tampered)
        with pytest.raises(ReceiptInvalidError):
            verify_document(tampered, key.public_key())


def test_another_key_does_not_verify() -> None:
    document = sign_receipt(Ed25519PrivateKey.generate(), BODY)
    with pytest.raises(ReceiptInvalidError, match="another key"):
        verify_document(document, Ed25519PrivateKey.generate().public_key())


def test_public_keys_load_from_pem_or_raw_base64() -> None:
    public = Ed25519PrivateKey.generate().public_key()
    raw = base64.b64encode(raw_public_key(public)).decode()
    for text in (public_key_pem(public), raw):
        assert key_id(load_public_key(text)) == key_id(public)
    with pytest.raises(ReceiptInvalidError):
        load_public_key("bm90IGEga2V5")


def test_the_signing_key_comes_from_the_setting_or_a_generated_file(tmp_path: Path) -> None:
    generated = load_receipt_key("", tmp_path, embedded=True)
    path = tmp_path / RECEIPT_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_receipt_key("", tmp_path, embedded=True)
    assert key_id(again.public_key()) == key_id(generated.public_key())
    seed = Ed25519PrivateKey.generate()
    raw = seed.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    configured = parse_receipt_key(base64.b64encode(raw).decode())
    assert key_id(configured.public_key()) == key_id(seed.public_key())
    pem = seed.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    assert key_id(load_receipt_key(pem, tmp_path, embedded=False).public_key()) == key_id(
        seed.public_key()
    )
    with pytest.raises(InvalidInput) as e:
        load_receipt_key("", tmp_path / "shared", embedded=False)
    assert e.value.field == "AIMEM_RECEIPT_KEY"
    with pytest.raises(InvalidInput):
        parse_receipt_key("garbage")


def test_an_erasure_names_exactly_one_subject() -> None:
    limits = Limits()

    def parse(body: object) -> ErasureRequest:
        return ErasureRequest.parse(body, limits, lambda: "era-new")

    r = parse({"scope": "user:bob", "reason": "asked"})
    assert (r.erasure_id, r.criteria()) == ("era-new", {"scope": "user:bob"})
    r = parse({"ids": ["a", "b", "a"], "reason": "asked", "erasure_id": "era-7"})
    assert (r.erasure_id, r.ids) == ("era-7", ("a", "b"))
    assert parse({"source_agent": "x", "reason": "r"}).criteria() == {"source_agent": "x"}
    assert parse({"everything": True, "reason": "r"}).criteria() == {"everything": True}
    refused = [
        ({"reason": "r"}, "scope"),
        ({"scope": "user:a", "ids": ["a"], "reason": "r"}, "scope"),
        ({"scope": "user:a"}, "reason"),
        ({"scope": "user:a", "reason": "x" * 1001}, "reason"),
        ({"ids": "a", "reason": "r"}, "ids"),
        ({"everything": "yes", "reason": "r"}, "everything"),
        ({"everything": True, "scope": "user:a", "reason": "r"}, "scope"),
        ({"ids": ["a"], "reason": "r", "erasure_id": "-x"}, "erasure_id"),
        ({"scope": "user:a", "reason": "r", "tenant": "t"}, "tenant"),
        ([], "body"),
    ]
    for body, field in refused:
        with pytest.raises(InvalidInput) as e:
            parse(body)
        assert e.value.field == field, body


def test_a_receipt_read_from_text_is_parsed_strictly() -> None:
    """A validly signed receipt with a key added twice (which value a parser keeps
    differs between parsers), trailing data, a number written another way or a NaN:
    refused by every verifier that reads text, before any signature is checked."""
    from ai_memory.core.receipt_format import parse_signed
    from ai_memory.sdk._erasure import receipt_call
    from ai_memory.sdk.errors import ServerError
    from ai_memory.sdk.receipts import verify_receipt

    key = Ed25519PrivateKey.generate()
    body = {**BODY, "size": 0.5}
    text = json.dumps(sign_receipt(key, body), sort_keys=True)
    assert verify_document(parse_signed(text), key.public_key()) == body
    tampered = {
        "duplicate key 'tenant'": text.replace(
            '"tenant": "acme"', '"tenant": "evil", "tenant": "acme"'
        ),
        "duplicate key 'n'": text.replace('"receipt": {', '"receipt": {"n": 4, '),
        "Extra data": text + " {}",
        "non-canonical number -0": text.replace('"n": 3', '"n": -0'),
        "non-canonical number 5e-1": text.replace('"size": 0.5', '"size": 5e-1'),
        "non-canonical number 0.50": text.replace('"size": 0.5', '"size": 0.50'),
        "NaN is not JSON": text.replace('"size": 0.5', '"size": NaN'),
    }
    # Another value (a float where an int was signed) parses, and fails the signature.
    with pytest.raises(ReceiptInvalidError, match="does not match"):
        verify_document(parse_signed(text.replace('"n": 3', '"n": 3.0')), key.public_key())
    URL = "http://127.0.0.1/v1/erasures/era-1"
    for why, bad in tampered.items():
        assert bad != text
        with pytest.raises(ValueError, match=why):
            parse_signed(bad)
        with pytest.raises(ReceiptInvalidError, match=why):
            verify_receipt(bad, key.public_key())
        answer = httpx.Response(200, content=bad.encode(), request=httpx.Request("GET", URL))
        with pytest.raises(ServerError, match=why):  # the SDK's erasure_receipt
            receipt_call("era-1").parse(answer)
