"""cognee: COGX archives (``cognee.export(format="cogx")``), version 0.x.

A COGX archive (``cognee/modules/migration/cogx.py`` and ``COGX.md``) is a directory —
or the same directory packed as ``.cogx.tar.gz`` (``archive.py``) — with
``manifest.json`` (``cogx_version``, ``source_system``, ``exported_at``, ``counts``,
``embedding_model``, ``notes``) and one JSONL file per record kind: ``documents``,
``episodes``, ``entities``, ``facts``, ``memories``, ``memory_blocks``, plus
``nodes.jsonl`` (raw graph nodes). Every typed record carries ``external_system``,
``external_id``, ``scope`` (``user_id`` / ``agent_id`` / ``session_id`` / ``run_id``),
``created_at``, ``updated_at`` and ``metadata``.

Mapping: memory → preference/fact (by categories), memory_block → typed by label,
document → fact, episode → one interaction per turn, entity with a description → fact,
fact → fact (``invalid_at`` → ``historical``), raw node → accounted (``DocumentChunk``
duplicates its document; other raw nodes are graph structure). Archives written by
ai-memory (``external_system: "ai-memory"``) keep their ids, types and states, and their
tombstones from the ``ai_memory_tombstones.jsonl`` extension file.
"""

from __future__ import annotations

import json
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ai_memory.migration import Converted, Unimported, record_line, tombstone_line

from . import ImportOptions, RowError, guarded, iso, load_json, make_scope, safe_id, type_from_label

SOURCE = "cognee"
RECORD_FILES = (
    "memories.jsonl",
    "memory_blocks.jsonl",
    "documents.jsonl",
    "episodes.jsonl",
    "entities.jsonl",
    "facts.jsonl",
    "nodes.jsonl",
)
TOMBSTONES_FILE = "ai_memory_tombstones.jsonl"
OWN_SYSTEM = "ai-memory"
READER_MAJOR = 0


def convert(path: Path, options: ImportOptions) -> Iterator[Converted]:
    """Convert a COGX archive directory or ``.cogx.tar.gz``."""
    if path.is_dir():
        yield from _archive(path, options)
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield from _archive(_unpack(path, Path(tmp)), options)


def _unpack(path: Path, into: Path) -> Path:
    try:
        with tarfile.open(path, "r:*") as tar:
            members = []
            for member in tar.getmembers():
                name = PurePosixPath(member.name)
                if name.is_absolute() or ".." in name.parts:
                    raise RowError(f"unsafe path in archive: {member.name!r}")
                if member.isfile() or member.isdir():
                    members.append(member)
            tar.extractall(into, members=members, filter="data")
    except tarfile.TarError as e:
        raise RowError(f"{path.name} is not a COGX .tar.gz archive: {e}") from e
    if (into / "manifest.json").exists():
        return into
    subdirs = [p for p in into.iterdir() if p.is_dir()]
    if len(subdirs) == 1 and (subdirs[0] / "manifest.json").exists():
        return subdirs[0]
    raise RowError(f"{path.name}: no COGX manifest.json in the archive")


def _archive(root: Path, options: ImportOptions) -> Iterator[Converted]:
    manifest_path = root / "manifest.json"
    if not manifest_path.exists():
        raise RowError(f"{root}: no manifest.json (not a COGX archive)")
    manifest = load_json(manifest_path)
    version = str(manifest.get("cogx_version", "")) if isinstance(manifest, Mapping) else ""
    try:
        major = int(version.split(".")[0])
    except ValueError as e:
        raise RowError(f"unrecognised COGX version {version!r}") from e
    if major > READER_MAJOR:
        raise RowError(f"COGX {version} is newer than this reader (0.x)")
    for name in (*RECORD_FILES, TOMBSTONES_FILE):
        file = root / name
        if not file.exists():
            continue
        with file.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                ref = f"{name}:{number}"
                yield from guarded(ref, _line, name, line, ref, options)


def _scope(record: Mapping[str, Any], options: ImportOptions) -> str:
    own = (record.get("metadata") or {}).get("ai_memory") or {}
    if isinstance(own, Mapping) and isinstance(own.get("scope"), str):
        return options.scope(own["scope"])
    scope = record.get("scope") or {}
    for key, kind in (
        ("user_id", "user"),
        ("agent_id", "agent"),
        ("session_id", "session"),
        ("run_id", "run"),
    ):
        if isinstance(scope, Mapping) and scope.get(key):
            return make_scope(kind, scope[key], options)
    return options.scope(options.default_scope)


