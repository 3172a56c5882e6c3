"""The per-address bucket of refused keys: ``burst`` at once, then ``rate`` a second;
only failures charge it, and IPv6 clients are counted by /64."""

from __future__ import annotations

from ai_memory.core.access.failed_auth import FailedAuthLimiter, source_of

NS = 1_000_000_000


class Clock:
    def __init__(self) -> None:
        self.ns = 10 * NS

    def __call__(self) -> int:
        return self.ns


def test_a_burst_of_failures_then_a_wait_then_one_a_second() -> None:
    clock = Clock()
    limiter = FailedAuthLimiter(rate=2.0, burst=5, now_ns=clock)
    for _ in range(5):
        assert limiter.wait_ns("10.0.0.1") == 0
        limiter.failed("10.0.0.1")
    wait = limiter.wait_ns("10.0.0.1")
    assert wait == NS // 2  # one token back after 1 / rate
    assert limiter.wait_ns("10.0.0.2") == 0  # another address is not affected
    limiter.failed("10.0.0.1")  # refused again while empty: not charged below empty
    assert limiter.wait_ns("10.0.0.1") == wait
    clock.ns += wait
    assert limiter.wait_ns("10.0.0.1") == 0
    limiter.failed("10.0.0.1")
    assert limiter.wait_ns("10.0.0.1") == NS // 2
    clock.ns += 10 * NS  # a quiet address is whole again
    for _ in range(5):
        assert limiter.wait_ns("10.0.0.1") == 0
        limiter.failed("10.0.0.1")
    assert limiter.wait_ns("10.0.0.1") > 0


def test_over_time_failures_never_exceed_burst_plus_rate_times_elapsed() -> None:
    clock = Clock()
    limiter = FailedAuthLimiter(rate=3.0, burst=4, now_ns=clock)
    looked_up = 0
    start = clock.ns
    for _ in range(10_000):
        clock.ns += 7_000_000  # a client retrying every 7 ms
        if limiter.wait_ns("a") == 0:
            looked_up += 1
            limiter.failed("a")
    elapsed = (clock.ns - start) / NS
    assert looked_up <= 4 + 3 * elapsed + 1
    assert looked_up >= 3 * elapsed - 1  # and the rate is really given back


def test_sources() -> None:
    assert source_of("192.0.2.7") == "192.0.2.7"
    assert source_of("2001:db8:1:2:aaaa::1") == source_of("2001:db8:1:2:ffff::9")
    assert source_of("2001:db8:1:2::1") != source_of("2001:db8:1:3::1")
    assert source_of("::ffff:192.0.2.7") == "192.0.2.7"
    assert source_of(None) == "-" and source_of("testclient") == "testclient"
