"""Every setting the composition root will use, checked before it touches a store.

``build`` used to find a bad ``AIMEM_INDEX`` only when it reached the index — after
creating the data directory and taking its lock — and a distributed deployment without
``AIMEM_ROOT_KEY`` only when it opened the vault. Checked here first, a bad value fails
naming its variable and nothing is created on disk.
"""

from __future__ import annotations

from ai_memory.core.errors import InvalidInput
from ai_memory.settings import Settings

from .urls import scheme_of, url_path

#: The schemes each URL variable takes (the builders in ``ai_memory.bootstrap``).
SCHEMES: dict[str, tuple[str, ...]] = {
    "AIMEM_EVENT_LOG": ("sqlite", "kafka", "memory"),
    "AIMEM_RECORD_STORE": ("sqlite", "cassandra", "memory"),
    "AIMEM_INDEX": (
        "qdrant-edge",
        "qdrant+http",
        "qdrant+https",
        "qdrant+local",
        "qdrant+memory",
        "memory",
    ),
}
#: Schemes whose URL is a path on this machine (``<scheme>:///<path>``).
_FILE_SCHEMES = ("sqlite", "qdrant-edge")


def check_url(variable: str, url: str) -> None:
    scheme = scheme_of(url) if ":" in url else ""
    expected = SCHEMES[variable]
    if scheme not in expected:
        got = f"unknown scheme {scheme!r}" if scheme else f"not a URL: {url!r}"
        raise InvalidInput(variable, "scheme", f"{got} (expected {', '.join(expected)})")
    if scheme in _FILE_SCHEMES:
        try:
            url_path(url, scheme)
        except InvalidInput as e:
            raise InvalidInput(variable, "url", e.message) from None


def check_settings(settings: Settings, *, embedder: bool = True) -> None:
    """Raise ``InvalidInput`` naming the ``AIMEM_*`` variable of the first bad value
    (``embedder=False``: the caller brings its own embedder)."""
    from ai_memory.adapters.embedders.factory import embedder_names
    from ai_memory.adapters.key_wrapping import parse_root_key
    from ai_memory.adapters.receipt_key import parse_receipt_key

    s = settings.resolved()
    check_url("AIMEM_EVENT_LOG", s.event_log_url)
    check_url("AIMEM_RECORD_STORE", s.record_store_url)
    check_url("AIMEM_INDEX", s.index_url)
    names = embedder_names()
    if embedder and s.embedder.strip().lower() not in names:
        raise InvalidInput(
            "AIMEM_EMBEDDER",
            "one_of",
            f"unknown embedder {s.embedder!r} (expected one of {', '.join(names)})",
        )
    if s.encryption == "on":  # as security.root_key reads it
        root = s.root_key.get_secret_value()
        shared = scheme_of(s.record_store_url) == "cassandra"
        if root.strip():
            parse_root_key(root)
        elif shared and scheme_of(s.event_log_url) != "memory":
            raise InvalidInput(
                "AIMEM_ROOT_KEY",
                "required",
                "a distributed deployment with AIMEM_ENCRYPTION=on needs it (base64url of 32 "
                "random bytes, the same on every process)",
            )
    receipt = s.receipt_key.get_secret_value()
    if receipt.strip():
        parse_receipt_key(receipt)
