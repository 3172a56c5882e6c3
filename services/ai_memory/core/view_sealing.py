"""How a records-view row keeps a memory's personal fields sealed at rest (pure rules).

The log seals a memory's ``content``, ``tags`` and ``meta`` (``core.sealing``); the
records view used to keep them in clear, so a forgotten memory stayed readable in a
Cassandra node's SSTables and commit log until compaction. With encryption on, a view row
holds instead (``adapters.sealed_record_store`` runs the cipher):

* ``content``: a **sealed value** — ``PREFIX``, the content's UTF-8 size (usage sums it
  in SQL), the id of the memory's data key, and ``base64(nonce || AES-256-GCM
  ciphertext)`` of content, tags, meta and the plain fingerprint. ``PREFIX`` starts with
  a NUL, which no accepted content holds (``core.record`` refuses control characters),
  so a row written in clear before sealing was on is told apart without a migration;
* ``tags``: tenant-keyed digests (``core.sealing.tag_digest``), so listing by tag still
  filters in the store and the files say nothing of the tags;
* ``meta``: ``{}``; ``content_sha256``: the keyed fingerprint (a plain SHA-256 of a short
  sentence would be a dictionary oracle).

The AAD binds tenant, memory id, version and size under a format tag of its own (a view
ciphertext is never an event ciphertext): a sealed value copied onto another memory,
tenant or version does not open. A value sealed under no key (``FORGOTTEN``: the key was
destroyed before the row was written) never opens either.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from .json_array import json_array

VIEW_FORMAT = "aimem.view.v1"
PREFIX = f"\x00{VIEW_FORMAT}\x00"
_SEP = "\x00"
#: The key id of a row written after its memory's key was destroyed: it reads as forgotten.
FORGOTTEN = ""


@dataclass(frozen=True)
class ViewFields:
    """What the ciphertext of a view row holds."""

    content: str
    tags: tuple[str, ...]
    meta: dict[str, Any]
    content_sha256: str

    def body(self) -> dict[str, Any]:
        """What is sealed, as JSON: the store writes it with orjson
        (``record_rows.sealed_json``; rows sealed before hold ``COMPACT``'s bytes), and
        ``parse`` reads either."""
        return {"c": self.content, "t": list(self.tags), "m": self.meta, "h": self.content_sha256}

    @staticmethod
    def parse(data: bytes) -> ViewFields:
        body = json.loads(data.decode("utf-8"))
        if not isinstance(body, dict):
            raise ValueError("sealed view fields are not a JSON object")
        tags, content, meta, sha = body["t"], body["c"], body["m"], body["h"]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError("sealed view tags are not a list of strings")
        if not (isinstance(content, str) and isinstance(meta, dict) and isinstance(sha, str)):
            raise ValueError("sealed view fields have the wrong types")
        return ViewFields(content, tuple(tags), meta, sha)


@dataclass(frozen=True)
class SealedValue:
    """A parsed sealed ``content`` column: the UTF-8 size of the content (what usage
    counts; the ciphertext's length tells it anyway, and the AAD binds it), the key id
    and ``nonce || ciphertext``."""

    content_bytes: int
    key_id: str
    blob: bytes

    def encode(self) -> str:
        blob = base64.b64encode(self.blob).decode("ascii")
        return f"{PREFIX}{self.content_bytes}{_SEP}{self.key_id}{_SEP}{blob}"


def is_sealed(content: str) -> bool:
    return content.startswith(PREFIX)


def parse_sealed(content: str) -> SealedValue:
    """The sealed value of a ``content`` column that ``is_sealed``; ``ValueError`` when it
    is malformed (it then reads as unreadable, like one whose key was destroyed)."""
    if not is_sealed(content):
        raise ValueError("not a sealed view value")
    # The key id names the memory, and a memory id written below the record's validation
    # (an import of events, a replay) may hold the separator: the size ends at the first
    # one and the ciphertext (base64, never a NUL) starts after the last.
    size, first, rest = content[len(PREFIX) :].partition(_SEP)
    key_id, last, blob = rest.rpartition(_SEP)
    if not (first and last) or not size.isascii() or not size.isdigit():
        raise ValueError("sealed view value is not size, key id and ciphertext")
    try:
        return SealedValue(int(size), key_id, base64.b64decode(blob.encode("ascii"), validate=True))
    except (binascii.Error, UnicodeEncodeError) as e:
        raise ValueError("sealed view ciphertext is not base64") from e


def view_aad(tenant: str, memory_id: str, version: int, content_bytes: int) -> bytes:
    """Associated data of a view row: a JSON array, so no value can hold a separator that
    makes two different tuples encode alike."""
    return json_array((VIEW_FORMAT, tenant, memory_id, version, content_bytes), ensure_ascii=False)
