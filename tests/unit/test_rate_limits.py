"""The token bucket and the per-process limiter, pure: time is a number we pass in."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.access.rate import NS, RateLimiter, TokenBucket, retry_after_seconds
from ai_memory.core.access.tenant_limits import LimitTable, TenantLimits

rates = st.one_of(
    st.integers(min_value=1, max_value=5000).map(float),
    st.floats(min_value=0.01, max_value=5000, allow_nan=False, allow_infinity=False),
)
bursts = st.integers(min_value=1, max_value=50)
# Gaps between requests: often none (a burst), sometimes up to a few seconds.
gaps = st.lists(
    st.one_of(st.just(0), st.integers(min_value=0, max_value=3 * NS)), min_size=1, max_size=200
)


class Ticker:
    """A monotonic clock tests move by hand, in nanoseconds."""

    def __init__(self, start: int = 10 * NS) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += round(seconds * NS)


@given(rates, bursts, gaps)
def test_never_admits_more_than_burst_plus_rate_times_elapsed(
    rate: float, burst: int, steps: list[int]
) -> None:
    bucket = TokenBucket(rate, burst)
    start = now = 5 * NS
    tat: int | None = None
    admitted = 0
    for gap in steps:
        now += gap
        tat, wait = bucket.take(tat, now)
        admitted += wait == 0
        # Exact arithmetic: no float may round the bound in the bucket's favour.
        assert admitted <= burst + Fraction(rate) * Fraction(now - start, NS)


@given(rates, bursts, gaps)
def test_the_wait_is_exact_and_the_header_rounds_it_up(
    rate: float, burst: int, steps: list[int]
) -> None:
    bucket = TokenBucket(rate, burst)
    now = 5 * NS
    tat: int | None = None
    for gap in steps:
        now += gap
        new_tat, wait = bucket.take(tat, now)
        if wait:
            assert new_tat == tat  # a refusal spends nothing
            assert bucket.take(tat, now + wait - 1)[1] > 0  # one ns early: still refused
            assert bucket.take(tat, now + wait)[1] == 0  # exactly then: admitted
            header = retry_after_seconds(wait)
            assert (header - 1) * NS < wait <= header * NS
            assert bucket.take(tat, now + header * NS)[1] == 0  # honouring it works
        tat = new_tat


@given(rates, bursts)
def test_a_full_bucket_admits_exactly_its_burst_at_once(rate: float, burst: int) -> None:
    bucket = TokenBucket(rate, burst)
    tat: int | None = None
    outcomes = []
    for _ in range(burst + 1):
        tat, wait = bucket.take(tat, 7 * NS)
        outcomes.append(wait == 0)
    assert outcomes == [True] * burst + [False]


def test_it_refills_at_its_rate() -> None:
    bucket = TokenBucket(10, 2)  # a token every 100 ms
    tat, _ = bucket.take(None, 0)
    tat, _ = bucket.take(tat, 0)
    _, wait = bucket.take(tat, 0)
    assert wait == 100_000_000
    assert retry_after_seconds(wait) == 1
    tat, wait = bucket.take(tat, 100_000_000)
    assert wait == 0


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (-1, 1), (float("inf"), 1), (1, 0)])
def test_a_bucket_needs_a_rate_and_a_burst(rate: float, burst: int) -> None:
    with pytest.raises(ValueError):
        TokenBucket(rate, burst)


def limiter(ticker: Ticker, **overrides: TenantLimits) -> RateLimiter:
    default = TenantLimits(rate=4, burst=4, key_rate=2, key_burst=2)
    return RateLimiter(LimitTable(default, overrides), ticker)


def test_a_key_is_refused_by_its_own_bucket_first() -> None:
    ticker = Ticker()
    rl = limiter(ticker)
    assert rl.admit("acme", "k1") is None
    assert rl.admit("acme", "k1") is None
    refusal = rl.admit("acme", "k1")
    assert refusal is not None and refusal.limit == "key"
    assert refusal.wait_ns == NS // 2 and refusal.retry_after == 1
    assert rl.admit("acme", "k2") is None  # another key of the tenant still has tokens


def test_the_tenant_bucket_is_shared_by_its_keys_and_not_by_other_tenants() -> None:
    ticker = Ticker()
    rl = limiter(ticker)
    for key in ("k1", "k1", "k2", "k2"):
        assert rl.admit("acme", key) is None
    refusal = rl.admit("acme", "k3")  # a fresh key, but the tenant's 4 are spent
    assert refusal is not None and refusal.limit == "tenant"
    assert rl.admit("globex", "g1") is None  # another tenant is untouched
    ticker.advance(0.25)
    assert rl.admit("acme", "k3") is None


def test_a_refusal_by_the_tenant_does_not_spend_the_keys_token() -> None:
    ticker = Ticker()
    rl = limiter(ticker, acme=TenantLimits(rate=1, burst=1, key_rate=1, key_burst=1))
    assert rl.admit("acme", "k1") is None
    ticker.advance(1)
    assert rl.admit("acme", "k2") is None  # the tenant's token of this second
    refusal = rl.admit("acme", "k1")  # k1 has a token again; the tenant has none
    assert refusal is not None and refusal.limit == "tenant"
    ticker.advance(1)
    assert rl.admit("acme", "k1") is None  # k1's token was not spent by the refusal


def test_open_mode_has_no_key_bucket_and_zero_rates_are_unlimited() -> None:
    ticker = Ticker()
    rl = limiter(ticker, free=TenantLimits())  # every rate 0: unlimited
    for _ in range(4):
        assert rl.admit("default", None) is None  # only the tenant's 4 apply
    refusal = rl.admit("default", None)
    assert refusal is not None and refusal.limit == "tenant"
    assert all(rl.admit("free", "k") is None for _ in range(1000))


def test_full_buckets_are_forgotten_when_there_are_many() -> None:
    ticker = Ticker()
    rl = RateLimiter(LimitTable(TenantLimits(rate=1000, burst=10)), ticker)
    for i in range(10_001):
        assert rl.admit(f"a{i}", None) is None  # all busy: none can be dropped yet
    ticker.advance(1)  # every bucket is full again
    for i in range(10_002):  # past twice the busy ones: the next prune
        assert rl.admit(f"b{i}", None) is None
    assert len(rl._tenants) <= 10_002  # the full a… buckets are gone, the busy b… kept
    assert all(name.startswith("b") for name in rl._tenants)


# --- the limits table -------------------------------------------------------------------


def test_overrides_change_only_what_they_name() -> None:
    default = TenantLimits(rate=100, burst=200, key_rate=10, key_burst=20, max_memories=5)
    table = LimitTable.parse(default, '{"acme": {"rate": 5, "max_request_bytes": 4096}}')
    assert table.of("acme") == TenantLimits(
        rate=5, burst=200, key_rate=10, key_burst=20, max_memories=5, max_request_bytes=4096
    )
    assert table.of("globex") == default
    assert table.any_memory_quota
    assert LimitTable.parse(default, "").of("acme") == default
    assert not LimitTable.parse(TenantLimits(), " ").any_memory_quota
    assert LimitTable.parse(TenantLimits(), '{"a": {"max_memories": 3}}').any_memory_quota


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("not json", "json"),
        ("[1]", "json_object"),
        ('{"Acme!": {}}', "tenant_format"),
        ('{"acme": 3}', "json_object"),
        ('{"acme": {"rps": 3}}', "unknown_field"),
        ('{"acme": {"rate": "fast"}}', "number"),
        ('{"acme": {"rate": true}}', "number"),
        ('{"acme": {"burst": 1.5}}', "number"),
        ('{"acme": {"rate": -1}}', "range"),
        ('{"acme": {"burst": 0}}', "range"),
        ('{"acme": {"max_memories": -5}}', "range"),
    ],
)
def test_a_bad_override_is_refused_naming_the_setting(text: str, rule: str) -> None:
    from ai_memory.core.errors import InvalidInput

    with pytest.raises(InvalidInput) as raised:
        LimitTable.parse(TenantLimits(), text)
    assert raised.value.rule == rule
    assert raised.value.field == "AIMEM_TENANT_LIMITS"
