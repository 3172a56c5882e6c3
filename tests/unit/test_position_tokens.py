"""Position tokens (``core.position_tokens``): a keyed permutation of [1, 2**52) per
tenant — reversible with the key, and saying nothing about order or distance without it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.position_tokens import TOKEN_LIMIT, PositionCipher
from ai_memory.core.positions import pack

ACME = PositionCipher(b"a" * 32)
INITECH = PositionCipher(b"i" * 32)
POSITIONS = st.integers(1, TOKEN_LIMIT - 1)


@given(POSITIONS)
def test_decode_inverts_encode(position: int) -> None:
    token = ACME.encode(position)
    assert 0 < token < TOKEN_LIMIT
    assert ACME.decode(token) == position


@given(st.integers(1, TOKEN_LIMIT - 1))
def test_encode_inverts_decode(token: int) -> None:
    # Every integer of the domain is some position's token: a bijection, no gaps to probe.
    assert ACME.encode(ACME.decode(token)) == token


def test_zero_means_no_wait_for_everyone() -> None:
    assert ACME.encode(0) == ACME.decode(0) == INITECH.encode(0) == 0


def test_distinct_positions_give_distinct_tokens() -> None:
    positions = [*range(1, 5000), *(pack(p, o) for p in range(4) for o in range(500))]
    tokens = {ACME.encode(p) for p in set(positions)}
    assert len(tokens) == len(set(positions))


@given(POSITIONS)
def test_tenants_see_different_tokens(position: int) -> None:
    assert ACME.encode(position) != INITECH.encode(position)
    # Another tenant's token read back with acme's key is some unrelated position.
    assert ACME.decode(INITECH.encode(position)) != position


def test_consecutive_positions_are_neither_ordered_nor_spaced() -> None:
    """What the tokens of writes 1..200 would show if they leaked a counter: each step
    up by one. Half the steps go down, and no step repeats the distance of another."""
    tokens = [ACME.encode(p) for p in range(1, 201)]
    steps = [b - a for a, b in itertools.pairwise(tokens)]
    downs = sum(1 for s in steps if s < 0)
    assert 60 < downs < 140
    assert len(set(steps)) == len(steps)


@pytest.mark.parametrize("bad", [-1, TOKEN_LIMIT, 2**64])
def test_values_outside_the_domain_are_refused(bad: int) -> None:
    with pytest.raises(ValueError):
        ACME.encode(bad)
    with pytest.raises(ValueError):
        ACME.decode(bad)


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError):
        PositionCipher(b"short")
