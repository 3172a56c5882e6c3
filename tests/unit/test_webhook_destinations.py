"""Which webhook URLs and addresses are refused: no server-side request forgery."""

from __future__ import annotations

import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.core.webhooks.destinations import AddressPolicy, parse_destination

STRICT = AddressPolicy()

REFUSED = [
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.5",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # shared address space (CGNAT)
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "::127.0.0.1",  # IPv4-compatible
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "2001:db8::1",  # documentation
]


@pytest.mark.parametrize("address", REFUSED)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert STRICT.refusal(address) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert STRICT.refusal(address) is None


def test_one_private_address_among_public_ones_refuses_the_name() -> None:
    assert STRICT.first_refusal(["8.8.8.8", "10.0.0.1"]) is not None
    assert STRICT.first_refusal(["8.8.8.8", "1.1.1.1"]) is None


def test_the_deployment_may_allow_private_addresses_or_chosen_ranges() -> None:
    assert AddressPolicy(allow_private=True).refusal("127.0.0.1") is None
    ranges = AddressPolicy.of(False, ["10.20.0.0/16"])
    assert ranges.refusal("10.20.3.4") is None
    assert ranges.refusal("10.21.0.1") is not None
    assert ranges.refusal("127.0.0.1") is not None
    assert ranges.refusal("::ffff:10.20.3.4") is None  # the mapped form of an allowed one
    with pytest.raises(InvalidInput) as bad:
        AddressPolicy.of(False, ["not-a-range"])
    assert bad.value.field == "AIMEM_WEBHOOK_ALLOWED_CIDRS"


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("ftp://example.com/x", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://example.com", "scheme"),
        ("https://user:pw@example.com/x", "credentials"),
        ("https://user@example.com/x", "credentials"),
        ("https:///x", "host"),
        ("https://example.com/x#frag", "fragment"),
        ("https://example.com:99999/x", "url"),
        ("https://exa mple.com/x", "control_chars"),
        ("https://example.com/\nx", "control_chars"),
        ("https://example.com/" + "a" * 2100, "max_length"),
    ],
)
def test_bad_urls_are_refused_naming_url(url: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as bad:
        parse_destination(url)
    assert (bad.value.field, bad.value.rule) == ("url", rule)


def test_a_pinned_url_keeps_the_name_for_host_and_tls() -> None:
    d = parse_destination("https://hooks.example.com/in?x=1")
    assert (d.host, d.port, d.literal) == ("hooks.example.com", 443, False)
    assert d.via("93.184.216.34") == "https://93.184.216.34:443/in?x=1"
    assert d.host_header == "hooks.example.com"
    v6 = parse_destination("http://[2606:4700::1]:8080/")
    assert v6.literal and v6.via("2606:4700::1") == "http://[2606:4700::1]:8080/"
    assert v6.host_header == "[2606:4700::1]:8080"
