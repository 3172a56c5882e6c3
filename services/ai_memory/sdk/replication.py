"""Replication of one scope between two instances, built on the change feed and import
(``ai-memory sync``; the rule is ``core.convergence``, the design ``docs/design/SYNC.md``).

A pass reads the source's change feed after a cursor and settles every memory it names
on **both** instances:

* a tombstone on either side (a ``forgotten`` entry, or 410 on a read) is imported into
  the side that lacks it — a forget wins over any version, and import never writes an id
  again once it has a tombstone;
* otherwise the version with the newer stamp is imported into the other side (a record
  line carrying its stamp in ``meta._sync``); equal stamps are the same version.

Settling both sides, not only the target, is what makes two instances converge whatever
order their passes run in: a version that loses on the target is replaced on the source
by the winner at once, instead of waiting for a change on the target's feed that may
never come.

Both instances are ``MemoryClient``s (over HTTP or in process). The cursor of the last
entry settled is handed to ``save`` after every batch, so a pass that stops anywhere
resumes there (re-settling a memory is idempotent: equal stamps write nothing).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ai_memory.core.convergence import replicated_line, stamp_of

from .client import MemoryClient
from .errors import GoneError, NotFoundError
from .models import ChangeOut

BATCH = 100
_GONE = "gone"


@dataclass
class SyncReport:
    entries: int = 0  # feed entries read
    to_target: int = 0  # record lines sent to the target
    to_source: int = 0  # record lines sent back to the source (the target's version won)
    tombstones: int = 0  # tombstone lines sent (either way)
    cursor: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "to_target": self.to_target,
            "to_source": self.to_source,
            "tombstones": self.tombstones,
            "cursor": self.cursor,
        }


class Replicator:
    def __init__(
        self,
        source: MemoryClient,
        target: MemoryClient,
        scope: str,
        *,
        source_name: str,
        target_name: str,
        batch: int = BATCH,
    ) -> None:
        self.source, self.target, self.scope = source, target, scope
        self.names = (source_name, target_name)  # the origins recorded in stamps
        self.batch = batch

    def run(
        self,
        cursor: str | None,
        *,
        follow: bool = False,
        save: Callable[[str], None] | None = None,
        poll_timeout: float = 20.0,
        progress: SyncReport | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> SyncReport:
        """Settle everything after ``cursor``; with ``follow``, keep going as changes come
        until interrupted or ``stop()`` says so (checked after each batch settled).
        ``progress``: the report to count into (still readable after an interruption)."""
        report = progress or SyncReport()
        report.cursor = cursor
        while stop is None or not stop():
            # "now" is resolved by the server at each request: only one request may see it.
            entries = (
                []
                if report.cursor == "now"
                else list(
                    itertools.islice(
                        self.source.changes(self.scope, since=report.cursor, follow=False),
                        self.batch,
                    )
                )
            )
            if not entries:
                if not follow:
                    return report
                waiting = self.source.changes(
                    self.scope, since=report.cursor, poll_timeout=poll_timeout
                )
                entries = [next(waiting)]  # long-polls until the source changes
            self.settle(entries, report)
            report.cursor = entries[-1].cursor
            if save is not None:
                save(report.cursor)
        return report

    def settle(self, entries: Sequence[ChangeOut], report: SyncReport) -> None:
        """Make both instances agree on every memory ``entries`` name."""
        report.entries += len(entries)
        scopes = {e.id: e.scope for e in entries}
        # The feed reads the log; a read reads the projections, which may lag behind it.
        positions = {e.id: e.position for e in entries}
        forgotten = {e.id for e in entries if e.kind == "forgotten"}
        to_target: list[dict[str, Any]] = []
        to_source: list[dict[str, Any]] = []
        for memory_id, scope in scopes.items():
            mine = (
                _GONE
                if memory_id in forgotten
                else _read(self.source, memory_id, positions[memory_id])
            )
            theirs = _read(self.target, memory_id)
            if mine == _GONE or theirs == _GONE:
                tombstone = {"kind": "tombstone", "id": memory_id, "scope": scope, "reason": "sync"}
                if theirs != _GONE:
                    to_target.append(tombstone)
                if mine != _GONE:
                    to_source.append(tombstone)
                report.tombstones += (theirs != _GONE) + (mine != _GONE)
            elif isinstance(mine, dict) and (
                theirs is None or (isinstance(theirs, dict) and stamp_of(mine) > stamp_of(theirs))
            ):
                to_target.append(replicated_line(mine, self.names[0]))
                report.to_target += 1
            elif (
                isinstance(mine, dict)
                and isinstance(theirs, dict)
                and stamp_of(theirs) > stamp_of(mine)
            ):
                to_source.append(replicated_line(theirs, self.names[1]))
                report.to_source += 1
        # Tombstones first on each side within one import: a line order the import keeps.
        for client, lines in ((self.target, to_target), (self.source, to_source)):
            if lines:
                client.import_bundle(_ordered(lines), wait=True, source_name="sync")


def _read(client: MemoryClient, memory_id: str, position: int = 0) -> dict[str, Any] | str | None:
    """The record as JSON (as of ``position`` at least), ``_GONE`` when forgotten, None
    when never there."""
    try:
        return client.get(memory_id, min_position=position).model_dump(mode="json")
    except GoneError:
        return _GONE
    except NotFoundError:
        return None


def _ordered(lines: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield from (line for line in lines if line["kind"] == "tombstone")
    yield from (line for line in lines if line["kind"] != "tombstone")
