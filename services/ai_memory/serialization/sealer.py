"""The sealing stage of the pipeline (crypto-shredding, ``docs/design/FORGETTING.md``).

    encode: event ─mapper─> dict ─Sealer.seal─> dict ─transcoder─> frame
    decode: frame ─transcoder─> dict ─Sealer.unseal─> dict ─mapper─> event

It works on the Avro-shaped dicts, so every log (SQLite, Kafka, in-memory), the append
pipeline's projectability proof, replays, the audit trail and dead letters see the same
bytes: whatever writes a frame writes ciphertext, whatever reads one gets the plaintext
back while the key lives. The field rules and the AAD are ``core.sealing``; the cipher is
AES-256-GCM.

* A ``MemoryWritten`` without an envelope is sealed under a key of its memory (issued by
  the vault on the memory's first write here: ``DataKeyVault.issue_many``; the envelope
  names the key id, which on Cassandra is one per creation), an ``InteractionRecorded``
  (its text, extraction and session id) under a key of its own. One that already
  carries an envelope — an event read back whose key was destroyed — passes through as
  it is.
* Unsealing a ``MemoryWritten`` whose key was destroyed leaves it sealed: the decoded
  event has empty content and its envelope, which projections read as "no longer
  exists" (``core.projection``). A key the vault never had, or a ciphertext that does not
  open, is ``UndecodableEvent`` (dead-lettered, never silently dropped).
* Unwrapped keys are cached for ``cache_seconds`` (a vault read per event would double a
  replay's cost); ``forget`` evicts at once in this process, other processes drop a
  destroyed key within ``cache_seconds``.
* **Sealing survives a vault outage for known memories** (*stale-if-error*, as the API-key
  cache does): when the vault cannot be reached, a key this process used within the last
  ``stale_seconds`` still seals new versions of its memory, so writes to memories in use
  stay available while Cassandra is down (a new memory still needs the vault: its key must
  be stored before its event is acknowledged). Sealing with it re-arms it for
  ``cache_seconds``, so this process opens what it just wrote (the append pipeline
  decodes every event back, the co-located projections apply it); otherwise opening never reaches
  past ``cache_seconds``. So during an outage a key lives in this process's memory at
  most ``cache_seconds + stale_seconds`` after its last read from the vault — the bound a
  destroy elsewhere gets then (a destroy needs the vault, so on one Cassandra cluster it
  waits for the outage to end). Sealing under a key destroyed meanwhile leaks nothing:
  its memory was forgotten, so the partition owner refuses the write, and were it ever
  appended it would read as forgotten.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.core.coalesce import Coalescer
from ai_memory.core.data_keys import (
    DataKeyVault,
    interaction_key_id,
    key_destroyed,
    memory_key_id,
    subject_of,
)
from ai_memory.core.errors import Unavailable
from ai_memory.core.events import DomainEvent, InteractionRecorded, MemoryWritten
from ai_memory.core.evidence_sealing import (
    FORGOTTEN_KEY,
    SEALED_KEY,
    canonical,
    quoted_memories,
    split_evidence,
)
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
_STATE_CHANGED = "MemoryStateChanged"


STALE_IF_ERROR_SECONDS = 300.0


class Sealer:
    def __init__(
        self,
        vault: DataKeyVault,
        *,
        cache_seconds: float = 5.0,
        cache_size: int = 10_000,
        stale_seconds: float = STALE_IF_ERROR_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.vault = vault
        self._ttl = cache_seconds
        self._size = cache_size
        self._stale = stale_seconds
        self._clock = clock
        # (tenant, key id) → (key, valid until, read from the vault at)
        self._cache: OrderedDict[tuple[str, str], tuple[bytes, float, float]] = OrderedDict()
        # (tenant, subject) → its cached key ids, most recently cached last
        self._ids_of: dict[tuple[str, str], dict[str, None]] = {}
        self._lock = threading.Lock()
        self.stale_seals = 0  # keys used past their TTL because the vault was unreachable
        self._issuer: Coalescer[str, tuple[str, bool], tuple[str, bytes]] = Coalescer(
            self._issue_together
        )

    # --- keys ------------------------------------------------------------------------
    # The cache holds keys by id; ``_ids_of`` indexes the ids of each subject (a vault
    # may issue a subject many keys, one per creation: ``core.data_keys``), most recently
    # cached last, so sealing reuses a live key of its subject and ``forget`` evicts them
    # all at once.
    def _cached(self, tenant: str, key_id: str, *, stale: bool = False) -> bytes | None:
        """The cached key; with ``stale``, also one that expired less than
        ``stale_seconds`` ago (for sealing while the vault is unreachable)."""
        with self._lock:
            hit = self._cache.get((tenant, key_id))
            now = self._clock()
            if hit is None:
                return None
            if stale:
                if hit[2] + self._ttl + self._stale < now:
                    return None
            elif hit[1] < now:
                return None
            self._cache.move_to_end((tenant, key_id))
            return hit[0]

    def _rearm_stale(self, tenant: str, subject: str) -> tuple[str, bytes] | None:
        """A key of ``subject`` within its stale window, re-armed for ``cache_seconds``
        with its age kept, so the append pipeline's decode-back of what is sealed with it opens it
        (as the co-located projections will). Looked up and re-armed under one lock hold:
        a ``forget`` racing it either comes first (nothing to re-arm) or evicts after."""
        with self._lock:
            now = self._clock()
            for key_id in reversed(self._ids_of.get((tenant, subject), ())):
                hit = self._cache.get((tenant, key_id))
                if hit is None or hit[2] + self._ttl + self._stale < now:
                    continue
                self._cache[(tenant, key_id)] = (hit[0], now + self._ttl, hit[2])
                self._cache.move_to_end((tenant, key_id))
                return key_id, hit[0]
            return None

    def _remember(self, tenant: str, key_id: str, key: bytes) -> None:
        """Cache ``key``, just read from (or stored in) the vault, for ``cache_seconds``."""
        with self._lock:
            now = self._clock()
            self._cache[(tenant, key_id)] = (key, now + self._ttl, now)
            self._cache.move_to_end((tenant, key_id))
            ids = self._ids_of.setdefault((tenant, subject_of(key_id)), {})
            ids.pop(key_id, None)
            ids[key_id] = None
            while len(self._cache) > self._size:
                (t, old), _ = self._cache.popitem(last=False)
                self._drop_id(t, old)

    def _drop_id(self, tenant: str, key_id: str) -> None:
        ids = self._ids_of.get((tenant, subject_of(key_id)))
        if ids is not None:
            ids.pop(key_id, None)
            if not ids:
                del self._ids_of[(tenant, subject_of(key_id))]

    def _sealing_cached(self, tenant: str, subject: str) -> tuple[str, bytes] | None:
        """A live cached key of ``subject``, the most recently cached first."""
        with self._lock:
            ids = list(self._ids_of.get((tenant, subject), ()))
        for key_id in reversed(ids):
            key = self._cached(tenant, key_id)
            if key is not None:
                return key_id, key
        return None

    def _open_key(self, tenant: str, key_id: str) -> bytes | None:
        key = self._cached(tenant, key_id)
        if key is None:
            key = self.vault.get(tenant, key_id)
            if key is not None:
                self._remember(tenant, key_id, key)
        return key

    def opens(self, tenant: str, key_id: str) -> bool:
        """The key would open content now, as ``unseal`` finds it (the cache, else the
        vault); False when it is gone or cannot be read (an outage)."""
        try:
            return self._open_key(tenant, key_id) is not None
        except Exception:  # the vault is down: a decode would fail and say so itself
            return False

    def prefetch(self, wanted: Mapping[str, Sequence[str]]) -> None:
        """Read the keys of ``wanted`` (tenant → key ids) that are not cached, in one vault
        call per tenant, so opening the events sealed under them reads nothing more. A key
        the vault does not return is left for ``_open`` to judge (destroyed or missing)."""
        for tenant, key_ids in wanted.items():
            missing = [k for k in dict.fromkeys(key_ids) if self._cached(tenant, k) is None]
            if missing:
                for key_id, key in self.vault.get_many(tenant, missing).items():
                    self._remember(tenant, key_id, key)

    def _issue(self, tenant: str, subject: str) -> tuple[str, bytes] | None:
        """A key to seal new content of ``subject`` with; None once it was destroyed."""
        hit = self._sealing_cached(tenant, subject)
        if hit is not None:
            return hit
        issued = self.vault.issue_many(tenant, [subject]).get(subject)
        if issued is not None:
            self._remember(tenant, *issued)
        return issued

    def prepare(self, events: Sequence[DomainEvent]) -> None:
        """Fetch or issue, in one vault round trip per tenant, the keys of a batch about
        to be sealed (a batch of 100 new memories: one vault request, not 100)."""
        wanted: dict[str, list[str]] = {}
        new: dict[str, set[str]] = {}
        for e in events:
            if isinstance(e, MemoryWritten) and e.encryption is None:
                subject = memory_key_id(e.record.id)
                first = e.version == 1
            elif isinstance(e, InteractionRecorded) and e.encryption is None:
                subject, first = interaction_key_id(e.interaction_id), True
            else:
                continue
            if self._sealing_cached(e.header.tenant, subject) is None:
                wanted.setdefault(e.header.tenant, []).append(subject)
                if first:  # no key yet, most likely: the vault need not look first
                    new.setdefault(e.header.tenant, set()).add(subject)
        for tenant, subjects in wanted.items():
            fresh = new.get(tenant, set())
            try:
                # Concurrent writers of a tenant (sixteen single PUTs) share vault calls.
                issued = self._issuer.call(tenant, [(s, s in fresh) for s in subjects])
            except Unavailable:
                if all(self._stale_known(tenant, s) for s in subjects):
                    continue  # every one is known: sealing uses them (``_live_key``)
                raise
            for key_id, key in issued.values():
                self._remember(tenant, key_id, key)

    def _issue_together(
        self, tenant: str, asked: list[tuple[str, bool]]
    ) -> dict[tuple[str, bool], tuple[str, bytes]]:
        """One ``issue_many`` for what concurrent ``prepare`` calls asked (``Coalescer``)."""
        subjects = [subject for subject, _ in asked]
        issued = self.vault.issue_many(tenant, subjects, new={s for s, first in asked if first})
        return {(s, first): issued[s] for s, first in asked if s in issued}

    def _stale_known(self, tenant: str, subject: str) -> bool:
        with self._lock:
            ids = list(self._ids_of.get((tenant, subject), ()))
        return any(self._cached(tenant, k, stale=True) is not None for k in ids)

    def forget(self, tenant: str, key_id: str) -> None:
        """Destroy a subject's keys in the vault and drop them from this process's cache
        (every key of the subject this process holds, whatever id it was issued under)."""
        self._evict(tenant, key_id)
        self.vault.destroy(tenant, key_id)
        self._evict(tenant, key_id)  # a decode racing the destroy may have cached it again

    def _evict(self, tenant: str, key_id: str) -> None:
        with self._lock:
            self._cache.pop((tenant, key_id), None)
            for issued in list(self._ids_of.pop((tenant, subject_of(key_id)), ())):
                self._cache.pop((tenant, issued), None)

    # --- keys of the records view (``adapters.sealed_record_store``) -------------------
    def view_keys(self, tenant: str, subjects: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        """A key to seal each subject's view row with, as (key id, key): the live key this
        process holds (the projector has just opened the subject's event with it), else
        one the vault issues — one vault call for all the batch misses. Destroyed subjects
        are left out. During a vault outage a key within its stale window serves, as for
        sealing events (``_live_key``)."""
        found: dict[str, tuple[str, bytes]] = {}
        missing: list[str] = []
        for subject in dict.fromkeys(subjects):
            hit = self._sealing_cached(tenant, subject)
            if hit is None:
                missing.append(subject)
            else:
                found[subject] = hit
        if not missing:
            return found
        try:
            issued = self.vault.issue_many(tenant, missing)
        except Unavailable:
            for subject in missing:
                stale = self._rearm_stale(tenant, subject)
                if stale is None:
                    raise
                self.stale_seals += 1
                found[subject] = stale
            return found
        for subject, (key_id, key) in issued.items():
            self._remember(tenant, key_id, key)
            found[subject] = (key_id, key)
        return found

    def view_open_keys(self, tenant: str, key_ids: Sequence[str]) -> dict[str, bytes]:
        """The live keys among ``key_ids``: cached ones, the rest in one vault call.
        Destroyed (or unknown) ids are left out: what they sealed reads as forgotten."""
        found: dict[str, bytes] = {}
        missing: list[str] = []
        for key_id in dict.fromkeys(key_ids):
            key = self._cached(tenant, key_id)
            if key is None:
                missing.append(key_id)
            else:
                found[key_id] = key
        if missing:
            for key_id, key in self.vault.get_many(tenant, missing).items():
                self._remember(tenant, key_id, key)
                found[key_id] = key
        return found

    # --- the stage ---------------------------------------------------------------------
    def _live_key(self, tenant: str, subject: str) -> tuple[str, bytes]:
        try:
            issued = self._issue(tenant, subject)
        except Unavailable:
            issued = self._rearm_stale(tenant, subject)
            if issued is None:
                raise
            self.stale_seals += 1
        if issued is None:
            raise UnencodableEvent(str(key_destroyed(tenant, subject)))
        return issued

    def _live_key_or_none(self, tenant: str, subject: str) -> tuple[str, bytes] | None:
        """``_live_key``, None once the subject was destroyed."""
        try:
            return self._live_key(tenant, subject)
        except UnencodableEvent:
            return None

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
        if name == _STATE_CHANGED:
            return self._seal_evidence(body)
        if name != _WRITTEN:
            return body
        record: Mapping[str, Any] = body["record"]
        tenant, memory_id, version = body["tenant"], record["id"], body["version"]
        key_id, key = self._live_key(tenant, memory_key_id(memory_id))
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
        key_id, key = self._live_key(tenant, interaction_key_id(interaction_id))
        fields = SealedInteraction(body["text"], body["extraction_json"], body.get("session_id"))
        envelope = self._envelope(
            key, key_id, fields.plaintext(), aad(tenant, _INTERACTION, interaction_id, 0)
        )
        return {
            **body,
            "text": CLEAR_CONTENT,
            "extraction_json": None,
            "session_id": None,
            "encryption": envelope,
        }

    def _seal_evidence(self, body: EventDict) -> EventDict:
        """Seal the personal parts of a decision (``core.evidence_sealing``) under the keys
        of every memory it quotes, nested: the innermost layer under the last key."""
        decision = _decision(body.get("decision_json"))
        if decision is None or SEALED_KEY in decision or FORGOTTEN_KEY in decision:
            return body
        clear, personal = split_evidence(decision)
        if not personal:
            return body
        tenant, memory_id = body["tenant"], body["memory_id"]
        key_ids: list[str] = []
        keys: list[bytes] = []
        for m in quoted_memories(memory_id, decision):
            issued = self._live_key_or_none(tenant, memory_key_id(m))
            if issued is None:  # a quoted memory is already forgotten: so is what it said
                return {**body, "decision_json": canonical({**clear, FORGOTTEN_KEY: True})}
            key_ids.append(issued[0])
            keys.append(issued[1])
        data = canonical(personal).encode("utf-8")
        associated = aad(tenant, _STATE_CHANGED, memory_id, 0)
        for key in reversed(keys):
            nonce = os.urandom(NONCE_BYTES)
            data = nonce + AESGCM(key).encrypt(nonce, data, associated)
        sealed = {
            "algorithm": ALGORITHM,
            "key_ids": key_ids,
            "ciphertext": base64.b64encode(data).decode("ascii"),
        }
        return {**body, "decision_json": canonical({**clear, SEALED_KEY: sealed})}

    def open_evidence(self, tenant: str, memory_id: str, decision: EventDict) -> EventDict:
        """A sealed decision with its personal parts back, while every key it was sealed
        under lives; else its clear parts and ``evidence_forgotten``. Projections keep the
        evidence sealed (lineage outlives a forget); this opens it for a reader."""
        sealed = decision.get(SEALED_KEY)
        if not isinstance(sealed, dict):
            return decision
        clear = {k: v for k, v in decision.items() if k != SEALED_KEY}
        try:
            data = base64.b64decode(str(sealed["ciphertext"]))
            associated = aad(tenant, _STATE_CHANGED, memory_id, 0)
            for key_id in sealed["key_ids"]:
                key = self._open_key(tenant, str(key_id))
                if key is None:
                    return {**clear, FORGOTTEN_KEY: True}
                data = AESGCM(key).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], associated)
            personal = json.loads(data.decode("utf-8"))
        except (InvalidTag, ValueError, KeyError, TypeError):
            return {**clear, FORGOTTEN_KEY: True}
        return {**clear, **personal} if isinstance(personal, dict) else clear

    def _open(self, name: str, body: EventDict, subject: str, version: int) -> bytes | None:
        """The plaintext of ``body``'s envelope; None when its key was destroyed."""
        envelope, tenant = body["encryption"], body["tenant"]
        key_id = envelope["key_id"]
        if envelope["algorithm"] != ALGORITHM:
            raise UndecodableEvent("unsealable", f"unknown algorithm {envelope['algorithm']!r}")
        key = self._open_key(tenant, key_id)
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
        # A turn sealed before sessions were sealed keeps its session in the clear field.
        session = body.get("session_id") if fields.session_id is None else fields.session_id
        return {
            **body,
            "text": fields.text,
            "extraction_json": fields.extraction_json,
            "session_id": session,
            "encryption": None,
        }


def _decision(text: object) -> EventDict | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
