"""The document's tags: one per area of the API, each operation in exactly one."""

from __future__ import annotations

from typing import Any

TAGS: list[dict[str, Any]] = [
    {
        "name": "memories",
        "description": "Write, read, list and forget memories: idempotent by id, versioned "
        "(ETag / If-Match), never moving between scopes, forgotten ids never reused.",
    },
    {
        "name": "search",
        "description": "Hybrid search (semantic, keyword, recency, importance) over the "
        "scopes a key may read, as of now or of a past time.",
    },
    {
        "name": "transfer",
        "description": "Export and import NDJSON bundles (ai-memory.bundle v1, schemas/bundle).",
    },
    {
        "name": "changes",
        "description": "The change feed: what changed about which memory, never content, "
        "as an NDJSON long-poll or Server-Sent Events.",
    },
    {
        "name": "governance",
        "description": "Governed memory: raw interactions (L0), extraction, episodes (L2), "
        "persona (L3), the governor, write triggers and lineage.",
    },
    {
        "name": "notes",
        "description": "An agent's notebook: a few notes per topic, recalled by topic.",
    },
    {
        "name": "webhooks",
        "description": "Signed deliveries of a tenant's change feed to a URL of its own "
        "(admin keys): at least once, in order per memory, never content.",
    },
    {
        "name": "erasures",
        "description": "Subject erasure with destroyed data keys and signed receipts (admin keys).",
    },
    {
        "name": "audit",
        "description": "Who did what in a tenant, from the log (admin and operator keys).",
    },
    {
        "name": "usage",
        "description": "What a tenant stores, against its quota (admin and operator keys).",
    },
    {
        "name": "health",
        "description": "Probes: no key needed; an admin or operator key sees the details.",
    },
]
