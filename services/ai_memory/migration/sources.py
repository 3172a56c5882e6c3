"""Read rows out of messy dumps: JSON, JSONL/NDJSON (optionally gzipped), CSV/TSV, SQLite.

Every reader yields :class:`SourceRow` items in file order, each with a ``ref`` that
locates it (``memories.jsonl:17``, ``dump.db#memories:42``) so reports can point at the
exact row. A row that cannot be parsed (bad JSON line, a JSON value that is not an object)
is still yielded, with ``data=None`` and an ``error``, so it is counted as rejected rather
than lost. Bundle header/trailer lines are yielded with ``control=True``: they are framing,
not rows.

Format is chosen by suffix (``.json``, ``.jsonl``/``.ndjson``, ``.csv``/``.tsv``,
``.db``/``.sqlite``/``.sqlite3``, ``.gz`` over JSON/JSONL) or, failing that, by sniffing
the first bytes.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

FORMATS = ("json", "jsonl", "csv", "tsv", "sqlite")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_LIST_KEYS = ("memories", "records", "items", "data", "results", "rows", "entries")


@dataclass(frozen=True)
class SourceRow:
    """One row of a source: ``data`` is None when it could not be parsed (see ``error``)."""

    ref: str
    data: dict[str, Any] | None
    error: str | None = None
    control: bool = False


def detect_format(path: Path) -> str:
    """The format of ``path`` by suffix, else by its first bytes."""
    suffixes = [s.lower() for s in path.suffixes]
    last = suffixes[-2] if suffixes and suffixes[-1] == ".gz" and len(suffixes) > 1 else None
    name = last or (suffixes[-1] if suffixes else "")
    by_suffix = {
        ".json": "json",
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".csv": "csv",
        ".tsv": "tsv",
        ".db": "sqlite",
        ".sqlite": "sqlite",
        ".sqlite3": "sqlite",
    }
    if name in by_suffix:
        return by_suffix[name]
    with _open_binary(path) as f:
        head = f.read(4096)
    if head.startswith(_SQLITE_MAGIC):
        return "sqlite"
    text = head.lstrip().decode("utf-8", errors="replace")
    if text.startswith("["):
        return "json"
    if text.startswith("{"):
        first = text.split("\n", 1)[0]
        try:
            json.loads(first)
        except json.JSONDecodeError:
            return "json"
        return "jsonl"
    return "csv"


def read_rows(
    path: Path, *, fmt: str | None = None, table: str | None = None
) -> Iterator[SourceRow]:
    """Yield every row of ``path``; ``table`` picks one SQLite table (default: all)."""
    kind = fmt or detect_format(path)
    if kind == "sqlite":
        yield from _sqlite_rows(path, table)
    elif kind == "jsonl":
        yield from _jsonl_rows(path)
    elif kind == "json":
        yield from _json_rows(path)
    elif kind in ("csv", "tsv"):
        yield from _csv_rows(path, "\t" if kind == "tsv" else None)
    else:
        raise ValueError(f"unknown format {kind!r}; expected one of {', '.join(FORMATS)}")


def _open_binary(path: Path) -> IO[bytes]:
    if path.suffix.lower() == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _open_text(path: Path) -> IO[str]:
    return io.TextIOWrapper(_open_binary(path), encoding="utf-8", errors="replace", newline="")


def _object_row(ref: str, value: Any) -> SourceRow:
    if isinstance(value, dict):
        control = value.get("kind") in ("header", "trailer")
        return SourceRow(ref, value, control=control)
    return SourceRow(ref, None, f"expected a JSON object, got {type(value).__name__}")


def _jsonl_rows(path: Path) -> Iterator[SourceRow]:
    with _open_text(path) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            ref = f"{path.name}:{number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as e:
                yield SourceRow(ref, None, f"not valid JSON: {e.msg} at column {e.colno}")
                continue
            yield _object_row(ref, value)


def _json_rows(path: Path) -> Iterator[SourceRow]:
    with _open_text(path) as f:
        try:
            value = json.load(f)
        except json.JSONDecodeError as e:
            yield SourceRow(path.name, None, f"not valid JSON: {e.msg} at line {e.lineno}")
            return
    if isinstance(value, dict):
        lists = [k for k in _LIST_KEYS if isinstance(value.get(k), list)]
        value = value[lists[0]] if lists else [value]
    if not isinstance(value, list):
        yield SourceRow(path.name, None, "expected a JSON array of objects")
        return
    for index, item in enumerate(value):
        yield _object_row(f"{path.name}[{index}]", item)


def _csv_rows(path: Path, delimiter: str | None) -> Iterator[SourceRow]:
    csv.field_size_limit(1 << 24)
    with _open_text(path) as f:
        sample = f.read(8192)
        f.seek(0)
        if delimiter is None:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        reader = csv.reader(f, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return
        columns = [h.strip() for h in header]
        for row in reader:
            ref = f"{path.name}:{reader.line_num}"
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(columns):
                yield SourceRow(ref, None, f"expected {len(columns)} columns, got {len(row)}")
                continue
            yield SourceRow(ref, dict(zip(columns, row, strict=True)))


def sqlite_tables(path: Path) -> list[str]:
    """User tables of a SQLite file, in name order."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        names = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        ).fetchall()
    return [str(n[0]) for n in names]


def _sqlite_rows(path: Path, table: str | None) -> Iterator[SourceRow]:
    tables = [table] if table else sqlite_tables(path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for name in tables:
            quoted = '"' + name.replace('"', '""') + '"'
            cursor = conn.execute(f"SELECT rowid AS __rowid__, * FROM {quoted}")
            columns = [d[0] for d in cursor.description]
            for values in cursor:
                data = dict(zip(columns, values, strict=True))
                rowid = data.pop("__rowid__")
                yield SourceRow(f"{path.name}#{name}:{rowid}", data)
    finally:
        conn.close()
