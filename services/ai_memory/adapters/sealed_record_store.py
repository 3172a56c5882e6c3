"""A ``RecordStore`` decorator whose rows keep a memory's personal fields sealed at rest.

With encryption on, forgetting a memory destroys its data key. The log's copy is then
unreadable at once; the records view's copy must be too, whatever the store keeps on disk
after a delete (Cassandra: SSTables and commit-log segments until compaction, snapshots,
backups). So a record is sealed on its way in (``apply``: content, tags, meta and the
plain fingerprint into an AES-256-GCM ciphertext under the memory's data key, tags as
keyed digests — ``core.view_sealing``) and opened on its way out (``get``, ``get_many``,
``scan_records``, ``list_records``).

* Keys come through the ``Sealer`` (its cache, its vault): one vault call per batch of
  rows — a projector batch, a ``get_many``, a scan chunk or a listing page — never one
  per row.
* A row whose key is destroyed (a read racing the tombstone, an old SSTable restored from
  a backup), or whose sealed value does not open (copied from another memory, tenant or
  version), reads as absent: never an error, never the old text.
* A row written in clear before sealing was on still reads (``core.view_sealing`` tells
  it apart); ``ai-memory replay --projection records`` rewrites it sealed.
* Listing by tag asks the store for the tag's digest, so the filter still runs in the
  store (SQLite ``json_each``, Cassandra's own page filter).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.listing import ListQuery, RecordPage
from ai_memory.core.ports import RecordStore
from ai_memory.core.projection import LineageEntry, PutRecord, RecordMutation
from ai_memory.core.record import MemoryRecord, StoredRecord, Tombstone
from ai_memory.core.sealing import NONCE_BYTES, keyed_fingerprint
from ai_memory.core.view_sealing import (
    FORGOTTEN,
    SealedValue,
    ViewFields,
    is_sealed,
    parse_sealed,
    view_aad,
)

from .record_rows import sealed_json
from .tag_digests import TagDigests


class ViewKeys(Protocol):
    """The data keys the view is sealed with (``serialization.sealer.Sealer``)."""

    def view_keys(self, tenant: str, subjects: Sequence[str]) -> dict[str, tuple[str, bytes]]: ...

    def view_open_keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]: ...


class SealedRecordStore:
    def __init__(self, inner: RecordStore, keys: ViewKeys, tag_key: bytes) -> None:
        self.inner = inner
        self._keys = keys
        self._memo = TagDigests(tag_key)

    # --- sealing -----------------------------------------------------------------------
    def _digest(self, tenant: str, tag: str) -> str:
        return self._memo(tenant, tag)

    def _seal(self, s: StoredRecord, issued: tuple[str, bytes] | None) -> StoredRecord:
        r = s.record
        if issued is None:  # the key is gone: the memory was forgotten meanwhile
            value, sha = SealedValue(0, FORGOTTEN, b"").encode(), ""
        else:
            key_id, key = issued
            fields = ViewFields(r.content, tuple(r.tags), dict(r.meta), s.content_sha256)
            size = len(r.content.encode("utf-8"))
            nonce = os.urandom(NONCE_BYTES)
            aad = view_aad(s.tenant, r.id, s.version, size)
            blob = nonce + AESGCM(key).encrypt(nonce, sealed_json(fields.body()), aad)
            value = SealedValue(size, key_id, blob).encode()
            sha = keyed_fingerprint(key, r.content)
        tags = tuple(self._digest(s.tenant, t) for t in r.tags)
        return replace(s, record=replace(r, content=value, tags=tags, meta={}), content_sha256=sha)

    def apply(
        self, mutations: Sequence[RecordMutation], *, checkpoint: int, partition: int = 0
    ) -> None:
        subjects: dict[str, list[str]] = defaultdict(list)
        for m in mutations:
            if isinstance(m, PutRecord):
                subjects[m.stored.tenant].append(memory_key_id(m.stored.record.id))
        keys = {t: self._keys.view_keys(t, subs) for t, subs in subjects.items()}
        sealed: list[RecordMutation] = [
            PutRecord(
                self._seal(m.stored, keys[m.stored.tenant].get(memory_key_id(m.stored.record.id)))
            )
            if isinstance(m, PutRecord)
            else m
            for m in mutations
        ]
        self.inner.apply(sealed, checkpoint=checkpoint, partition=partition)

    # --- opening -----------------------------------------------------------------------
    def _open_all(self, tenant: str, rows: Sequence[StoredRecord]) -> list[StoredRecord]:
        """The rows opened, in order; unreadable ones left out. One vault call at most."""
        values: dict[str, SealedValue | None] = {}
        for s in rows:
            if is_sealed(s.record.content):
                try:
                    values[s.record.id] = parse_sealed(s.record.content)
                except ValueError:
                    values[s.record.id] = None
        wanted = [v.key_id for v in values.values() if v is not None and v.key_id != FORGOTTEN]
        keys = self._keys.view_open_keys(tenant, wanted) if wanted else {}
        opened: list[StoredRecord] = []
        for s in rows:
            if s.record.id not in values:
                opened.append(s)  # written in clear before sealing was on
                continue
            found = _open(s, values[s.record.id], keys)
            if found is not None:
                opened.append(found)
        return opened

    def _open_one(self, s: StoredRecord) -> StoredRecord | None:
        opened = self._open_all(s.tenant, [s])
        return opened[0] if opened else None

    def get(self, tenant: str, memory_id: str) -> StoredRecord | Tombstone | None:
        found = self.inner.get(tenant, memory_id)
        return self._open_one(found) if isinstance(found, StoredRecord) else found

    def get_many(
        self, tenant: str, memory_ids: Sequence[str], *, sealed: bool = False
    ) -> dict[str, StoredRecord]:
        rows = self.inner.get_many(tenant, memory_ids)
        if sealed:  # the rows as stored: what a search ranks by is never sealed
            return rows
        return {s.record.id: s for s in self._open_all(tenant, list(rows.values()))}

    def unseal(self, tenant: str, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        return self._open_all(tenant, records)

    def scan_records(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[StoredRecord]:
        chunk: list[StoredRecord] = []
        for s in self.inner.scan_records(tenant, scopes=scopes, batch=batch):
            chunk.append(s)
            if len(chunk) >= batch:
                yield from self._open_all(tenant, chunk)
                chunk = []
        yield from self._open_all(tenant, chunk)

    def list_records(self, query: ListQuery) -> RecordPage:
        asked = (
            query
            if query.tag is None
            else replace(query, tag=self._digest(query.tenant, query.tag))
        )
        page = self.inner.list_records(asked)
        # A page may end short (a store may already end one short): the cursor stays.
        return replace(page, items=self._open_all(query.tenant, page.items))

    # --- as they are -------------------------------------------------------------------
    def checkpoint(self, partition: int = 0) -> int:
        return self.inner.checkpoint(partition)

    def tombstoned(self, tenant: str, memory_ids: Sequence[str]) -> set[str]:
        return self.inner.tombstoned(tenant, memory_ids)

    def scan_tombstones(
        self, tenant: str, *, scopes: Sequence[str] | None = None, batch: int = 1000
    ) -> Iterator[Tombstone]:
        return self.inner.scan_tombstones(tenant, scopes=scopes, batch=batch)

    def count(self, tenant: str) -> int:
        return self.inner.count(tenant)

    def lineage(self, tenant: str, memory_id: str) -> list[LineageEntry]:
        return self.inner.lineage(tenant, memory_id)

    def reset(self) -> None:
        self.inner.reset()

    def close(self) -> None:
        self.inner.close()


def _open(
    s: StoredRecord, value: SealedValue | None, keys: Mapping[str, bytes]
) -> StoredRecord | None:
    """The row with its fields back; None when it does not open (key destroyed, value
    malformed or copied from elsewhere)."""
    key = None if value is None else keys.get(value.key_id)
    if value is None or key is None or len(value.blob) <= NONCE_BYTES:
        return None
    r = s.record
    try:
        plaintext = AESGCM(key).decrypt(
            value.blob[:NONCE_BYTES],
            value.blob[NONCE_BYTES:],
            view_aad(s.tenant, r.id, s.version, value.content_bytes),
        )
        fields = ViewFields.parse(plaintext)
    except (InvalidTag, ValueError, KeyError):
        return None
    # Built field by field: ``dataclasses.replace`` was half the cost of opening a row.
    record = MemoryRecord(
        r.id,
        r.type,
        fields.content,
        r.scope,
        r.source_agent,
        r.created_at,
        r.ttl,
        fields.tags,
        fields.meta,
        r.schema_version,
    )
    return StoredRecord(
        s.tenant,
        record,
        s.version,
        s.state,
        fields.content_sha256,
        s.updated_at,
        s.position,
        s.read_count,
        s.last_read_at,
    )
