"""Errors of the serialization pipeline (the serializer port's own are in ``core.errors``).

    AiMemoryError
    └── PermanentError
        ├── UndecodableEvent     bytes that cannot become a domain event (dead-letter them)
        ├── UnencodableEvent     a domain event that does not fit its schema (a bug upstream)
        └── SchemaCatalogError   the schema folder is missing or disagrees with its catalog

``UndecodableEvent.reason`` is a stable, machine-readable word; distributed consumers put
it on the dead-letter record next to ``code``.
"""

from __future__ import annotations

# The event serializer port's errors live with every port's, in the core; they are
# re-exported here for the serialization package's readers.
from ai_memory.core.errors import (
    UNDECODABLE_REASONS,
    PermanentError,
    UndecodableEvent,
    UnencodableEvent,
)

__all__ = [
    "UNDECODABLE_REASONS",
    "SchemaCatalogError",
    "UndecodableEvent",
    "UnencodableEvent",
]


class SchemaCatalogError(PermanentError):
    """The schema folder cannot be found, or a schema disagrees with ``catalog.json``."""

    code = "schema_catalog_invalid"
