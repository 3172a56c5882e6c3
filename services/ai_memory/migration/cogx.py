"""Export a tenant (optionally some scopes) as a COGX 0.1 archive cognee can import.

The format is cognee's own (``cognee/modules/migration/cogx.py``, ``COGX.md``, version
``0.1``): a directory with ``manifest.json`` and one JSONL file per record kind, or the
same directory packed as ``<name>.cogx.tar.gz`` with the files at the tarball root
(``archive.py``). Mapping from ai-memory records:

* ``fact`` / ``preference`` / ``skill`` / ``task`` → ``memory`` (``memories.jsonl``) with
  ``categories = [type, *tags]``
* ``interaction`` → ``episode`` (``episodes.jsonl``) with one turn
* scope ``user:x`` / ``agent:x`` / ``session:x`` / ``run:x`` → COGX ``scope`` fields;
  every record also keeps its exact ai-memory fields under ``metadata.ai_memory``
  (scope, type, state, version, source_agent, tags, meta, ttl) so an ai-memory →
  COGX → ai-memory round trip is lossless (:mod:`.importers.cognee` reads them back)
* tombstones have no COGX kind: they go to ``ai_memory_tombstones.jsonl`` (id, scope,
  deleted_at, reason — never content), a file cognee's reader ignores, and the manifest
  notes say so. Vectors are never exported.
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ai_memory import __version__
from ai_memory.core.record import MemoryType, StoredRecord, Tombstone
from ai_memory.core.timeparse import format_timestamp
from ai_memory.service.memory_service import MemoryService

COGX_VERSION = "0.1"
SYSTEM = "ai-memory"
MEMORIES, EPISODES, TOMBSTONES = "memories.jsonl", "episodes.jsonl", "ai_memory_tombstones.jsonl"
_SCOPE_FIELDS = {"user": "user_id", "agent": "agent_id", "session": "session_id", "run": "run_id"}


@dataclass
class CogxExport:
    """What an export wrote."""

    directory: Path
    counts: dict[str, int] = field(default_factory=dict)
    archive: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "directory": str(self.directory),
            "archive": str(self.archive) if self.archive else None,
            "counts": self.counts,
        }


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def cogx_scope(scope: str) -> dict[str, str]:
    """The COGX ``scope`` object of an ai-memory scope (empty for other kinds)."""
    kind, _, name = scope.partition(":")
    key = _SCOPE_FIELDS.get(kind)
    return {key: name} if key and name else {}


def record_to_cogx(stored: StoredRecord) -> tuple[str, dict[str, Any]]:
    """``(file name, COGX record)`` for one stored record."""
    record = stored.record
    own = {
        "scope": record.scope,
        "type": record.type.value,
        "state": stored.state.value,
        "version": stored.version,
        "source_agent": record.source_agent,
        "tags": list(record.tags),
        "meta": dict(record.meta),
        "ttl": record.ttl,
    }
    base: dict[str, Any] = {
        "external_system": SYSTEM,
        "external_id": record.id,
        "scope": cogx_scope(record.scope),
        "created_at": format_timestamp(record.created_at),
        "updated_at": format_timestamp(stored.updated_at),
        "metadata": {"ai_memory": {k: v for k, v in own.items() if v is not None}},
    }
    if record.type is MemoryType.INTERACTION:
        turn = {
            "role": str(record.meta.get("role") or record.source_agent),
            "content": record.content,
            "occurred_at": base["created_at"],
        }
        return EPISODES, {"kind": "episode", **base, "turns": [turn]}
    categories = [record.type.value, *record.tags]
    return MEMORIES, {"kind": "memory", **base, "content": record.content, "categories": categories}


def tombstone_to_cogx(tombstone: Tombstone) -> dict[str, Any]:
    """The extension line of one tombstone (no content, ever)."""
    return tombstone.to_json()


def export_cogx(
    service: MemoryService,
    tenant: str,
    directory: Path,
    *,
    scopes: Sequence[str] | None = None,
    pack: bool = False,
) -> CogxExport:
    """Write the archive into ``directory`` (cleared of earlier COGX files first);
    with ``pack`` also write ``<directory>.cogx.tar.gz``."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in (MEMORIES, EPISODES, TOMBSTONES, "manifest.json"):
        (directory / stale).unlink(missing_ok=True)
    result = CogxExport(directory)
    handles: dict[str, IO[str]] = {}
    try:
        for stored in service.store.scan_records(tenant, scopes=scopes):
            name, line = record_to_cogx(stored)
            _write(handles, directory, name, _dump(line))
            kind = line["kind"]
            result.counts[kind] = result.counts.get(kind, 0) + 1
        for tombstone in service.store.scan_tombstones(tenant, scopes=scopes):
            _write(handles, directory, TOMBSTONES, _dump(tombstone_to_cogx(tombstone)))
            result.counts["ai_memory_tombstone"] = result.counts.get("ai_memory_tombstone", 0) + 1
    finally:
        for handle in handles.values():
            handle.close()
    manifest = {
        "cogx_version": COGX_VERSION,
        "source_system": SYSTEM,
        "exported_at": format_timestamp(service.clock.now()),
        "counts": result.counts,
        "embedding_model": None,
        "notes": [
            f"Written by ai-memory {__version__} for tenant {tenant!r}"
            + (f", scopes {list(scopes)}" if scopes else ""),
            "metadata.ai_memory holds the exact ai-memory record fields for a lossless return.",
            f"{TOMBSTONES} lists forgotten memories (id, scope, deleted_at, reason; no content)"
            " so an importer can keep them forgotten; it is not a COGX record kind.",
            "No vectors are exported: the receiving side embeds the text itself.",
        ],
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    if pack:
        result.archive = pack_archive(
            directory, directory.with_name(directory.name + ".cogx.tar.gz")
        )
    return result


def _write(handles: dict[str, IO[str]], directory: Path, name: str, line: str) -> None:
    handle = handles.get(name)
    if handle is None:
        handle = handles[name] = (directory / name).open("w", encoding="utf-8")
    handle.write(line + "\n")


def pack_archive(directory: Path, tar_path: Path) -> Path:
    """Pack the archive directory with its files at the tarball root (cognee's layout)."""
    with tarfile.open(tar_path, "w:gz") as tar:
        for path in sorted(directory.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(directory)))
    return tar_path