def _base(record: Mapping[str, Any], options: ImportOptions, suffix: str = "") -> dict[str, Any]:
    system = str(record.get("external_system") or SOURCE)
    external = record.get("external_id")
    if not external:
        raise RowError("record without external_id")
    own = (record.get("metadata") or {}).get("ai_memory") or {}
    memory_id = safe_id(external) if system == OWN_SYSTEM else safe_id(system, external)
    meta = {k: v for k, v in (record.get("metadata") or {}).items() if k != "ai_memory"}
    body: dict[str, Any] = {
        "id": memory_id + suffix,
        "scope": _scope(record, options),
        "source_agent": options.source_agent or str(own.get("source_agent") or system),
        # cognee 1.6 writes facts without created_at; the time a fact became true
        # (valid_at) dates it better than the import would.
        "created_at": iso(record.get("created_at")) or iso(record.get("valid_at"), "valid_at"),
        "tags": list(own.get("tags") or []),
        "meta": dict(own.get("meta") or {}) or {"source": system, "external_id": external, **meta},
    }
    if own.get("ttl"):
        body["ttl"] = own["ttl"]
    return body


def _line(name: str, text: str, ref: str, options: ImportOptions) -> Iterator[Converted]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise RowError(f"not valid JSON: {e.msg} at column {e.colno}") from e
    except RecursionError as e:
        raise RowError("the line nests JSON too deeply") from e
    if not isinstance(record, Mapping):
        raise RowError("a COGX line must be a JSON object")
    if name == TOMBSTONES_FILE:
        deleted_at = iso(record.get("deleted_at"), "deleted_at")
        yield tombstone_line(
            safe_id(record["id"]),
            options.scope(str(record["scope"])),
            deleted_at or "",
            str(record.get("reason") or "cogx"),
        )
        return
    if name == "nodes.jsonl":
        props = record.get("properties", record)
        node_type = str(props.get("type") if isinstance(props, Mapping) else "")
        if node_type == "DocumentChunk":
            yield Unimported(
                ref,
                "duplicate",
                "raw DocumentChunk node; its text is imported from documents.jsonl",
            )
        else:
            yield Unimported(
                ref,
                "system_log",
                f"raw graph node ({node_type or 'untyped'}) kept by cognee for same-system restore",
            )
        return
    own = (record.get("metadata") or {}).get("ai_memory") or {}
    state = own.get("state") if own.get("state") in ("active", "historical", "archived") else None
    kind = record.get("kind")
    if kind == "memory":
        categories = [str(c) for c in record.get("categories") or []]
        guess = "preference" if any("prefer" in c.lower() for c in categories) else "fact"
        yield record_line(
            {
                **_base(record, options),
                "type": own.get("type") or guess,
                "content": _text(record.get("content")),
            },
            state,
        )
    elif kind == "memory_block":
        label = str(record.get("label") or "")
        mem_type = own.get("type") or ("preference" if label == "human" else type_from_label(label))
        yield record_line(
            {**_base(record, options), "type": mem_type, "content": _text(record.get("value"))},
            state,
        )
    elif kind == "document":
        yield record_line(
            {
                **_base(record, options),
                "type": own.get("type") or "fact",
                "content": _text(record.get("content")),
            },
            state,
        )
    elif kind == "entity":
        description = record.get("description")
        if not isinstance(description, str) or not description.strip():
            yield Unimported(
                ref, "system_log", f"entity {record.get('name')!r} without a description"
            )
            return
        yield record_line(
            {
                **_base(record, options),
                "type": "fact",
                "content": f"{record['name']}: {description.strip()}",
            }
        )
    elif kind == "fact":
        text = (
            record.get("fact_text")
            or f"{record['subject_ref']} {record['predicate']} {record['object_ref']}"
        )
        base = _base(record, options)
        base["meta"] = {
            **base["meta"],
            "valid_at": iso(record.get("valid_at"), "valid_at"),
            "invalid_at": iso(record.get("invalid_at"), "invalid_at"),
        }
        historical = "historical" if record.get("invalid_at") else state
        yield record_line({**base, "type": "fact", "content": _text(text)}, historical)
    elif kind == "episode":
        turns = record.get("turns")
        if not isinstance(turns, list) or not turns:
            raise RowError("episode without turns")
        for i, turn in enumerate(turns):
            if not isinstance(turn, Mapping):
                raise RowError(f"turn {i} is not an object")
            suffix = "" if len(turns) == 1 else f"#{i}"
            base = _base(record, options, suffix)
            base["created_at"] = iso(turn.get("occurred_at")) or base["created_at"]
            role = str(turn.get("role") or "")
            prefix = "" if own or role in ("", "episode") else f"{role}: "
            yield record_line(
                {
                    **base,
                    "type": own.get("type") or "interaction",
                    "content": prefix + _text(turn.get("content")),
                },
                state,
            )
    else:
        raise RowError(f"unknown COGX record kind {kind!r}")


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RowError("record without text content")
    return value.strip()
