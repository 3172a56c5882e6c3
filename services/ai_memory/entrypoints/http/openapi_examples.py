"""Examples of the main request bodies and answers, by operation id.

They are part of the document (``openapi_doc`` places them) and a unit test validates
each against the schema it illustrates (an export's lines also against the bundle's own
line schema), so an example cannot drift from the wire models.

An NDJSON body is documented as the array of its lines (``openapi_streams``), so its
example is that array: one element per line.
"""

from __future__ import annotations

from typing import Any

_ALICE_TEA: dict[str, Any] = {
    "id": "pref-tea",
    "type": "preference",
    "content": "Alice prefers oolong tea, never coffee.",
    "scope": "user:alice",
    "source_agent": "planner",
    "created_at": "2026-01-05T09:30:00Z",
    "ttl": None,
    "tags": ["drinks"],
    "meta": {},
    "schema_version": 1,
    "version": 1,
    "state": "active",
    "updated_at": None,
    "read_count": None,
}
_WRITTEN: dict[str, Any] = {
    "record": _ALICE_TEA,
    "position": 42,
    "created": True,
    "changed": True,
}
_MEMORY_IN: dict[str, Any] = {
    "type": "preference",
    "content": "Alice prefers oolong tea, never coffee.",
    "scope": "user:alice",
    "source_agent": "planner",
    "tags": ["drinks"],
}

_BUNDLE_LINES: list[dict[str, Any]] = [
    {
        "kind": "header",
        "format": "ai-memory.bundle",
        "format_version": 1,
        "producer": "ai-memory/0.1.0",
        "exported_at": "2026-03-12T09:30:00Z",
        "filters": {"scopes": ["user:alice"], "tenant": "default"},
    },
    {
        "kind": "record",
        "record": {
            key: _ALICE_TEA[key]
            for key in ("id", "type", "content", "scope", "source_agent", "created_at", "ttl")
        }
        | {"tags": ["drinks"], "meta": {}, "schema_version": 1},
        "state": "active",
        "version": 1,
        "updated_at": "2026-01-05T09:30:00Z",
    },
    {
        "kind": "tombstone",
        "id": "pref-coffee",
        "scope": "user:alice",
        "deleted_at": "2026-02-28T08:00:00Z",
        "reason": "user_request",
    },
    {
        "kind": "trailer",
        "counts": {"records": 1, "tombstones": 1},
        "sha256": "3f5d188b238300986e462f91429c48c9aaf0b0905b257cecaa473196114e194a",
    },
]
NDJSON = "application/x-ndjson"

# operation id → {"request": body, "responses": {status: body}}; "request_media" and
# "response_media" when not application/json.
EXAMPLES: dict[str, dict[str, Any]] = {
    "createMemory": {
        "request": _MEMORY_IN,
        "responses": {"201": _WRITTEN},
    },
    "upsertMemory": {
        "request": _MEMORY_IN,
        "responses": {"201": _WRITTEN, "200": {**_WRITTEN, "created": False, "changed": False}},
    },
    "getMemory": {"responses": {"200": _ALICE_TEA}},
    "searchMemories": {
        "request": {"query": "what does alice drink", "scope": "user:alice", "top_k": 5},
        "responses": {
            "200": {
                "results": [
                    {
                        "record": _ALICE_TEA,
                        "score": 0.83,
                        "components": {
                            "semantic": 0.71,
                            "keyword": 0.52,
                            "recency": 0.98,
                            "importance": 0.8,
                        },
                        "explanation": None,
                    }
                ]
            }
        },
    },
    "batchUpsertMemories": {
        "request": {
            "items": [
                {**_MEMORY_IN, "id": "pref-tea"},
                {**_MEMORY_IN, "id": "pref-coffee", "scope": "team:kitchen"},
            ]
        },
        "responses": {
            "200": {
                "results": [
                    {
                        "index": 0,
                        "status": 201,
                        "id": "pref-tea",
                        "version": 1,
                        "changed": True,
                        "position": 42,
                    },
                    {
                        "index": 1,
                        "status": 409,
                        "id": "pref-coffee",
                        "problem": {
                            "type": "urn:ai-memory:problem:scope_immutable",
                            "title": "Conflict",
                            "status": 409,
                            "code": "scope_immutable",
                            "detail": "memory 'pref-coffee' belongs to scope 'user:alice'; a "
                            "memory never moves between scopes (delete it and write a new one)",
                        },
                    },
                ],
                "written": 1,
                "unchanged": 0,
                "rejected": 1,
                "position": 42,
            }
        },
    },
    "exportMemories": {"response_media": NDJSON, "responses": {"200": _BUNDLE_LINES}},
    "importMemories": {
        "request_media": NDJSON,
        # Bare records (a bundle's lines are accepted too: see the body's description).
        "request": [
            {**_MEMORY_IN, "id": "pref-tea"},
            {**_MEMORY_IN, "id": "home", "type": "fact", "content": "Alice lives in Tokyo."},
        ],
        "responses": {
            "200": {
                "batch_id": "0f8c2d1e-5b7a-4c3e-9d2f-6a1b0c9e8d7f",
                "received": 2,
                "written": 2,
                "unchanged": 0,
                "skipped_tombstoned": 0,
                "tombstones_applied": 0,
                "rejected": 0,
                "stale": 0,
                "redacted": 0,
                "states_applied": 0,
                "errors": [],
                "errors_truncated": False,
                "position": 45,
            }
        },
    },
    "deleteMemory": {
        "responses": {
            "200": {"id": "pref-tea", "position": 43, "forgotten": True, "already_forgotten": False}
        }
    },
}
