"""The sealing stage of the pipeline (crypto-shredding, ``deploy/FORGETTING.md``).

    encode: event ─mapper─> dict ─Sealer.seal─> dict ─transcoder─> frame
    decode: frame ─transcoder─> dict ─Sealer.unseal─> dict ─mapper─> event

It works on the Avro-shaped dicts, so every log (SQLite, Kafka, in-memory), the guard,
replays, the audit trail and dead letters see the same bytes: whatever writes a frame
writes ciphertext, whatever reads one gets the plaintext back while the key lives. The
field rules and the AAD are ``core.sealing``; the cipher is AES-256-GCM.

* A ``MemoryWritten`` without an envelope is sealed under its memory's data key (created
  on the memory's first write), an ``InteractionRecorded`` under a key of its own. One
  that already carries an envelope — an event read back whose key was destroyed —
  passes through as it is.
* Unsealing a ``MemoryWritten`` whose key was destroyed leaves it sealed: the decoded
  event has empty content and its envelope, which projections read as "no longer
  exists" (``core.projection``). A key the vault never had, or a ciphertext that does not
  open, is ``UndecodableEvent`` (dead-lettered, never silently dropped).
* Unwrapped keys are cached for ``cache_seconds`` (a vault read per event would double a
  replay's cost); ``forget`` evicts at once in this process, other processes drop a
  destroyed key within ``cache_seconds``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.core.data_keys import (
    DataKeyVault,
    interaction_key_id,
    key_destroyed,
    memory_key_id,
)
from ai_memory.core.events import DomainEvent, InteractionRecorded, MemoryWritten
from ai_memory.core.sealing import (
    ALGORITHM,
    CLEAR_CONTENT,
    CLEAR_META_JSON,
    CLEAR_TAGS,
    NONCE_BYTES,
    SealedFields,
    SealedInteraction,
    aad,
    keyed_fingerprint,
)

from .errors import UndecodableEvent, UnencodableEvent

EventDict = dict[str, Any]
_WRITTEN = "MemoryWritten"
_INTERACTION = "InteractionRecorded"


class Sealer:
    def __init__(
        self, vault: DataKeyVault, *, cache_seconds: float = 5.0, cache_size: int = 10_000
    ) -> None:
        self.vault = vault
        self._ttl = cache_seconds
        self._size = cache_size
        self._cache: OrderedDict[tuple[str, str], tuple[bytes, float]] = OrderedDict()
        self._lock = threading.Lock()

    # --- keys ------------------------------------------------------------------------
    def _cached(self, tenant: str, key_id: str) -> bytes | None:
        with self._lock:
            hit = self._cache.get((tenant, key_id))
            if hit is None or hit[1] < time.monotonic():
                return None
            self._cache.move_to_end((tenant, key_id))
            return hit[0]

    def _remember(self, tenant: str, key_id: str, key: bytes) -> None:
        with self._lock:
            self._cache[(tenant, key_id)] = (key, time.monotonic() + self._ttl)
            self._cache.move_to_end((tenant, key_id))
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)

    def _key(self, tenant: str, key_id: str, *, create: bool) -> bytes | None:
        key = self._cached(tenant, key_id)
        if key is None:
            key = self.vault.create(tenant, key_id) if create else self.vault.get(tenant, key_id)
            if key is not None:
                self._remember(tenant, key_id, key)
        return key

    def prepare(self, events: Sequence[DomainEvent]) -> None:
        """Fetch or create, in one vault round trip per tenant, the keys of a batch about
        to be sealed (a batch of 100 new memories: one vault transaction, not 100)."""
        wanted: dict[str, list[str]] = {}
        for e in events:
            if isinstance(e, MemoryWritten) and e.encryption is None:
                key_id = memory_key_id(e.record.id)
            elif isinstance(e, InteractionRecorded) and e.encryption is None:
                key_id = interaction_key_id(e.interaction_id)
            else:
                continue
            if self._cached(e.header.tenant, key_id) is None:
                wanted.setdefault(e.header.tenant, []).append(key_id)
        for tenant, key_ids in wanted.items():
            for key_id, key in self.vault.create_many(tenant, key_ids).items():
                self._remember(tenant, key_id, key)

    def forget(self, tenant: str, key_id: str) -> None:
        """Destroy a key in the vault and drop it from this process's cache."""
        with self._lock:
            self._cache.pop((tenant, key_id), None)
        self.vault.destroy(tenant, key_id)
        with self._lock:  # a decode racing the destroy may have cached it again
            self._cache.pop((tenant, key_id), None)

    # --- the stage ---------------------------------------------------------------------
    def _live_key(self, tenant: str, key_id: str) -> bytes:
        try:
            key = self._key(tenant, key_id, create=True)
        except Exception as e:
            if getattr(e, "code", "") == "data_key_destroyed":
                raise UnencodableEvent(str(key_destroyed(tenant, key_id))) from e
            raise
        assert key is not None  # create returns a key or raises
        return key

    @staticmethod
    def _envelope(key: bytes, key_id: str, plaintext: bytes, aad: bytes) -> EventDict:
        nonce = os.urandom(NONCE_BYTES)
        return {
            "key_id": key_id,
            "algorithm": ALGORITHM,
            "nonce": nonce,
            "ciphertext": AESGCM(key).encrypt(nonce, plaintext, aad),
        }

    def seal(self, name: str, body: EventDict) -> EventDict:
        if body.get("encryption") is not None:
            return body
        if name == _INTERACTION:
            return self._seal_interaction(body)
        if name != _WRITTEN:
            return body
        record: Mapping[str, Any] = body["record"]
        tenant, memory_id, version = body["tenant"], record["id"], body["version"]
        key_id = memory_key_id(memory_id)
        key = self._live_key(tenant, key_id)
        fields = SealedFields(
            record["content"], tuple(record["tags"]), record["meta"], body["content_sha256"]
        )
        envelope = self._envelope(
            key, key_id, fields.plaintext(), aad(tenant, name, memory_id, version)
        )
        return {
            **body,
            "record": {
                **record,
                "content": CLEAR_CONTENT,
                "tags": list(CLEAR_TAGS),
                "meta": CLEAR_META_JSON,
            },
            "content_sha256": keyed_fingerprint(key, record["content"]),
            "encryption": envelope,
        }

    def _seal_interaction(self, body: EventDict) -> EventDict:
        tenant, interaction_id = body["tenant"], body["interaction_id"]
        key_id = interaction_key_id(interaction_id)
        key = self._live_key(tenant, key_id)
        fields = SealedInteraction(body["text"], body["extraction_json"])
        envelope = self._envelope(
            key, key_id, fields.plaintext(), aad(tenant, _INTERACTION, interaction_id, 0)
        )
        return {**body, "text": CLEAR_CONTENT, "extraction_json": None, "encryption": envelope}

    def _open(self, name: str, body: EventDict, subject: str, version: int) -> bytes | None:
        """The plaintext of ``body``'s envelope; None when its key was destroyed."""
        envelope, tenant = body["encryption"], body["tenant"]
        key_id = envelope["key_id"]
        if envelope["algorithm"] != ALGORITHM:
            raise UndecodableEvent("unsealable", f"unknown algorithm {envelope['algorithm']!r}")
        key = self._key(tenant, key_id, create=False)
        if key is None:
            if self.vault.destroyed(tenant, key_id):
                return None  # forgotten: the content no longer exists
            raise UndecodableEvent(
                "key_missing", f"the vault has no data key {key_id!r} of tenant {tenant!r}"
            )
        try:
            return AESGCM(key).decrypt(
                bytes(envelope["nonce"]),
                bytes(envelope["ciphertext"]),
                aad(tenant, name, subject, version),
            )
        except (InvalidTag, ValueError) as e:
            raise UndecodableEvent(
                "unsealable", f"the sealed fields of {subject!r} v{version} do not open"
            ) from e

    def unseal(self, name: str, body: EventDict) -> EventDict:
        if body.get("encryption") is None:
            return body  # written in the clear (before encryption was on)
        if name == _INTERACTION:
            return self._unseal_interaction(body)
        if name != _WRITTEN:
            return body
        record = body["record"]
        plaintext = self._open(name, body, record["id"], body["version"])
        if plaintext is None:
            return body
        try:
            fields = SealedFields.parse(plaintext)
        except (ValueError, KeyError) as e:
            raise UndecodableEvent("unsealable", f"the sealed fields of {record['id']!r}") from e
        return {
            **body,
            "record": {
                **record,
                "content": fields.content,
                "tags": list(fields.tags),
                "meta": fields.meta_json,
            },
            "content_sha256": fields.content_sha256,
            "encryption": None,
        }

    def _unseal_interaction(self, body: EventDict) -> EventDict:
        plaintext = self._open(_INTERACTION, body, body["interaction_id"], 0)
        if plaintext is None:
            return body
        try:
            fields = SealedInteraction.parse(plaintext)
        except (ValueError, KeyError) as e:
            raise UndecodableEvent(
                "unsealable", f"the sealed fields of {body['interaction_id']!r}"
            ) from e
        return {
            **body,
            "text": fields.text,
            "extraction_json": fields.extraction_json,
            "encryption": None,
        }
