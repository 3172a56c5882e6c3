"""Failed authentication costs the caller: a token bucket per source address, charged
only by refused keys.

Why: every request with an unknown key id misses the key cache and costs a store read on
a worker thread; a flood of random key ids fills the worker pool and valid tenants queue
behind it (measured: 5,000 bad keys at 64 at a time raised a valid key's p95 from 13 to
117 ms). A source whose bucket is empty is refused with 429 and a ``Retry-After`` before
any store read — but only for keys it does not know: a key this gateway has seen valid
is still checked and refreshed as usual (``KeyService.known_valid``), so a valid client
behind the same address (a NAT, a proxy) keeps working.

Only the door's refusals (401: missing, malformed, unknown, wrong, revoked, expired) are
charged. A 403 is a valid key asking beyond its rights: its key is known and its own
rate limit (``rate``) already bounds it.

Pure: the clock (monotonic ns) is injected; one instance per process, used from the
event loop only.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable

from .rate import PRUNE_AT, TokenBucket


class FailedAuthLimiter:
    """Per source address: ``burst`` refused keys at once, then ``rate`` a second."""

    def __init__(
        self, rate: float, burst: int, now_ns: Callable[[], int] = time.monotonic_ns
    ) -> None:
        self.bucket = TokenBucket(rate, burst)
        self._now_ns = now_ns
        self._tats: dict[str, int] = {}

    def wait_ns(self, source: str) -> int:
        """How long ``source`` must wait before its next uncached key is looked up (0:
        it may go on). Nothing is charged."""
        tat = self._tats.get(source)
        if tat is None:
            return 0
        now = self._now_ns()
        return max(0, tat - now - self.bucket.tolerance_ns)

    def failed(self, source: str) -> None:
        """Charge one refused key to ``source`` (a bucket never goes below empty: a
        source refused before its lookup is not charged again)."""
        now = self._now_ns()
        tat, wait = self.bucket.take(self._tats.get(source), now)
        if not wait:
            self._tats[source] = tat
        if len(self._tats) > PRUNE_AT:
            self._tats = {s: t for s, t in self._tats.items() if t > now}


def source_of(host: str | None) -> str:
    """The bucket a client address is charged to: the address itself, or its /64 for
    IPv6 (one host is handed a whole /64 and could otherwise rotate addresses)."""
    if not host:
        return "-"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # a unix socket path or a test client's name
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)
