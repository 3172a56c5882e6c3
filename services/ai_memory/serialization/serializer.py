"""The facade: domain event ↔ bytes through mapper → transcoder → codec.

    encode: event ─EventMapper.to_dict─> dict ─[Sealer.seal]─> dict ─AvroTranscoder.encode─>
            frame ─Codec─> bytes
    decode: bytes ─Codec─> frame ─AvroTranscoder.decode─> dict ─[Sealer.unseal]─> dict
            ─EventMapper.from_dict─> event

The sealer (crypto-shredding, ``sealer.py``) is there only when encryption is on.

Each stage is usable and tested alone; this class only composes them.
"""

from __future__ import annotations

from ai_memory.core.events import DomainEvent

from .catalog import SchemaCatalog
from .codec import Codec, IdentityCodec
from .errors import UndecodableEvent
from .mapper import EventMapper
from .sealer import Sealer
from .transcoder import AvroTranscoder


class AvroEventSerializer:
    """Encodes domain events as Avro single-object frames and decodes them back.

    Without arguments it loads the schema catalog from the schema folder (see
    ``ai_memory.serialization.catalog.schema_dir``) and uses the identity codec.
    """

    def __init__(
        self,
        catalog: SchemaCatalog | None = None,
        *,
        codec: Codec | None = None,
        mapper: EventMapper | None = None,
        sealer: Sealer | None = None,
    ) -> None:
        self.catalog = catalog if catalog is not None else SchemaCatalog.load()
        self.mapper = mapper if mapper is not None else EventMapper()
        self.transcoder = AvroTranscoder(self.catalog)
        self.codec: Codec = codec if codec is not None else IdentityCodec()
        self.sealer = sealer

    def event_type(self, event: DomainEvent) -> str:
        """The event type name, e.g. ``"MemoryWritten"`` (the Avro record name)."""
        return self.mapper.event_type(event)

    def encode(self, event: DomainEvent) -> bytes:
        name = self.mapper.event_type(event)
        body = self.mapper.to_dict(event)
        if self.sealer is not None:
            body = self.sealer.seal(name, body)
        return self.codec.encode(self.transcoder.encode(name, body))

    def decode(self, data: bytes) -> DomainEvent:
        """The event in ``data``; raises ``UndecodableEvent`` for anything unreadable."""
        try:
            frame = self.codec.decode(data)
        except UndecodableEvent:
            raise
        except Exception as e:  # a codec may fail in its own ways; all mean the same here
            raise UndecodableEvent("codec", f"the codec rejected the payload: {e}") from e
        name, body = self.transcoder.decode(frame)
        if self.sealer is not None:
            body = self.sealer.unseal(name, body)
        return self.mapper.from_dict(name, body)
