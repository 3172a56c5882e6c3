"""Issuing, parsing and checking API keys (pure, with injected time and randomness)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest

from ai_memory.core.access import check_key, issue_key, parse_key
from ai_memory.core.errors import InvalidInput
from tests.factories import T0


def counter_random() -> Callable[[int], bytes]:
    counter = itertools.count(1)
    return lambda n: bytes([next(counter) % 256]) * n


def test_a_key_is_prefix_id_and_256_bit_secret() -> None:
    issued = issue_key(tenant="acme", role="writer", scopes=["user:*"], name="planner", now=T0)
    prefix, key_id, secret = issued.token.split("_", 2)
    assert prefix == "aimem" and key_id == issued.key.key_id and len(key_id) == 16
    assert len(secret) == 43  # 32 bytes of base64url
    assert secret not in repr(issued) and issued.key.secret_hash not in repr(issued)
    parsed = parse_key(issued.token)
    assert parsed is not None
    principal = check_key(issued.key, parsed, T0)
    assert principal is not None
    assert (principal.tenant, principal.role, principal.scopes) == ("acme", "writer", ("user:*",))
    assert principal.actor == f"key:{key_id}"


def test_injected_randomness_gives_the_same_key() -> None:
    def make() -> str:
        return issue_key(
            tenant="acme", role="reader", scopes=["*"], name="x", now=T0, random=counter_random()
        ).token

    assert make() == make()


def test_two_keys_never_share_id_or_secret() -> None:
    a, b = (issue_key(tenant="acme", role="reader", scopes=["*"], name="x", now=T0) for _ in "ab")
    assert a.key.key_id != b.key.key_id and a.token != b.token


@pytest.mark.parametrize(
    "token",
    [
        "",
        "Bearer x",
        "aimem_",
        "aimem_0123456789abcdef_short",
        "other_0123456789abcdef_" + "A" * 43,
        "aimem_0123456789ABCDEF_" + "A" * 43,
        "aimem_0123456789abcdef_" + "A" * 42 + "!",
    ],
)
def test_malformed_tokens_do_not_parse(token: str) -> None:
    assert parse_key(token) is None


def test_every_refusal_is_the_same_none() -> None:
    issued = issue_key(
        tenant="acme",
        role="writer",
        scopes=["*"],
        name="x",
        now=T0,
        expires_at=T0 + timedelta(days=1),
    )
    parsed = parse_key(issued.token)
    assert parsed is not None
    wrong = replace(parsed, secret="B" * 43)
    revoked = replace(issued.key, info=replace(issued.key.info, revoked_at=T0))
    assert check_key(issued.key, wrong, T0) is None
    assert check_key(None, parsed, T0) is None
    assert check_key(revoked, parsed, T0) is None
    assert check_key(issued.key, parsed, T0 + timedelta(days=1)) is None  # expired
    assert check_key(issued.key, parsed, T0 + timedelta(hours=23)) is not None
    other = issue_key(tenant="acme", role="writer", scopes=["*"], name="y", now=T0)
    assert check_key(other.key, parsed, T0) is None  # a key's hash is bound to its id


@pytest.mark.parametrize(
    ("field", "kwargs"),
    [
        ("tenant", {"tenant": "Acme Corp"}),
        ("role", {"role": "root"}),
        ("scopes", {"scopes": []}),
        ("scopes", {"scopes": ["user:al*"]}),
        ("scopes", {"scopes": ["*:alice"]}),
        ("name", {"name": " "}),
        ("expires_at", {"expires_at": T0}),
    ],
)
def test_issuing_refuses_what_it_cannot_enforce(field: str, kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {
        "tenant": "acme",
        "role": "reader",
        "scopes": ["user:*"],
        "name": "n",
        "now": T0,
    }
    with pytest.raises(InvalidInput) as e:
        issue_key(**{**args, **kwargs})  # type: ignore[arg-type]
    assert e.value.field == field
