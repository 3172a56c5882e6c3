"""Tag digests with a bounded memo, shared by every store that keeps a sealed memory's
tags as keyed digests (the search index, the sealed records view).

A tenant's tags repeat on most of its memories, and an HMAC per tag per event was a tenth
of an index projection's time, so digests are remembered per (tenant, tag) — in process
memory only, never in a file — and the memo is cleared when full.
"""

from __future__ import annotations

from ai_memory.core.sealing import tag_digest

_MEMO = 1 << 16


class TagDigests:
    def __init__(self, key: bytes) -> None:
        self._key = key
        self._known: dict[tuple[str, str], str] = {}

    def __call__(self, tenant: str, tag: str) -> str:
        found = self._known.get((tenant, tag))
        if found is None:
            if len(self._known) >= _MEMO:
                self._known.clear()
            found = self._known[(tenant, tag)] = tag_digest(self._key, tenant, tag)
        return found
