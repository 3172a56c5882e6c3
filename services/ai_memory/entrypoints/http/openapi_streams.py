"""How the streaming answers are documented: NDJSON (one JSON value per line) and
Server-Sent Events.

OpenAPI 3.1 has no item schema for a stream, so an NDJSON body is documented as the array
of its lines (the same convention as the import's request body): a client reads one
element per line. The line schemas are components (``BundleLine``, ``ChangeOut``,
``ChangeTrailer``), added to the document by ``openapi_doc``.
"""

from __future__ import annotations

from typing import Any

NDJSON = "application/x-ndjson"
EVENT_STREAM = "text/event-stream"

BUNDLE_LINE_SCHEMA: dict[str, Any] = {
    "title": "BundleLine",
    "description": "One line of an ai-memory.bundle v1: a header first, then record and "
    "tombstone lines, a trailer last (counts and the SHA-256 of the lines before it). "
    "The full JSON Schema of a line is schemas/bundle/bundle-line.v1.schema.json.",
    "type": "object",
    "required": ["kind"],
    "properties": {
        "kind": {"type": "string", "enum": ["header", "record", "tombstone", "trailer"]}
    },
    # Each kind's fields are the bundle schema's: named there, allowed here.
    "additionalProperties": True,
}
CHANGE_TRAILER_SCHEMA: dict[str, Any] = {
    "title": "ChangeTrailer",
    "description": "The last line of a change-feed page: continue with since=next.",
    "type": "object",
    "required": ["next", "more"],
    "properties": {
        "next": {"type": ["string", "null"], "description": "The cursor to continue after."},
        "more": {"type": "boolean", "description": "True: read again at once."},
    },
}
COMPONENTS = {"BundleLine": BUNDLE_LINE_SCHEMA, "ChangeTrailer": CHANGE_TRAILER_SCHEMA}


def _lines_of(item: dict[str, Any]) -> dict[str, Any]:
    return {"schema": {"type": "array", "items": item}}


EXPORT: dict[str, Any] = {
    "description": "An NDJSON bundle, streamed: one BundleLine per line. A key revoked "
    "mid-export cuts the body off before its trailer (a bundle without its trailer is "
    "incomplete).",
    "content": {NDJSON: _lines_of({"$ref": "#/components/schemas/BundleLine"})},
}
CHANGES: dict[str, Any] = {
    "description": "NDJSON (the default): one ChangeOut per line, then a ChangeTrailer "
    "line. With Accept: text/event-stream, Server-Sent Events instead.",
    "content": {
        NDJSON: _lines_of(
            {
                "oneOf": [
                    {"$ref": "#/components/schemas/ChangeOut"},
                    {"$ref": "#/components/schemas/ChangeTrailer"},
                ]
            }
        ),
        EVENT_STREAM: {
            "schema": {
                "type": "string",
                "description": "Server-Sent Events: first `retry: 1000`; then one event "
                "per change, `id:` its cursor (a reconnecting EventSource resumes from it "
                "with Last-Event-ID) and `data:` a ChangeOut as JSON; a `: heartbeat` "
                "comment after `timeout` seconds (15 by default) without a change; when "
                "the key no longer holds, a last `event: error` whose data is the Problem.",
            },
            "example": 'retry: 1000\n\nid: YzF8MDoy\ndata: {"cursor": "YzF8MDoy", '
            '"kind": "written", "id": "m1", "scope": "user:alice", "version": 1, '
            '"state": "active", "at": "2026-01-05T09:30:00+00:00", "actor": "api", '
            '"position": 2}\n\n: heartbeat\n\n',
        },
    },
}
