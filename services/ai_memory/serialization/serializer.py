"""The facade: domain event ↔ bytes through mapper → transcoder → codec.

    encode: event ─EventMapper.to_dict─> dict ─[Sealer.seal]─> dict ─AvroTranscoder.encode─>
            frame ─Codec─> bytes
    decode: bytes ─Codec─> frame ─AvroTranscoder.decode─> dict ─[Sealer.unseal]─> dict
            ─EventMapper.from_dict─> event

The sealer (crypto-shredding, ``sealer.py``) is there only when encryption is on.

Each stage is usable and tested alone; this class only composes them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ai_memory.core.errors import RetryableError
from ai_memory.core.events import DomainEvent

from .catalog import SchemaCatalog
from .codec import Codec, IdentityCodec
from .decoded_frames import DecodedFrames, KeyRef
from .errors import UndecodableEvent
from .mapper import EventMapper
from .sealer import Sealer
from .transcoder import AvroTranscoder

log = logging.getLogger(__name__)

Remembered = tuple[DomainEvent, KeyRef | None]


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
        decoded: DecodedFrames | None = None,
    ) -> None:
        self.catalog = catalog if catalog is not None else SchemaCatalog.load()
        self.mapper = mapper if mapper is not None else EventMapper()
        self.transcoder = AvroTranscoder(self.catalog)
        self.codec: Codec = codec if codec is not None else IdentityCodec()
        self.sealer = sealer
        # Frames the append pipeline proved in this process, for its readers of the log.
        self.decoded = decoded

    def event_type(self, event: DomainEvent) -> str:
        """The event type name, e.g. ``"MemoryWritten"`` (the Avro record name)."""
        return self.mapper.event_type(event)

    def encode(self, event: DomainEvent) -> bytes:
        name = self.mapper.event_type(event)
        body = self.mapper.to_dict(event)
        if self.sealer is not None:
            body = self.sealer.seal(name, body)
        return self.codec.encode(self.transcoder.encode(name, body))

    def decode_remembered(self, data: bytes) -> DomainEvent:
        """``decode``, the event kept for this process's readers of the log with the data
        key its sealed content opened with (``decoded``: the append pipeline's proof
        decodes every frame it appends)."""
        name, body = self._transcode(data)
        event = self._open(name, body)
        if self.decoded is not None:
            envelope = body.get("encryption") if self.sealer is not None else None
            key = None if envelope is None else (str(body["tenant"]), str(envelope["key_id"]))
            self.decoded.remember(data, event, key)
        return event

    def decode_many(self, datas: Sequence[bytes]) -> list[DomainEvent | Exception]:
        """``decode`` of each of ``datas``, or the exception it raised, in order; the data
        keys of the sealed ones are read first in one vault call per tenant
        (``Sealer.prefetch``) instead of one per event. A prefetch that fails (the vault
        is down) is left to each event's own ``decode`` to report. A frame this process
        proved is answered with the event its proof decoded (``decoded``), once its data
        key is found alive as a decode would find it."""
        if self.decoded is None:
            return self._decode_many(datas)
        known = [self.decoded.take(data) for data in datas]
        if self.sealer is not None:
            known = self._keys_alive(known)
        misses = [data for data, hit in zip(datas, known, strict=True) if hit is None]
        rest = iter(self._decode_many(misses) if misses else ())
        return [next(rest) if hit is None else hit[0] for hit in known]

    def _keys_alive(self, known: list[Remembered | None]) -> list[Remembered | None]:
        """``known`` with every entry whose data key no longer opens (destroyed, here or
        elsewhere) dropped: a decode would read its content as forgotten."""
        assert self.sealer is not None and self.decoded is not None
        wanted: dict[str, list[str]] = {}
        for hit in known:
            if hit is not None and hit[1] is not None:
                wanted.setdefault(hit[1][0], []).append(hit[1][1])
        if not wanted:
            return known
        try:
            self.sealer.prefetch(wanted)
        except Exception:  # each key is asked again below, and a failure decodes afresh
            log.debug("prefetching data keys failed", exc_info=True)
        alive: list[Remembered | None] = []
        for hit in known:
            if hit is not None and hit[1] is not None and not self.sealer.opens(*hit[1]):
                self.decoded.mark_stale()
                hit = None
            alive.append(hit)
        return alive

    def _decode_many(self, datas: Sequence[bytes]) -> list[DomainEvent | Exception]:
        bodies: list[tuple[str, dict[str, Any]] | Exception] = []
        for data in datas:
            try:
                bodies.append(self._transcode(data))
            except Exception as e:  # this event's own failure, reported in its place
                bodies.append(e)
        if self.sealer is not None:
            wanted: dict[str, list[str]] = {}
            for body in bodies:
                if not isinstance(body, Exception) and body[1].get("encryption") is not None:
                    wanted.setdefault(body[1]["tenant"], []).append(body[1]["encryption"]["key_id"])
            try:
                self.sealer.prefetch(wanted)
            except Exception:  # each event meets the outage again, and says so
                log.debug("prefetching data keys failed", exc_info=True)
        decoded: list[DomainEvent | Exception] = []
        outage: RetryableError | None = None
        for body in bodies:
            if isinstance(body, Exception):
                decoded.append(body)
            elif outage is not None and body[1].get("encryption") is not None:
                # The vault is down: the batch's other sealed events would each wait out
                # a read that fails the same way; the caller retries them one by one.
                decoded.append(outage)
            else:
                try:
                    decoded.append(self._open(*body))
                except RetryableError as e:
                    outage = e
                    decoded.append(e)
                except Exception as e:
                    decoded.append(e)
        return decoded

    def clear_fields(self, data: bytes) -> tuple[str, dict[str, Any]]:
        """The event type and its fields as the log holds them: sealed fields stay
        sealed, so no key is read (what a reader of clear fields alone needs)."""
        return self._transcode(data)

    def _transcode(self, data: bytes) -> tuple[str, dict[str, Any]]:
        try:
            frame = self.codec.decode(data)
        except UndecodableEvent:
            raise
        except Exception as e:  # a codec may fail in its own ways; all mean the same here
            raise UndecodableEvent("codec", f"the codec rejected the payload: {e}") from e
        return self.transcoder.decode(frame)

    def _open(self, name: str, body: dict[str, Any]) -> DomainEvent:
        if self.sealer is not None:
            body = self.sealer.unseal(name, body)
        return self.mapper.from_dict(name, body)

    def decode(self, data: bytes) -> DomainEvent:
        """The event in ``data``; raises ``UndecodableEvent`` for anything unreadable."""
        return self._open(*self._transcode(data))
