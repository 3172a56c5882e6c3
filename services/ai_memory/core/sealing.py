"""What a sealed event hides and what binds its ciphertext to it (pure rules).

Sealing (crypto-shredding, ``docs/design/FORGETTING.md``) moves the personal fields of an
event into an AES-256-GCM ciphertext under the data key of its memory; the cipher itself
runs in ``serialization.sealer``. This module says:

* **which fields** are sealed — a memory's ``content``, ``tags`` and ``meta``; in the
  clear record they become ``""``, ``[]`` and ``"{}"``; an interaction's ``text``,
  ``extraction_json`` and ``session_id`` (``""``, null and null in the clear), under a
  key of its own; everything that routes, orders and governs (ids, tenant, scope, type,
  times, versions, states) stays clear (the table of every field a user gives, and why
  it is sealed, digested or left clear: ``docs/design/FORGETTING.md``);
* **the plaintext**: compact JSON of those fields plus the plain fingerprint, so a
  decoded event is exactly the event that was encoded (idempotent upserts compare it);
* **the AAD**: tenant, event type, memory (or interaction) id and version (0 for an
  interaction), so a ciphertext moved onto another record, tenant or version does not
  open;
* **the clear fingerprint**: HMAC-SHA256(data key, content) — a plain hash of a short
  sentence would be a dictionary oracle, an HMAC under a destroyed key says nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from .json_array import COMPACT, json_array

ALGORITHM = "AES-256-GCM"
NONCE_BYTES = 12  # 96-bit random nonces, as GCM wants
# Versioned so a future layout of the sealed fields can be told apart.
_AAD_FORMAT = "aimem.seal.v1"


@dataclass(frozen=True)
class SealedFields:
    """The fields of a MemoryWritten that go into the ciphertext."""

    content: str
    tags: tuple[str, ...]
    meta_json: str  # the record's meta as the mapper writes it (compact, sorted keys)
    content_sha256: str  # the plain fingerprint, restored on unsealing

    def plaintext(self) -> bytes:
        body = {
            "c": self.content,
            "t": list(self.tags),
            "m": self.meta_json,
            "h": self.content_sha256,
        }
        return COMPACT.encode(body).encode("utf-8")

    @staticmethod
    def parse(data: bytes) -> SealedFields:
        body = json.loads(data.decode("utf-8"))
        if not isinstance(body, dict):
            raise ValueError("sealed fields are not a JSON object")
        tags = body["t"]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError("sealed tags are not a list of strings")
        content, meta, sha = body["c"], body["m"], body["h"]
        if not (isinstance(content, str) and isinstance(meta, str) and isinstance(sha, str)):
            raise ValueError("sealed fields have the wrong types")
        return SealedFields(content, tuple(tags), meta, sha)


@dataclass(frozen=True)
class SealedInteraction:
    """The fields of an InteractionRecorded that go into the ciphertext: what was said,
    the extractor's decision (which quotes the memories it found) and the conversation
    it was said in — a session id is the caller's, often a user's or a chat's handle, and
    must not outlive the turn's forgetting on the log."""

    text: str
    extraction_json: str | None
    # None: no session, or sealed before sessions were sealed (the clear field holds it).
    session_id: str | None = None

    def plaintext(self) -> bytes:
        body = {"x": self.text, "e": self.extraction_json, "s": self.session_id}
        return COMPACT.encode(body).encode("utf-8")

    @staticmethod
    def parse(data: bytes) -> SealedInteraction:
        body = json.loads(data.decode("utf-8"))
        if not isinstance(body, dict):
            raise ValueError("sealed fields are not a JSON object")
        text, extraction = body["x"], body["e"]
        session = body.get("s")  # absent from turns sealed before sessions were
        if not isinstance(text, str) or not (extraction is None or isinstance(extraction, str)):
            raise ValueError("sealed fields have the wrong types")
        if not (session is None or isinstance(session, str)):
            raise ValueError("the sealed session is not a string")
        return SealedInteraction(text, extraction, session)


#: What the clear record holds in place of each sealed field.
CLEAR_CONTENT = ""
CLEAR_TAGS: tuple[str, ...] = ()
CLEAR_META_JSON = "{}"


def aad(tenant: str, event_type: str, subject_id: str, version: int) -> bytes:
    """Associated data binding a ciphertext to its event: a JSON array, so no value can
    contain a separator that makes two different tuples encode alike (the bytes of
    ``json.dumps`` with ``ensure_ascii=False``, compact: ``json_array``)."""
    return json_array((_AAD_FORMAT, tenant, event_type, subject_id, version), ensure_ascii=False)


def keyed_fingerprint(key: bytes, content: str) -> str:
    """The clear ``content_sha256`` of a sealed event."""
    return hmac.new(key, content.encode("utf-8"), hashlib.sha256).hexdigest()


def derived_key(root: bytes, purpose: str) -> bytes:
    """A key for one purpose derived from the root key (HMAC-SHA256 as a PRF), so one
    deployment secret serves several uses without reusing a key across them."""
    return hmac.new(root, f"aimem.derive.v1|{purpose}".encode(), hashlib.sha256).digest()


def tag_digest(key: bytes, tenant: str, tag: str) -> str:
    """What a search index stores for a tag of a sealed memory: equal tags of a tenant
    match, and nobody without the key learns a tag, not even by guessing it."""
    mac = hmac.new(key, json.dumps([tenant, tag], ensure_ascii=False).encode(), hashlib.sha256)
    return "tag:" + mac.hexdigest()[:32]
