"""What a caller is shown of log positions: its tenant's tokens (``core.position_tokens``).

The one place the rule lives. Every answer an entry point gives a tenant (HTTP, MCP,
A2A) that carries a log position carries ``shown(who, position)`` instead, and every
``min_position`` or cursor it takes back goes through ``taken(who, token)``. Waits inside
the deployment (``wait=true``, a batch, an import) keep raw positions: they never leave.

A token the caller's tenant was not given (another tenant's, a made-up one) is refused
exactly like a position beyond the log head — same field, code and message shape, and
the message names the token, never the position it decoded to or the head.

**Cursors** (change feed, audit trail) hold a position per partition; they are sealed
with AES-SIV under a key of the deployment (``seal_cursor``): the caller's tenant and the
positions inside, the cursor's kind as associated data. Deterministic (the same place
gives the same cursor, as before), opaque, unforgeable, and bound to the tenant: another
tenant's cursor (or a feed cursor given to the audit trail) is refused.

Without a secret (``PositionTokens(None)``: a bare ``Services`` built by a test or a
client-only build) positions are shown as they are and cursors are plain base64.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from ai_memory.core.errors import InvalidInput
from ai_memory.core.position_tokens import PositionCipher
from ai_memory.core.sealing import derived_key

from . import access
from .access import Who


def beyond_head(field: str, token: int) -> InvalidInput:
    """The refusal of a ``min_position`` no write of the caller returned (the one
    ``UnitsOfWork.check_position`` gives, naming what the caller sent)."""
    return InvalidInput(
        field,
        "beyond_head",
        f"{field} {token} is beyond the log head; pass a position that a write returned",
        code="position_beyond_head",
    )


class PositionTokens:
    def __init__(self, secret: bytes | Callable[[], bytes] | None) -> None:
        """``secret``: the deployment's, or what reads it when first needed (a process
        that never answers a tenant — a worker, a CLI command — never makes one)."""
        self._source = secret
        self._secret = functools.cache(self._read_secret)
        self._sealer = functools.cache(
            lambda: AESSIV(
                derived_key(self._secret(), "cursors|mac")
                + derived_key(self._secret(), "cursors|ctr")
            )
        )
        # One keyed permutation per tenant, built once (a tenant is a short string).
        self._cipher: Callable[[str], PositionCipher] = functools.lru_cache(maxsize=4096)(
            self._build
        )

    def _read_secret(self) -> bytes:
        source = self._source
        assert source is not None  # only asked when there is a secret
        return source if isinstance(source, bytes) else source()

    @property
    def enabled(self) -> bool:
        return self._source is not None

    def _build(self, tenant: str) -> PositionCipher:
        return PositionCipher(derived_key(self._secret(), "positions|" + tenant))

    def shown(self, who: Who, position: int) -> int:
        """What ``who`` is shown of ``position`` (0 stays 0)."""
        if self._source is None or not position:
            return position
        return self._cipher(access.caller_of(who).tenant).encode(position)

    def shown_all(self, who: Who, positions: Iterable[int]) -> list[int]:
        return [self.shown(who, p) for p in positions]

    def shown_in(
        self, who: Who, body: dict[str, Any], keys: Iterable[str] = ("position",)
    ) -> dict[str, Any]:
        """``body`` (an answer) with the positions under ``keys`` — at its top level only,
        never inside a memory's own fields — shown as ``who``'s tokens."""
        for key in keys:
            value = body.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                body[key] = self.shown(who, value)
        return body

    def taken(self, who: Who, token: int, field: str = "min_position") -> int:
        """The position of a token ``who`` was shown; ``beyond_head`` for anything else
        that is not a valid token of the domain."""
        if self._source is None or not token:
            return token
        try:
            return self._cipher(access.caller_of(who).tenant).decode(token)
        except ValueError:
            raise beyond_head(field, token) from None

    def reachable(
        self, who: Who, token: int, check: Callable[[int, str], None], field: str = "min_position"
    ) -> int:
        """``taken``, then ``check`` (``check_position``: refuses beyond the head) — its
        refusal names the token sent, not the position it decoded to."""
        position = self.taken(who, token, field)
        if position:
            try:
                check(position, field)
            except InvalidInput as e:
                if self._source is None:
                    raise
                raise beyond_head(field, token) from e
        return position

    # --- cursors ---------------------------------------------------------------------------
    def seal_cursor(self, kind: str, who: Who, positions: Mapping[int, int]) -> str:
        """An opaque cursor of ``kind`` holding ``positions``, bound to ``who``'s tenant."""
        tenant = access.caller_of(who).tenant
        # Fixed width: the cursor's length must not grow with the log (a digit more would
        # say that others wrote).
        pairs = (f"{p:04x}:{pos:016x}" for p, pos in sorted(positions.items()))
        text = "|".join([kind, tenant, *pairs]).encode()
        if self._source is not None:
            text = self._sealer().encrypt(text, [kind.encode()])
        return base64.urlsafe_b64encode(text).rstrip(b"=").decode("ascii")

    def cursor_positions(
        self, kind: str, who: Who, cursor: str, partitions: Sequence[int], refusal: InvalidInput
    ) -> dict[int, int]:
        """``open_cursor``, and every partition one of the log's with a position in its
        range; ``refusal`` otherwise — the same words whatever the reason (sealed: none can
        be forged, so no reason is worth telling)."""
        try:
            positions = self.open_cursor(kind, who, cursor)
        except ValueError:
            raise refusal from None
        if any(p not in partitions or not 0 <= pos <= 2**62 for p, pos in positions.items()):
            raise refusal
        return positions

    def open_cursor(self, kind: str, who: Who, cursor: str) -> dict[int, int]:
        """The positions of a cursor ``seal_cursor`` gave ``who``'s tenant for ``kind``;
        ``ValueError`` for anything else (forged, of another tenant, of another kind)."""
        try:
            data = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            if self._source is not None:
                data = self._sealer().decrypt(data, [kind.encode()])
            found, tenant, *pairs = data.decode().split("|")
            positions = {int(p, 16): int(pos, 16) for p, pos in (pair.split(":") for pair in pairs)}
        except (ValueError, UnicodeDecodeError, binascii.Error, InvalidTag) as e:
            raise ValueError("not a cursor") from e
        if found != kind or tenant != access.caller_of(who).tenant:
            raise ValueError("a cursor of another endpoint or tenant")
        return positions
