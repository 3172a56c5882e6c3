"""How the composition root reads its URLs (``AIMEM_EVENT_LOG``, ``AIMEM_RECORD_STORE``,
``AIMEM_INDEX``): the scheme picks the adapter, a file scheme's path its location."""

from __future__ import annotations

from pathlib import Path

from ai_memory.core.errors import InvalidInput


def url_path(url: str, scheme: str) -> Path:
    prefix = f"{scheme}:///"
    if not url.startswith(prefix):
        raise InvalidInput("settings", "url", f"expected a {prefix}<path> URL, got {url!r}")
    return Path(url[len(prefix) :])


def scheme_of(url: str) -> str:
    return url.split(":", 1)[0]
