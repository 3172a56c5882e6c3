"""Serialization of domain events: a pipeline of small stages.

    DomainEvent ↔ EventMapper (dict) ↔ AvroTranscoder (single-object Avro) ↔ Codec ↔ bytes

``AvroEventSerializer`` composes them. Schemas and their catalog live in the top-level
``schemas/`` folder (see ``schemas/README.md`` for the encoding and the evolution rules).
"""

from __future__ import annotations

from .catalog import SchemaCatalog, SchemaEntry, compute_fingerprint, schema_dir
from .codec import Codec, IdentityCodec
from .errors import SchemaCatalogError, UndecodableEvent, UnencodableEvent
from .mapper import EVENT_TYPES, EventMapper
from .serializer import AvroEventSerializer
from .transcoder import MAGIC, AvroTranscoder

__all__ = [
    "EVENT_TYPES",
    "MAGIC",
    "AvroEventSerializer",
    "AvroTranscoder",
    "Codec",
    "EventMapper",
    "IdentityCodec",
    "SchemaCatalog",
    "SchemaCatalogError",
    "SchemaEntry",
    "UndecodableEvent",
    "UnencodableEvent",
    "compute_fingerprint",
    "schema_dir",
]
