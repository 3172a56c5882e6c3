"""Stage 2 of the pipeline: plain dict ↔ Avro single-object encoding.

A frame is ``C3 01`` + the writer schema's 8-byte little-endian CRC-64-AVRO fingerprint +
the schemaless Avro body. ``encode`` always writes the newest schema version of the event
type. ``decode`` finds the writer schema by fingerprint and resolves the body into the
newest version of the same event type, so old events stay readable (schema evolution).

Every way a frame can be unreadable raises ``UndecodableEvent`` with a stable ``reason``.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from fastavro import schemaless_reader, schemaless_writer

from .catalog import SchemaCatalog
from .errors import UndecodableEvent, UnencodableEvent

MAGIC = b"\xc3\x01"
HEADER_SIZE = len(MAGIC) + 8


# fastavro accepts a short read at the end of the input (a cut string stays cut). The body is
# read with one extra byte after it: a complete body never touches it, a cut one always does.
_SENTINEL = b"\x00"


def record_unions(parsed: Any) -> dict[str, str]:
    """Top-level fields whose union holds one record type (``["null", Envelope]``): field
    name → the record's full name. fastavro picks a union's branch for a dict by
    validating it against every record branch (a third of a sealed write's encoding);
    handed ``(name, value)`` it takes that branch as it is, and writes the same bytes."""
    unions: dict[str, str] = {}
    for f in parsed.get("fields", ()):
        branches = f["type"] if isinstance(f["type"], list) else []
        records = [b["name"] for b in branches if isinstance(b, dict) and b.get("type") == "record"]
        if len(records) == 1:
            unions[f["name"]] = records[0]
    return unions


class AvroTranscoder:
    """Encodes dicts with their event type's newest schema; decodes any catalogued version."""

    def __init__(self, catalog: SchemaCatalog) -> None:
        self._catalog = catalog
        self._unions: dict[str, dict[str, str]] = {}

    def encode(self, name: str, body: Mapping[str, Any]) -> bytes:
        entry = self._catalog.latest(name)
        unions = self._unions.get(name)
        if unions is None:
            unions = self._unions[name] = record_unions(entry.parsed)
        tagged = [f for f in unions if isinstance(body.get(f), dict)]
        if tagged:
            body = {**body, **{f: (unions[f], body[f]) for f in tagged}}
        out = io.BytesIO()
        out.write(MAGIC)
        out.write(entry.fingerprint)
        try:
            schemaless_writer(out, entry.parsed, body)
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
            raise UnencodableEvent(f"{name} does not fit {entry.file}: {e}") from e
        return out.getvalue()

    def decode(self, data: bytes) -> tuple[str, dict[str, Any]]:
        """The event type name and the body, resolved to the newest schema of that type."""
        if len(data) < HEADER_SIZE:
            raise UndecodableEvent(
                "truncated", f"{len(data)} bytes is shorter than the {HEADER_SIZE}-byte header"
            )
        if data[:2] != MAGIC:
            raise UndecodableEvent(
                "bad_magic", f"not Avro single-object encoding: starts with {data[:2].hex()}"
            )
        fingerprint = bytes(data[2:HEADER_SIZE])
        writer = self._catalog.by_fingerprint(fingerprint)
        if writer is None:
            raise UndecodableEvent(
                "unknown_fingerprint",
                f"no catalogued schema has fingerprint {fingerprint.hex()}",
                fingerprint=fingerprint,
            )
        reader = self._catalog.latest(writer.name)
        size = len(data) - HEADER_SIZE
        body = io.BytesIO(data[HEADER_SIZE:] + _SENTINEL)
        try:
            record = schemaless_reader(
                body, writer.parsed, None if reader is writer else reader.parsed
            )
        except Exception as e:  # fastavro raises many types for malformed input
            if body.tell() > size:
                reason, problem = "truncated", "the body ends early"
            else:
                reason, problem = "malformed_body", f"not valid Avro: {type(e).__name__}: {e}"
            raise UndecodableEvent(
                reason, f"{writer.file}: {problem}", fingerprint=fingerprint
            ) from e
        if body.tell() > size:
            raise UndecodableEvent(
                "truncated", f"{writer.file}: the body ends early", fingerprint=fingerprint
            )
        if body.tell() < size:
            raise UndecodableEvent(
                "trailing_bytes",
                f"{writer.file}: {size - body.tell()} bytes after the body",
                fingerprint=fingerprint,
            )
        if not isinstance(record, dict):
            raise UndecodableEvent("malformed_body", f"{writer.file}: not a record")
        return writer.name, record
