"""The schema catalog: every event schema version, looked up by name or fingerprint.

The single source of truth is the top-level ``schemas/`` folder of the repository:
``schemas/events/<Name>.v<N>.avsc`` plus ``schemas/catalog.json``, which pins each file's
CRC-64-AVRO fingerprint (of the Parsing Canonical Form). Loading verifies every pin, so a
schema edited in place, without a new version, refuses to load.

Where the folder is found, first match wins:

1. ``AIMEM_SCHEMA_DIR``;
2. ``<repo>/schemas`` relative to this package (a source checkout / editable install);
3. ``<prefix>/share/ai-memory/schemas`` (installed from a wheel, as setuptools data-files).

``python -m ai_memory.serialization.catalog_tool`` checks the folder against the rules.
"""

from __future__ import annotations

import json
import re
import sysconfig
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastavro.schema import fingerprint as avro_fingerprint
from fastavro.schema import parse_schema, to_parsing_canonical_form

from ai_memory.settings import Settings

from .errors import SchemaCatalogError

SCHEMA_DIR_ENV = "AIMEM_SCHEMA_DIR"
CATALOG_FILE = "catalog.json"
NAMESPACE = "ai.memory.events"
SCHEMA_FILE_NAME = re.compile(r"^(?P<name>[A-Z][A-Za-z0-9]*)\.v(?P<version>[1-9][0-9]*)\.avsc$")


def schema_dir() -> Path:
    """The folder holding ``catalog.json`` (see the module docstring for the search order)."""
    path = Settings.one_from_env("schema_dir").schema_dir
    if path is not None:
        if not (path / CATALOG_FILE).is_file():
            raise SchemaCatalogError(f"{SCHEMA_DIR_ENV}={path} has no {CATALOG_FILE}")
        return path
    source_tree = Path(__file__).resolve().parents[3] / "schemas"
    installed = Path(sysconfig.get_path("data")) / "share" / "ai-memory" / "schemas"
    for candidate in (source_tree, installed):
        if (candidate / CATALOG_FILE).is_file():
            return candidate
    raise SchemaCatalogError(
        f"no schema folder found: set {SCHEMA_DIR_ENV} to the folder holding {CATALOG_FILE}"
    )


def compute_fingerprint(schema: Mapping[str, Any]) -> bytes:
    """CRC-64-AVRO of the Parsing Canonical Form, as the 8 bytes of the frame header.

    The bytes are little-endian; ``int.from_bytes(fp, "little", signed=True)`` is the value
    Java's ``SchemaNormalization.parsingFingerprint64`` returns.
    """
    canonical = to_parsing_canonical_form(dict(schema))
    return bytes.fromhex(avro_fingerprint(canonical, "CRC-64-AVRO"))


@dataclass(frozen=True)
class SchemaEntry:
    name: str  # the event type, e.g. "MemoryWritten"
    version: int
    file: str  # relative to the schema folder
    fingerprint: bytes  # 8 bytes, as in the frame header
    schema: Mapping[str, Any]  # the .avsc as written
    parsed: Any  # fastavro's parsed form, ready for reading and writing


class SchemaCatalog:
    """Every schema version of every event type."""

    def __init__(self, entries: list[SchemaEntry]) -> None:
        self._by_fingerprint: dict[bytes, SchemaEntry] = {}
        self._latest: dict[str, SchemaEntry] = {}
        for entry in sorted(entries, key=lambda e: (e.name, e.version)):
            if entry.fingerprint in self._by_fingerprint:
                other = self._by_fingerprint[entry.fingerprint].file
                raise SchemaCatalogError(f"{entry.file} and {other} have the same fingerprint")
            self._by_fingerprint[entry.fingerprint] = entry
            self._latest[entry.name] = entry
        self.entries: tuple[SchemaEntry, ...] = tuple(
            sorted(entries, key=lambda e: (e.name, e.version))
        )

    @classmethod
    def load(cls, directory: Path | None = None) -> SchemaCatalog:
        """Read ``catalog.json`` and every schema it names, verifying each fingerprint."""
        root = directory if directory is not None else schema_dir()
        return cls([_load_entry(root, item) for item in read_catalog_file(root)])

    def by_fingerprint(self, fingerprint: bytes) -> SchemaEntry | None:
        return self._by_fingerprint.get(fingerprint)

    def latest(self, name: str) -> SchemaEntry:
        """The newest version of ``name``: what the encoder writes and the decoder reads into."""
        try:
            return self._latest[name]
        except KeyError:
            raise SchemaCatalogError(f"no schema for event type {name!r}") from None

    def names(self) -> list[str]:
        return sorted(self._latest)

    def versions(self, name: str) -> list[SchemaEntry]:
        return [e for e in self.entries if e.name == name]


