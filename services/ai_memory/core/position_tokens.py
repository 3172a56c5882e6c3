"""Tenant-bound position tokens: what a tenant sees instead of a log position.

A log position (``core.positions``) counts every tenant's events of its partition, so two
positions a tenant was given tell it how much other tenants wrote between them. A tenant
is therefore never shown a position, only ``token = E_tenant(position)``: a keyed
pseudorandom permutation of the position domain ``[1, 2**62)`` with a key of the tenant's
own. Tokens stay integers (the API's types do not change), read-your-writes still works
(the server decodes the token with the caller's key), and two tokens say nothing about
each other: not their order, not their distance.

The permutation is a 4-round Feistel network over two 31-bit halves with keyed BLAKE2b
as round function (Luby–Rackoff: four rounds of a pseudorandom function make a strong
pseudorandom permutation; keyed BLAKE2b is a PRF by design, like HMAC-SHA256, at a
third of its cost here; no maintained format-preserving-encryption library was at
hand). A Feistel network permutes ``[0, 2**62)``; 0 means "no wait" and stays 0, so the
other values walk the cycle past 0 (cycle walking keeps a bijection of ``[1, 2**62)``).
A token of another tenant, or a made-up one, decodes to an unrelated position: far
beyond the log head but with a negligible chance, and then refused.
"""

from __future__ import annotations

import hashlib

HALF_BITS = 31
HALF_MASK = (1 << HALF_BITS) - 1
TOKEN_LIMIT = 1 << (2 * HALF_BITS)  # positions and tokens are below 2**62
ROUNDS = 4


class PositionCipher:
    """The permutation of one tenant (``key``: a secret of 32 bytes, the tenant's own)."""

    __slots__ = ("_prf",)

    def __init__(self, key: bytes) -> None:
        if not 16 <= len(key) <= 64:
            raise ValueError("a position key has 16 to 64 bytes")
        # Keyed once; each round copies the keyed state (half the cost of keying again).
        self._prf = hashlib.blake2b(key=key, digest_size=8, person=b"aimem.positions")

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

    def _round(self, i: int, half: int) -> int:
        prf = self._prf.copy()
        prf.update(bytes((i,)) + half.to_bytes(4, "big"))
        return int.from_bytes(prf.digest()[:4], "big") & HALF_MASK

    def _forward(self, value: int) -> int:
        left, right = value >> HALF_BITS, value & HALF_MASK
        for i in range(ROUNDS):
            left, right = right, left ^ self._round(i, right)
        return (left << HALF_BITS) | right

    def _backward(self, value: int) -> int:
        left, right = value >> HALF_BITS, value & HALF_MASK
        for i in reversed(range(ROUNDS)):
            left, right = right ^ self._round(i, left), left
        return (left << HALF_BITS) | right


def _check(value: int) -> None:
    if not 0 <= value < TOKEN_LIMIT:
        raise ValueError(f"{value} is outside [0, 2**62)")
