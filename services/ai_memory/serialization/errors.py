"""Errors of the serialization pipeline.

    AiMemoryError
    └── PermanentError
        ├── UndecodableEvent     bytes that cannot become a domain event (dead-letter them)
        ├── UnencodableEvent     a domain event that does not fit its schema (a bug upstream)
        └── SchemaCatalogError   the schema folder is missing or disagrees with its catalog

``UndecodableEvent.reason`` is a stable, machine-readable word; distributed consumers put
it on the dead-letter record next to ``code``.
"""

from __future__ import annotations

from ai_memory.core.errors import PermanentError

#: Every ``UndecodableEvent.reason``.
UNDECODABLE_REASONS = frozenset(
    {
        "truncated",  # shorter than the frame header, or the body ends early
        "bad_magic",  # does not start with the single-object marker C3 01
        "unknown_fingerprint",  # written with a schema this catalog does not know
        "malformed_body",  # the Avro body does not match its writer schema
        "trailing_bytes",  # bytes left after the body
        "unmappable",  # valid Avro, but not a valid domain event (e.g. unknown state)
        "codec",  # the codec stage rejected the payload
        "unsealable",  # a sealed field does not open: tampered, moved, or a wrong key
        "key_missing",  # the vault has no key for a sealed event, and it was not destroyed
    }
)


class UndecodableEvent(PermanentError):
    """Bytes that can never be decoded into a domain event by this code."""

    code = "undecodable_event"

    def __init__(self, reason: str, message: str, *, fingerprint: bytes | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.fingerprint = fingerprint


class UnencodableEvent(PermanentError):
    """A domain event whose values do not fit the current schema of its type."""

    code = "unencodable_event"


class SchemaCatalogError(PermanentError):
    """The schema folder cannot be found, or a schema disagrees with ``catalog.json``."""

    code = "schema_catalog_invalid"
