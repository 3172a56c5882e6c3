"""Migration into ai-memory: the one output contract every importer shares.

An importer (the generic one in ``generic.py`` or a tool-specific one under
``importers/``) is an iterator of :data:`Converted` items, one or more per source row:

* a **bundle line dict** — exactly what a line of an ``ai-memory.bundle`` v1 file holds
  (``schemas/bundle/README.md``), e.g.
  ``{"kind": "record", "record": {portable fields}, "state": "active"}`` (``state`` is
  optional; an optional ``"source_ref"`` is stripped before the line is written and kept
  in :attr:`SourceReport.line_refs` so server-side rejections name the source row) or
  ``{"kind": "tombstone", "id": ..., "scope": ..., "deleted_at": ..., "reason": ...}``.
  ``record`` holds only protocol fields (id?, type, content, scope, source_agent,
  created_at, ttl?, tags?, meta?); never vectors.
* an :class:`Unimported` — a row deliberately not converted, with a category from
  :data:`CATEGORIES` and a human-readable reason.

:class:`SourceReport` counts every item so the final report accounts for every input row.
:func:`to_bundle_lines` turns the line dicts into numbered NDJSON text for
``ai_memory.service.transfer.ImportSession``; server-side outcomes (written / unchanged /
rejected by validation) come from that session's ``ImportReport``.

Minimal importer::

    def convert(rows: Iterable[dict[str, Any]]) -> Iterator[Converted]:
        for i, row in enumerate(rows):
            if "embedding" in row and not row.get("text"):
                yield Unimported(f"row:{i}", "vector_ignored", "vector without text")
                continue
            yield record_line({"type": "fact", "content": row["text"], ...})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from ai_memory.core.bundle import dumps

if TYPE_CHECKING:
    from ai_memory.service.transfer import ImportReport, ImportSession

__all__ = [
    "CATEGORIES",
    "Category",
    "Converted",
    "SourceReport",
    "Unimported",
    "import_items",
    "record_line",
    "to_bundle_lines",
    "tombstone_line",
]

Category = Literal["system_log", "rejected", "vector_ignored", "duplicate"]
CATEGORIES: Final[tuple[Category, ...]] = (
    "system_log",
    "rejected",
    "vector_ignored",
    "duplicate",
)
MAX_EXAMPLES: Final = 20


@dataclass(frozen=True)
class Unimported:
    """A source row that is deliberately not imported.

    ``source_ref`` locates the row in the source (``"file.csv:17"``, ``"table:memories:42"``);
    ``category`` is one of :data:`CATEGORIES`; ``reason`` says why, for a person.
    """

    source_ref: str
    category: Category
    reason: str


# A bundle line dict ({"kind": "record" | "tombstone", ...}) or an Unimported row.
Converted = dict[str, Any] | Unimported


def record_line(record: Mapping[str, Any], state: str | None = None) -> dict[str, Any]:
    """Build a ``record`` bundle line dict from portable record fields."""
    line: dict[str, Any] = {"kind": "record", "record": dict(record)}
    if state is not None:
        line["state"] = state
    return line


def tombstone_line(memory_id: str, scope: str, deleted_at: str, reason: str) -> dict[str, Any]:
    """Build a ``tombstone`` bundle line dict (``deleted_at`` is UTC ISO-8601)."""
    return {
        "kind": "tombstone",
        "id": memory_id,
        "scope": scope,
        "deleted_at": deleted_at,
        "reason": reason,
    }


@dataclass
class SourceReport:
    """Per-category accounting of what an importer produced.

    ``converted`` counts bundle lines by kind (``record`` / ``tombstone``); ``unimported``
    counts :class:`Unimported` items by category and keeps a few examples of each.
    ``total`` is every item seen, so ``total == sum(converted) + sum(unimported)``.
    ``notes`` are informational counts that do not change row accounting (e.g.
    ``vector_column_dropped`` for an imported row whose embedding column was left out).
    """

    source: str = ""
    converted: Counter[str] = field(default_factory=Counter)
    unimported: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    notes: Counter[str] = field(default_factory=Counter)
    line_refs: dict[int, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Every item accounted for."""
        return sum(self.converted.values()) + sum(self.unimported.values())

    def add(self, item: Converted) -> None:
        """Count one item."""
        if isinstance(item, Unimported):
            self.unimported[item.category] += 1
            bucket = self.examples.setdefault(item.category, [])
            if len(bucket) < MAX_EXAMPLES:
                bucket.append({"source_ref": item.source_ref, "reason": item.reason})
        else:
            self.converted[str(item.get("kind", "record"))] += 1

    def track(self, items: Iterable[Converted]) -> Iterator[dict[str, Any]]:
        """Count every item and pass the bundle line dicts through."""
        for item in items:
            self.add(item)
            if not isinstance(item, Unimported):
                yield item

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "source": self.source,
            "total": self.total,
            "converted": dict(self.converted),
            "unimported": {c: self.unimported.get(c, 0) for c in CATEGORIES},
            "examples": self.examples,
            "notes": dict(self.notes),
        }


def to_bundle_lines(
    items: Iterable[Converted], report: SourceReport | None = None, *, start: int = 1
) -> Iterator[tuple[int, str]]:
    """Numbered NDJSON lines for ``ImportSession.feed``; Unimported items are counted only."""
    sink = report if report is not None else SourceReport()
    for number, line in enumerate(sink.track(items), start=start):
        ref = line.get("source_ref")
        if ref is not None:
            line = {k: v for k, v in line.items() if k != "source_ref"}
            sink.line_refs[number] = str(ref)
        yield number, dumps(line)


def import_items(
    session: ImportSession,
    items: Iterable[Converted],
    report: SourceReport,
    *,
    batch: int = 500,
    wait: bool = True,
) -> ImportReport:
    """Feed converted items through an ``ImportSession`` in batches and finish it."""
    pending: list[tuple[int, str]] = []
    for numbered in to_bundle_lines(items, report):
        pending.append(numbered)
        if len(pending) >= batch:
            session.feed(pending)
            pending = []
    if pending:
        session.feed(pending)
    return session.finish(wait=wait)