def read_catalog_file(root: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads((root / CATALOG_FILE).read_text(encoding="utf-8"))
        items = data["schemas"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SchemaCatalogError(f"cannot read {root / CATALOG_FILE}: {e}") from e
    if not isinstance(items, list):
        raise SchemaCatalogError(f"{root / CATALOG_FILE}: 'schemas' must be a list")
    return items


def _load_entry(root: Path, item: Mapping[str, Any]) -> SchemaEntry:
    try:
        name, version, file = item["name"], item["version"], item["file"]
        pinned = item["fingerprint"]
        schema = json.loads((root / file).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SchemaCatalogError(f"bad catalog entry {item!r}: {e}") from e
    actual = compute_fingerprint(schema)
    if actual.hex() != pinned:
        raise SchemaCatalogError(
            f"{file}: fingerprint {actual.hex()} differs from the catalog's {pinned}; a released "
            "schema must not change: add a new version file instead"
        )
    if schema.get("name") != name or schema.get("version") != version:
        raise SchemaCatalogError(f"{file}: name/version disagree with the catalog entry")
    return SchemaEntry(name, version, file, actual, schema, parse_schema(schema))


# --- rules every schema change must follow --------------------------------------------------


def lint(root: Path) -> list[str]:
    """Problems with the schema folder; an empty list means it follows every rule."""
    problems: list[str] = []
    listed = {item.get("file") for item in read_catalog_file(root)}
    by_name: dict[str, dict[int, Mapping[str, Any]]] = {}
    for path in sorted((root / "events").glob("*.avsc")):
        rel = path.relative_to(root).as_posix()
        match = SCHEMA_FILE_NAME.match(path.name)
        if match is None:
            problems.append(f"{rel}: file name must be <EventName>.v<N>.avsc")
            continue
        schema = json.loads(path.read_text(encoding="utf-8"))
        name, version = match["name"], int(match["version"])
        if rel not in listed:
            problems.append(f"{rel}: not in {CATALOG_FILE}")
        if (schema.get("name"), schema.get("namespace")) != (name, NAMESPACE):
            problems.append(f"{rel}: must be record {NAMESPACE}.{name}")
        if schema.get("version") != version:
            problems.append(f'{rel}: "version" property must be {version}')
        problems.extend(
            f"{rel}: Avro enums are not allowed ({p}); use a string"
            for p in _enum_paths(schema, "")
        )
        by_name.setdefault(name, {})[version] = schema
    for name, versions in by_name.items():
        for version in sorted(versions):
            if version > 1 and version - 1 not in versions:
                problems.append(f"{name}.v{version}: v{version - 1} is missing")
            elif version > 1:
                problems.extend(
                    f"{name}.v{version}: field {p} was added without a default"
                    for p in _added_without_default(versions[version - 1], versions[version], "")
                )
    return problems


def _records(schema: Any) -> Iterator[Mapping[str, Any]]:
    """Records directly reachable from a field type (through unions and arrays)."""
    if isinstance(schema, list):
        for branch in schema:
            yield from _records(branch)
    elif isinstance(schema, dict):
        if schema.get("type") == "record":
            yield schema
        elif schema.get("type") == "array":
            yield from _records(schema.get("items"))
        elif schema.get("type") == "map":
            yield from _records(schema.get("values"))


def _enum_paths(schema: Any, path: str) -> Iterator[str]:
    if isinstance(schema, list):
        for branch in schema:
            yield from _enum_paths(branch, path)
    elif isinstance(schema, dict):
        if schema.get("type") == "enum":
            yield path or "<root>"
        for key in ("items", "values"):
            yield from _enum_paths(schema.get(key), path)
        for f in schema.get("fields", ()):
            yield from _enum_paths(f["type"], f"{path}.{f['name']}".lstrip("."))
        if isinstance(schema.get("type"), dict | list):
            yield from _enum_paths(schema["type"], path)


def _added_without_default(old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> list[str]:
    old_fields = {f["name"]: f for f in old.get("fields", ())}
    found: list[str] = []
    for field in new.get("fields", ()):
        where = f"{path}.{field['name']}".lstrip(".")
        before = old_fields.get(field["name"])
        if before is None:
            if "default" not in field:
                found.append(where)
            continue
        old_records = {r.get("name"): r for r in _records(before["type"])}
        for record in _records(field["type"]):
            if record.get("name") in old_records:
                found.extend(_added_without_default(old_records[record["name"]], record, where))
    return found
