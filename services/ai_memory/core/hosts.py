"""Whether a bind address is loopback: what only this machine can reach."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """``127.0.0.0/8``, ``::1`` (bracketed or not) and ``localhost``; names otherwise are
    taken as reachable from elsewhere."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"
