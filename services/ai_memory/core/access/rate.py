"""Token buckets: how many requests a key or a tenant may make, and when to come back.

A bucket holds up to ``burst`` tokens and gains ``rate`` tokens a second; a request takes
one, or is refused with the exact time until one is there. It is kept as the generic
cell rate algorithm (GCRA, "virtual scheduling"): the same bucket stored as one integer,
the theoretical arrival time ``tat`` of the next request, in nanoseconds:

* the emission interval is ``T = ceil(1e9 / rate)`` ns — rounded up, so a bucket never
  admits more than ``rate`` a second (it is at most 1 ns per request stricter);
* a request at ``t`` is admitted iff ``max(tat, t) - t <= (burst - 1)·T``, and then
  ``tat = max(tat, t) + T``; a full bucket is any ``tat <= t``;
* a refused request could have been admitted ``max(tat, t) - t - (burst - 1)·T`` ns
  later, exactly: that is its wait. ``Retry-After`` carries it rounded up to whole
  seconds (the header has no fractions), so a client that honours it is never refused
  again for the same empty bucket.

Integers rather than floats: "never more than ``burst + rate·elapsed``" then holds
exactly, not within a rounding error, and one int per bucket is all the state there is.

Pure: the caller's clock (monotonic nanoseconds; a wall-clock jump must neither refill
nor drain a bucket) is injected, nothing is global, nothing blocks. ``RateLimiter`` keeps
the buckets of one process and is meant for one thread (the HTTP door's event loop).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from .tenant_limits import LimitTable

NS = 1_000_000_000
#: Buckets kept before the full ones are dropped (a full bucket is the same as none).
PRUNE_AT = 10_000


@dataclass(frozen=True)
class TokenBucket:
    """The shape of a bucket (``rate`` tokens/s, up to ``burst``); its state is a ``tat``."""

    rate: float
    burst: int
    interval_ns: int = field(init=False, repr=False)
    tolerance_ns: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rate) and self.rate > 0) or self.burst < 1:
            raise ValueError("a token bucket needs a rate > 0 and a burst >= 1")
        # Derived once: ``take`` runs on every request.
        # Exact (``Fraction``): a float division could round the interval down by one ns.
        interval = max(1, math.ceil(Fraction(NS) / Fraction(self.rate)))
        object.__setattr__(self, "interval_ns", interval)
        object.__setattr__(self, "tolerance_ns", (self.burst - 1) * self.interval_ns)

    def take(self, tat: int | None, now: int) -> tuple[int, int]:
        """One request at ``now`` against a bucket at ``tat`` (None: never used, full).
        Returns ``(new_tat, 0)`` when admitted, ``(tat, wait_ns)`` when refused."""
        start = now if tat is None or tat < now else tat
        wait = start - now - self.tolerance_ns
        if wait > 0:
            return start, wait  # refused: ``start`` is ``tat``, unchanged
        return start + self.interval_ns, 0


def retry_after_seconds(wait_ns: int) -> int:
    """The ``Retry-After`` value for a wait: whole seconds, rounded up, at least 1."""
    return max(1, -(-wait_ns // NS))


@dataclass(frozen=True)
class Refusal:
    """Why a request was refused: which ``limit`` (the key's or the tenant's), that
    bucket's shape, and how long until it has a token (``wait_ns``, exact)."""

    limit: Literal["key", "tenant"]
    rate: float
    burst: int
    wait_ns: int

    @property
    def retry_after(self) -> int:
        return retry_after_seconds(self.wait_ns)


class RateLimiter:
    """The buckets of one process: one per API key and one per tenant.

    ``admit`` charges both or neither — a request refused by its tenant's bucket does not
    spend its key's token, and the other way round. A tenant or key whose limit is
    unlimited (rate 0) has no bucket at all."""

    def __init__(self, table: LimitTable, now_ns: Callable[[], int] = time.monotonic_ns) -> None:
        self.table = table
        self._now_ns = now_ns
        self._shapes: dict[str, tuple[TokenBucket | None, TokenBucket | None]] = {}
        self._keys: dict[str, int] = {}
        self._tenants: dict[str, int] = {}
        self._prune_at = PRUNE_AT

    def shapes(self, tenant: str) -> tuple[TokenBucket | None, TokenBucket | None]:
        """``(key bucket, tenant bucket)`` of ``tenant`` (None: unlimited)."""
        found = self._shapes.get(tenant)
        if found is None:
            limits = self.table.of(tenant)
            found = (
                TokenBucket(limits.key_rate, limits.key_burst) if limits.key_rate > 0 else None,
                TokenBucket(limits.rate, limits.burst) if limits.rate > 0 else None,
            )
            self._shapes[tenant] = found
        return found

    def admit(self, tenant: str, key_id: str | None) -> Refusal | None:
        """Charge one request of ``key_id`` (None: open development mode, no key) of
        ``tenant``; None when admitted, else the refusal of the first bucket that is empty."""
        key_shape, tenant_shape = self.shapes(tenant)
        now = self._now_ns()
        key_tat = tenant_tat = 0
        if key_shape is not None and key_id is not None:
            key_tat, wait = key_shape.take(self._keys.get(key_id), now)
            if wait:
                return Refusal("key", key_shape.rate, key_shape.burst, wait)
        if tenant_shape is not None:
            tenant_tat, wait = tenant_shape.take(self._tenants.get(tenant), now)
            if wait:
                return Refusal("tenant", tenant_shape.rate, tenant_shape.burst, wait)
            self._tenants[tenant] = tenant_tat
        if key_shape is not None and key_id is not None:
            self._keys[key_id] = key_tat
        if len(self._keys) + len(self._tenants) > self._prune_at:
            self._prune(now)
        return None

    def _prune(self, now: int) -> None:
        """Drop full buckets; if most are busy, wait for twice as many before trying again
        (so a large, busy population is not scanned on every request)."""
        for buckets in (self._keys, self._tenants):
            for name in [n for n, tat in buckets.items() if tat <= now]:
                del buckets[name]
        self._prune_at = max(PRUNE_AT, 2 * (len(self._keys) + len(self._tenants)))
