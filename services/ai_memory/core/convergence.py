"""The convergence rule of replication between instances (``ai-memory sync``,
``docs/design/SYNC.md``): which of two versions of a memory both instances keep.

Versions are counters of one instance (an import writes the next local version), and
``updated_at`` is when *this* instance applied a change, so neither orders the versions
of one memory made on different instances. Each version gets a **stamp** instead:

* ``at``: when the change was made on the instance where it was made (its
  ``updated_at`` there; a state change moves it too);
* ``digest``: SHA-256 of what is replicated (the record's fields and its state, without
  the stamp itself) — the deterministic tie-break when two changes have the same ``at``.

A replicated version carries its stamp in ``meta["_sync"]`` (``{"at", "digest",
"origin"}``, the origin URL for provenance only) so it keeps it on every instance it
reaches. The stamp is believed only while its digest matches the record: a later local
edit changes the digest, and the record's stamp is then its local ``updated_at``.

The newer stamp wins, ``(at, digest)`` compared in that order; equal stamps are the same
version. A forget wins over every version, concurrent or not: tombstones travel, and an
id with a tombstone is never written again (``decide_write``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .timeparse import format_timestamp, parse_timestamp

SYNC_META_KEY = "_sync"
# What a record line from another instance brings (``core.bundle.record_line``); the
# instance-local rest (version, read counts, updated_at) is never replicated.
_RECORD_FIELDS = ("type", "content", "scope", "source_agent", "created_at", "ttl", "tags")


@dataclass(frozen=True, order=True)
class Stamp:
    at: datetime
    digest: str


def digest_of(record: Mapping[str, Any], state: str) -> str:
    """What is replicated of a version, canonical, without its stamp."""
    meta = {k: v for k, v in (record.get("meta") or {}).items() if k != SYNC_META_KEY}
    body = {name: record.get(name) for name in _RECORD_FIELDS}
    canonical = json.dumps(
        {**body, "meta": meta, "state": state},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def stamp_of(record: Mapping[str, Any]) -> Stamp:
    """The stamp of a record as ``GET /v1/memories/{id}`` returns it (fields, ``state``
    and ``updated_at``): the one it carries if that still describes it, else its own."""
    digest = digest_of(record, str(record["state"]))
    carried = (record.get("meta") or {}).get(SYNC_META_KEY)
    if isinstance(carried, Mapping) and carried.get("digest") == digest:
        try:
            return Stamp(parse_timestamp(carried.get("at"), field="meta._sync.at"), digest)
        except Exception:  # a hand-edited stamp orders nothing: the record's own time does
            pass
    return Stamp(parse_timestamp(record["updated_at"], field="updated_at"), digest)


def replicated_line(record: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """The bundle line that brings ``record`` to another instance, stamped."""
    stamp = stamp_of(record)
    carried = (record.get("meta") or {}).get(SYNC_META_KEY)
    if isinstance(carried, Mapping) and carried.get("digest") == stamp.digest:
        origin = str(carried.get("origin", origin))  # it came from there first
    meta = {
        **(record.get("meta") or {}),
        SYNC_META_KEY: {"at": format_timestamp(stamp.at), "digest": stamp.digest, "origin": origin},
    }
    body = {name: record.get(name) for name in ("id", *_RECORD_FIELDS)}
    return {
        "kind": "record",
        "record": {**body, "meta": meta},
        "state": record["state"],
    }


def wins(incoming: Mapping[str, Any], local: Mapping[str, Any] | None) -> bool:
    """Whether ``incoming`` replaces ``local`` (a live record here, or none)."""
    return local is None or stamp_of(incoming) > stamp_of(local)
