"""Examples of the main request bodies and answers, by operation id.

They are part of the document (``openapi_doc`` places them) and a unit test validates
each against the schema it illustrates, so an example cannot drift from the wire models.
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

# operation id → {"request": body, "responses": {status: body}}
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
    "deleteMemory": {
        "responses": {
            "200": {"id": "pref-tea", "position": 43, "forgotten": True, "already_forgotten": False}
        }
    },
}
