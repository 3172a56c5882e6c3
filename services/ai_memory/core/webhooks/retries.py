"""When a failed delivery is tried again, and when its subscription is paused.

Exponential backoff with jitter, capped: the n-th consecutive failure waits a random
time in ``[d/2, d]`` with ``d = min(cap, base · 2^(n-1))`` — the jitter keeps many
subscriptions failing together (a receiver's outage) from retrying in step. A
subscription is paused after ``max_failures`` consecutive failures, or once it has been
failing for ``pause_after`` seconds, whichever comes first; its cursor stays where the
receiver last acknowledged, so a resume delivers from there and nothing is lost.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class RetryPolicy:
    base: float = 1.0  # seconds before the first retry (at most)
    cap: float = 600.0  # the longest wait between two attempts
    max_failures: int = 10
    pause_after: float = 86400.0  # seconds of failing without a success

    def delay(self, failures: int, rng: random.Random | None = None) -> float:
        """Seconds to wait after the ``failures``-th consecutive failure."""
        exponent = min(max(failures - 1, 0), 62)
        ceiling = min(self.cap, self.base * 2.0**exponent)
        return (rng or random).uniform(ceiling / 2, ceiling)

    def pause_reason(
        self, failures: int, failing_since: datetime | None, now: datetime
    ) -> str | None:
        """Why a subscription with this run of failures is paused now (None: retry)."""
        if failures >= self.max_failures:
            return f"{failures} consecutive failed deliveries"
        if failing_since is not None and (now - failing_since).total_seconds() >= self.pause_after:
            return f"failing for more than {self.pause_after:g} s"
        return None
