"""Backoff with jitter, capped; when a failing webhook is paused."""

from __future__ import annotations

import random
from datetime import timedelta

from ai_memory.core.webhooks.retries import RetryPolicy
from tests.factories import T0


def test_the_delay_doubles_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base=1.0, cap=60.0)
    rng = random.Random(7)
    for failures, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (6, 32.0), (7, 60.0), (500, 60.0)]:
        delays = [policy.delay(failures, rng) for _ in range(200)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 100  # jittered, not in step


def test_paused_after_n_failures_or_a_time_window() -> None:
    policy = RetryPolicy(max_failures=3, pause_after=3600)
    assert policy.pause_reason(2, T0, T0 + timedelta(minutes=5)) is None
    assert "3 consecutive" in (policy.pause_reason(3, T0, T0) or "")
    assert policy.pause_reason(1, T0, T0 + timedelta(seconds=3600)) is not None
