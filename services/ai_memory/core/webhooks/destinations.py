"""Which URLs may be subscribed, and which addresses a delivery may reach.

A gateway usually sits inside a network an outside caller cannot reach: its loopback,
its cloud's metadata service (169.254.169.254), the private ranges of the cluster. A
webhook URL chosen by a tenant must not turn the gateway into a proxy into that network
(server-side request forgery). So, unless the deployment allows it:

* only ``http`` and ``https``, no credentials in the URL, a host required;
* the host's addresses must all be globally routable: loopback, private (RFC 1918,
  fc00::/7), link-local, multicast, unspecified, shared (100.64/10) and every other
  special-purpose range are refused, IPv4 and IPv6 alike, including IPv6 forms that
  carry an IPv4 address (mapped ``::ffff:a.b.c.d``, compatible ``::a.b.c.d``, NAT64
  ``64:ff9b::/96``, 6to4 ``2002::/16``);
* the check runs on the addresses the name resolves to, when the subscription is made
  **and again at every delivery**, and the delivery connects to the very address that
  was checked (DNS rebinding cannot swap it between the check and the connection).

``AIMEM_WEBHOOK_ALLOW_PRIVATE=true`` lifts the address rule (a lab, a test);
``AIMEM_WEBHOOK_ALLOWED_CIDRS`` allows chosen ranges only (an internal receiver).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from ai_memory.core.errors import InvalidInput

MAX_URL_CHARS = 2048
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_COMPATIBLE = ipaddress.IPv6Network("::/96")


@dataclass(frozen=True)
class Destination:
    """A subscribed URL, taken apart."""

    url: str
    scheme: str
    host: str  # a name, or an address without brackets
    port: int

    def via(self, address: str) -> str:
        """The URL with ``address`` in place of the host (the connection is pinned)."""
        parts = urlsplit(self.url)
        literal = f"[{address}]" if ":" in address else address
        netloc = f"{literal}:{self.port}"
        return SplitResult(parts.scheme, netloc, parts.path or "/", parts.query, "").geturl()

    @property
    def host_header(self) -> str:
        literal = f"[{self.host}]" if ":" in self.host else self.host
        default = {"http": 80, "https": 443}[self.scheme]
        return literal if self.port == default else f"{literal}:{self.port}"

    @property
    def literal(self) -> bool:
        """Whether the host is an address rather than a name."""
        return parse_address(self.host) is not None


@dataclass(frozen=True)
class AddressPolicy:
    allow_private: bool = False
    allowed: tuple[Network, ...] = ()

    @classmethod
    def of(cls, allow_private: bool, cidrs: Sequence[str]) -> AddressPolicy:
        return cls(allow_private, tuple(parse_cidr(c) for c in cidrs))

    def refusal(self, address: str) -> str | None:
        """Why a delivery may not reach ``address`` (None: it may)."""
        if self.allow_private:
            return None
        ip = parse_address(address)
        if ip is None:
            return f"{address!r} is not an address"
        if any(ip in net for net in self.allowed):
            return None
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        # A mapped address is its IPv4 address in another spelling: judged as that one.
        for candidate in (mapped,) if mapped else (ip, *_embedded(ip)):
            if any(candidate in net for net in self.allowed):
                continue
            why = _special(candidate)
            if why:
                shown = f"{ip} ({candidate})" if candidate != ip else str(ip)
                return f"{shown} is {why}"
        return None

    def first_refusal(self, addresses: Sequence[str]) -> str | None:
        """The refusal of the first address refused: every address a name resolves to
        must be allowed, or a resolver could pick the one that is not."""
        for address in addresses:
            why = self.refusal(address)
            if why:
                return why
        return None


def parse_destination(url: str, field: str = "url") -> Destination:
    """``url`` as a destination, or ``InvalidInput`` naming ``field``."""
    if len(url) > MAX_URL_CHARS:
        raise InvalidInput(field, "max_length", f"{field} is longer than {MAX_URL_CHARS}")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise InvalidInput(field, "control_chars", f"{field} holds spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise InvalidInput(field, "url", f"{field} is not a URL ({e})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise InvalidInput(field, "scheme", f"{field} must be an http or https URL")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise InvalidInput(field, "credentials", f"{field} must not carry credentials")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise InvalidInput(field, "host", f"{field} has no host")
    if parts.fragment:
        raise InvalidInput(field, "fragment", f"{field} must not have a #fragment")
    return Destination(url, scheme, host, port or (443 if scheme == "https" else 80))


def parse_address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])  # a zone id (fe80::1%eth0)
    except ValueError:
        return None


def parse_cidr(text: str) -> Network:
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise InvalidInput(
            "AIMEM_WEBHOOK_ALLOWED_CIDRS", "cidr", f"{text!r} is not a CIDR range"
        ) from None


def _embedded(ip: IPAddress) -> list[IPAddress]:
    """The IPv4 addresses an IPv6 address carries (each is judged too)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found: list[IPAddress] = []
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in _NAT64 or (ip in _COMPATIBLE and int(ip) > 1):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def _special(ip: IPAddress) -> str | None:
    """The kind of special-purpose address ``ip`` is (None: globally routable)."""
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private:
        return "private"
    if isinstance(ip, ipaddress.IPv6Address) and ip in _COMPATIBLE:
        return "an IPv4-compatible IPv6 address"
    if not ip.is_global or ip.is_reserved:
        return "not globally routable"
    return None
