"""Tenant-bound position tokens: what a tenant sees instead of a log position.

A log position (``core.positions``) counts every tenant's events of its partition, so two
positions a tenant was given tell it how much other tenants wrote between them. A tenant
is therefore never shown a position, only ``token = E_tenant(position)``: a keyed
pseudorandom permutation of the position domain ``[1, 2**52)`` with a key of the tenant's
own. Tokens stay integers (the API's types do not change), read-your-writes still works
(the server decodes the token with the caller's key), and two tokens say nothing about
each other: not their order, not their distance.

**52 bits**, not 64: a token must survive JSON in JavaScript (the console, the
TypeScript SDK), whose numbers are exact up to 2**53; a Kafka position packs the offset
above 10 partition bits, so a partition holds 2**42 (4.4 trillion) events before a
position leaves the domain.

The permutation is a Feistel network over two 26-bit halves with keyed BLAKE2b as round
function (Luby–Rackoff: rounds of a pseudorandom function make a strong pseudorandom
permutation; keyed BLAKE2b is a PRF by design, like HMAC-SHA256, at a third of its cost
here; no maintained format-preserving-encryption library was at hand). Halves this
narrow want more than the four rounds of the proof: ten, as NIST's FF1 uses for small
domains. A Feistel network permutes ``[0, 2**52)``; 0 means "no wait" and stays 0, so
the other values walk the cycle past 0 (cycle walking keeps a bijection of
``[1, 2**52)``).
A token of another tenant, or a made-up one, decodes to an unrelated position: far
beyond the log head but with a negligible chance, and then refused.
"""

from __future__ import annotations

import hashlib

HALF_BITS = 26
HALF_MASK = (1 << HALF_BITS) - 1
TOKEN_LIMIT = 1 << (2 * HALF_BITS)  # positions and tokens are below 2**52
ROUNDS = 10


class PositionCipher:
    """The permutation of one tenant (``key``: a secret of 32 bytes, the tenant's own)."""

    __slots__ = ("_rounds",)

    def __init__(self, key: bytes) -> None:
        if not 16 <= len(key) <= 64:
            raise ValueError("a position key has 16 to 64 bytes")
        # One keyed state per round, built once; a round copies it (half the cost of
        # keying again).
        self._rounds = tuple(
            hashlib.blake2b(key=key, digest_size=4, person=b"aimem.pos.r%d" % i)
            for i in range(ROUNDS)
        )

    def encode(self, position: int) -> int:
        """The token of ``position`` (0 → 0)."""
        _check(position)
        if position == 0:
            return 0
        token = self._forward(position)
        while token == 0:  # cycle walking: 0 is nobody's token
            token = self._forward(token)
        return token

    def decode(self, token: int) -> int:
        """The position of ``token`` (0 → 0); ``ValueError`` outside the domain."""
        _check(token)
        if token == 0:
            return 0
        position = self._backward(token)
        while position == 0:
            position = self._backward(position)
        return position

    def _forward(self, value: int) -> int:
        left, right = value >> HALF_BITS, value & HALF_MASK
        for keyed in self._rounds:
            prf = keyed.copy()
            prf.update(right.to_bytes(4, "big"))
            left, right = right, left ^ (int.from_bytes(prf.digest(), "big") & HALF_MASK)
        return (left << HALF_BITS) | right

    def _backward(self, value: int) -> int:
        left, right = value >> HALF_BITS, value & HALF_MASK
        for keyed in reversed(self._rounds):
            prf = keyed.copy()
            prf.update(left.to_bytes(4, "big"))
            left, right = right ^ (int.from_bytes(prf.digest(), "big") & HALF_MASK), left
        return (left << HALF_BITS) | right


def _check(value: int) -> None:
    if not 0 <= value < TOKEN_LIMIT:
        raise ValueError(f"{value} is outside [0, 2**52)")
