"""Export and import of NDJSON bundles (``ai_memory.core.bundle``) over the service.

Export streams records then tombstones of a tenant (optionally some scopes) with a
header and a checksummed trailer. Import is a session fed in batches of lines so a large
upload streams through without being held in memory; every line is accounted for
(written / unchanged / stale / skipped because tombstoned / rejected with a reason), one
bad line never aborts the rest, re-importing the same bundle writes nothing, a line older
than the live local memory never overwrites it (``stale``), and an id that was ever
forgotten is never resurrected.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ai_memory import __version__
from ai_memory.core.access import Action
from ai_memory.core.bundle import (
    BundleLine,
    header_line,
    parse_line,
    record_line,
    tombstone_line,
    trailer_line,
    unknown_line_keys,
)
from ai_memory.core.decide import decide_delete, decide_write, with_created_at_from
from ai_memory.core.errors import Conflict, Forbidden, Gone, InvalidInput
from ai_memory.core.events import (
    DomainEvent,
    EventHeader,
    Head,
    MemoriesImported,
    MemoryStateChanged,
)
from ai_memory.core.ports import Clock, RecordStore
from ai_memory.core.record import (
    MemoryState,
    StoredRecord,
    parse_record,
    validate_id,
    validate_scope,
)
from ai_memory.core.timeparse import parse_timestamp

from . import access
from .access import Who
from .unit_of_work import UnitOfWork
from .writing import Writing

BATCH_LINES = 500
MAX_REPORTED_ERRORS = 1000
_ID_NAMESPACE = uuid.UUID("6f1c1a8e-4f55-4b43-9a43-6d656d6f7279")
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OversizedLine:
    """A line longer than the upload allows; its bytes were dropped unread."""

    limit: int


Line = str | bytes | OversizedLine


def export_lines(
    store: RecordStore, clock: Clock, tenant: str, scopes: Sequence[str] | None
) -> Iterator[str]:
    """Yield the bundle line by line (no trailing newlines)."""
    digest = hashlib.sha256()

    def emit(line: str) -> str:
        digest.update(line.encode("utf-8") + b"\n")
        return line

    filters: dict[str, Any] = {"scopes": list(scopes) if scopes else None, "tenant": tenant}
    yield emit(
        header_line(producer=f"ai-memory/{__version__}", exported_at=clock.now(), filters=filters)
    )
    records = tombstones = 0
    for stored in store.scan_records(tenant, scopes=scopes):
        records += 1
        yield emit(record_line(stored))
    for tombstone in store.scan_tombstones(tenant, scopes=scopes):
        tombstones += 1
        yield emit(tombstone_line(tombstone))
    yield trailer_line(records=records, tombstones=tombstones, sha256=digest.hexdigest())


#: (action, scope) → None, or ``Forbidden``: the caller's right to apply one line.
Permit = Callable[[Action, str], None]


@dataclass
class ImportReport:
    received: int = 0
    written: int = 0
    unchanged: int = 0
    skipped_tombstoned: int = 0
    tombstones_applied: int = 0
    stale: int = 0  # older than the local memory: never written (see ``_stale``)
    rejected: int = 0
    redacted: int = 0  # lines written with their credentials redacted (secret policy)
    states_applied: int = 0  # same content, a newer state: the state moved (see _apply)
    errors: list[dict[str, Any]] = field(default_factory=list)
    position: int = 0
    batch_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "received": self.received,
            "written": self.written,
            "unchanged": self.unchanged,
            "skipped_tombstoned": self.skipped_tombstoned,
            "stale": self.stale,
            "tombstones_applied": self.tombstones_applied,
            "rejected": self.rejected,
            "redacted": self.redacted,
            "states_applied": self.states_applied,
            # Lines are rejected in two passes (parsing, then the batch's decisions): the
            # report lists them in line order all the same.
            "errors": sorted(self.errors, key=lambda entry: int(entry["line"])),
            "errors_truncated": self.rejected > len(self.errors),
            "position": self.position,
        }


class ImportSession:
    """Feed ``(line_number, text)`` batches, then ``finish()``.

    Raises InvalidInput from ``feed`` only for a header of an unknown format, which can
    only be the first line — so nothing has been written when the whole request fails.
    """

    def __init__(
        self,
        deps: Writing,
        tenant: str,
        *,
        actor: str = "import",
        source: str = "ndjson",
        permit: Permit | None = None,
    ) -> None:
        self.units, self.store, self.secrets = deps.units, deps.store, deps.secrets
        self.limits, self.clock = deps.limits, deps.clock
        # The caller's right to write (or forget, for a tombstone) in a line's scope; a
        # line it refuses is rejected on its own (403 code in the report), like a bad one.
        self._permit = permit
        self.tenant = tenant
        self.actor = actor
        self.source = source
        self.format_version = 1
        self.report = ImportReport(batch_id=str(uuid.uuid4()))
        self._seen_content = False
        # The newest position of every partition the import appended to: ``wait`` must
        # reach each (on Kafka the report's highest position covers one partition only).
        self._newest: list[int] = []

    def feed(self, lines: Sequence[tuple[int, Line]]) -> None:
        parsed: list[tuple[int, BundleLine]] = []
        for number, text in lines:
            if isinstance(text, OversizedLine):
                self.report.received += 1
                self._reject(
                    number,
                    InvalidInput(
                        "line",
                        "max_bytes",
                        f"the line is longer than {text.limit} bytes",
                        code="line_too_long",
                    ),
                )
                continue
            if isinstance(text, bytes):
                self.report.received += 1
                self._reject(
                    number,
                    InvalidInput("line", "utf8", "the line is not UTF-8 text", code="invalid_utf8"),
                )
                continue
            if not text.strip():
                continue
            try:
                line = parse_line(text)
            except InvalidInput as e:
                if e.code == "unsupported_format" and not self._seen_content:
                    raise
                self.report.received += 1
                self._reject(number, e)
                continue
            except Exception as e:  # whatever a hostile line does, it is only that line
                self.report.received += 1
                self._reject(number, _unexpected(number, e))
                continue
            if line.kind == "header":
                if self._seen_content:
                    self.report.received += 1
                    self._reject(
                        number,
                        InvalidInput("kind", "header_first", "a header may only be the first line"),
                    )
                else:
                    self.format_version = int(line.body["format_version"])
                continue
            self._seen_content = True
            if line.kind == "trailer":
                continue
            self.report.received += 1
            try:
                unknown = unknown_line_keys(line, self.format_version)
            except Exception as e:
                self._reject(number, _unexpected(number, e))
                continue
            if unknown:
                self._reject(
                    number,
                    InvalidInput(
                        unknown[0], "unknown_field", f"unknown field(s): {', '.join(unknown)}"
                    ),
                )
                continue
            parsed.append((number, line))
        for start in range(0, len(parsed), BATCH_LINES):
            self._apply(parsed[start : start + BATCH_LINES])

    def newest_positions(self) -> list[int]:
        """What a read-your-writes wait for this import must reach: the newest position
        of every partition it appended to."""
        return self.units.newest([*self._newest, self.report.position])

    def finish(self, *, wait: bool = False) -> ImportReport:
        r = self.report
        with self.units.begin(self.tenant, self.actor) as uow:
            (position,) = uow.append([self._imported(uow.header())])
        r.position = max(r.position, position)
        self._newest = self.units.newest([*self._newest, position])
        if wait:
            for newest in self._newest:
                self.units.wait_for(newest)
        return r

    def _imported(self, header: EventHeader) -> MemoriesImported:
        """The batch's provenance and counts, as one event."""
        r = self.report
        return MemoriesImported(
            header=header,
            batch_id=r.batch_id,
            source=self.source,
            received=r.received,
            written=r.written,
            unchanged=r.unchanged,
            skipped_tombstoned=r.skipped_tombstoned,
            rejected=r.rejected,
        )

    # --- internals ---------------------------------------------------------------------
    def _apply(self, batch: Sequence[tuple[int, BundleLine]]) -> None:
        limits, now = self.limits, self.clock.now()
        candidates: list[tuple[int, BundleLine, str]] = []
        for number, line in batch:
            try:
                candidates.append((number, line, _line_id(line, limits)))
            except InvalidInput as e:
                self._reject(number, e)
            except Exception as e:
                self._reject(number, _unexpected(number, e))
        events: list[DomainEvent] = []
        decided: list[tuple[int, str]] = []  # (line, counter) of each event, for _append
        with self.units.begin(self.tenant, self.actor) as uow:
            # Decisions later in the batch see the heads decided earlier in it.
            heads: dict[str, Head] = uow.heads([c[2] for c in candidates])
            stored = self._local(candidates, heads)
            local = {memory_id: found.updated_at for memory_id, found in stored.items()}
            for number, line, memory_id in candidates:
                head = heads.get(memory_id)
                try:
                    if line.kind == "tombstone":
                        if self._permit is not None:  # the memory's own scope, if known
                            line_scope = validate_scope(line.body["scope"], limits)
                            self._permit("forget", head.scope if head else line_scope)
                        event = decide_delete(
                            memory_id,
                            validate_scope(line.body["scope"], limits),
                            head,
                            # One header per line, made where its actor is known: a fresh
                            # event id and a clock read are a measurable share of a line.
                            _tombstone_header(uow.header(), line, head),
                            reason=self.secrets.text(
                                self.tenant, "reason", _tombstone_reason(line)
                            )[0],
                        )
                        if event is None:
                            self.report.unchanged += 1
                            continue
                        self.report.tombstones_applied += 1
                        heads[memory_id] = Head(
                            memory_id, event.scope, event.version, "", True, 0, None
                        )
                        events.append(event)
                        decided.append((number, "tombstones_applied"))
                        continue
                    raw = line.body["record"]
                    record = parse_record({**raw, "id": memory_id}, now=now, limits=limits)
                    if self._permit is not None:
                        self._permit("write", record.scope)
                        if head is not None and head.scope != record.scope:
                            # Judged where the stored memory lives before the line is
                            # told it was forgotten or lives elsewhere.
                            self._permit("write", head.scope)
                    # The tenant's secret policy: a refused line is rejected with
                    # ``secret_detected`` below, like any invalid one.
                    screened = self.secrets.screen(self.tenant, record, limits)
                    record = screened.record
                    record = with_created_at_from(
                        record, head, explicit=raw.get("created_at") is not None
                    )
                    outcome = decide_write(
                        record,
                        head,
                        uow.header(record.source_agent),
                        cause="import",
                        import_batch_id=self.report.batch_id,
                        state=_line_state(line),
                    )
                except Gone:
                    self.report.skipped_tombstoned += 1
                    continue
                except (InvalidInput, Conflict, Forbidden) as e:
                    self._reject(number, e)
                    continue
                except Exception as e:  # e.g. a value no encoder accepts: this line only
                    self._reject(number, _unexpected(number, e))
                    continue
                if outcome.event is None:
                    moved = _state_moved(line, stored.get(memory_id))
                    if moved is not None and _stale(line, head, local.get(memory_id)):
                        self.report.stale += 1  # an older state never regresses either
                        continue
                    if moved is not None:
                        # Same content, another state (an archived line over an active
                        # memory): the state travels, as governance would move it.
                        current, wanted = moved
                        events.append(
                            MemoryStateChanged(
                                uow.header(record.source_agent),
                                memory_id,
                                record.scope,
                                current,
                                wanted,
                                "import.state",
                            )
                        )
                        stored[memory_id] = replace(stored[memory_id], state=wanted)
                        self.report.states_applied += 1
                        decided.append((number, "states_applied"))
                        continue
                    self.report.unchanged += 1
                    continue
                if _stale(line, heads.get(memory_id), local.get(memory_id)):
                    self.report.stale += 1
                    continue
                self.report.written += 1
                self.report.redacted += bool(screened.redacted)
                events.append(outcome.event)
                decided.append((number, "written"))
                heads[memory_id] = Head(
                    memory_id,
                    record.scope,
                    outcome.version,
                    outcome.event.content_sha256,
                    False,
                    0,
                    record.created_at,
                )
            if events:
                self._append(uow, events, decided)

    def _local(
        self, candidates: Sequence[tuple[int, BundleLine, str]], heads: Mapping[str, Head]
    ) -> dict[str, StoredRecord]:
        """The live local memories that dated record lines would overwrite (when they last
        changed) or that lines naming a state would move (their state); read only for
        such lines: the others need no lookup."""
        ids = [
            memory_id
            for _, line, memory_id in candidates
            if line.kind == "record"
            and (line.body.get("updated_at") is not None or "state" in line.body)
            and memory_id in heads
            and not heads[memory_id].deleted
        ]
        if not ids:
            return {}
        return dict(self.store.get_many(self.tenant, ids))

    def _append(
        self, uow: UnitOfWork, events: Sequence[DomainEvent], decided: Sequence[tuple[int, str]]
    ) -> None:
        """Append the batch at once; if the log refuses it, line by line, so one event the
        log cannot take is reported on its line and the others still land."""
        try:
            positions = uow.append(list(events))
        except Exception:
            logger.warning("import batch append failed; retrying line by line", exc_info=True)
            positions = []
            for event, (number, counter) in zip(events, decided, strict=True):
                try:
                    positions += uow.append([event])
                except Forbidden as e:  # over the tenant's quota (quotas.py): this line
                    setattr(self.report, counter, getattr(self.report, counter) - 1)
                    self._reject(number, e)
                except Exception as e:
                    setattr(self.report, counter, getattr(self.report, counter) - 1)
                    self._reject(number, _unexpected(number, e))
        if positions:
            self.report.position = max(self.report.position, max(positions))
            self._newest = self.units.newest([*self._newest, *positions])

    def _reject(self, number: int, error: InvalidInput | Conflict | Forbidden) -> None:
        self.report.rejected += 1
        if len(self.report.errors) < MAX_REPORTED_ERRORS:
            entry: dict[str, Any] = {
                "line": number,
                "code": error.code,
                "message": _printable(error.message),
            }
            if isinstance(error, InvalidInput):
                entry["field"] = _printable(error.field)
            self.report.errors.append(entry)


def _unexpected(number: int, error: Exception) -> InvalidInput:
    """A line that failed in a way no rule names: rejected on its own, logged for us."""
    logger.warning("import line %d failed unexpectedly", number, exc_info=error)
    return InvalidInput(
        "line",
        "unprocessable",
        f"the line could not be processed ({type(error).__name__})",
        code="unprocessable_line",
    )


def _printable(text: str) -> str:
    """Report text that always encodes: a lone surrogate quoted from the line is escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _line_id(line: BundleLine, limits: Any) -> str:
    if line.kind == "tombstone":
        return validate_id(line.body["id"], limits)
    raw = line.body["record"]
    if raw.get("id") is not None:
        return validate_id(raw["id"], limits)
    return derived_id(raw)


def derived_id(raw: Mapping[str, Any]) -> str:
    """The id of a record line that has none: derived from what the memory says, so
    importing the same file twice still recognises it (and a migration can verify it)."""
    basis = f"{raw.get('scope')}\n{raw.get('type')}\n{raw.get('content')}"
    return str(uuid.uuid5(_ID_NAMESPACE, basis))


def _tombstone_header(header: EventHeader, line: BundleLine, head: Head | None) -> EventHeader:
    """A tombstone of an id this log never held keeps the source's deletion time (a
    migrated Mem0 DELETE, a bundle from another instance); forgetting a memory held here
    happens now. A missing, unreadable or future ``deleted_at`` also means now."""
    stamp = line.body.get("deleted_at")
    if head is not None or stamp is None:
        return header
    try:
        deleted_at = parse_timestamp(stamp, field="deleted_at")
    except InvalidInput:
        return header
    return header if deleted_at > header.occurred_at else replace(header, occurred_at=deleted_at)


def _tombstone_reason(line: BundleLine) -> str:
    """The source's reason, marked as imported (``imported:mem0_delete``)."""
    reason = line.body.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        return "imported_tombstone"
    return f"imported:{_printable(reason.strip())[:100]}"


def _stale(line: BundleLine, head: Head | None, local_updated_at: datetime | None) -> bool:
    """Import never regresses: a record line older than the live local memory is not
    written. A dated line is older when its ``updated_at`` is before the local one *and*
    its ``version`` (if any) is not above the local head's: a local memory written by an
    earlier import is stamped with that import's time, so a newer change from the same
    source (a higher version there) must still land even when it happened before that
    import. An undated line with a ``version`` is older when that version is below the
    local head's. A line that says neither (a hand-written or migrated row) is judged by
    content alone, as before."""
    if head is None or head.deleted:
        return False
    stamp, raw_version = line.body.get("updated_at"), line.body.get("version")
    version = raw_version if type(raw_version) is int else None  # bool is not a version
    if stamp is not None and local_updated_at is not None:
        try:
            older = parse_timestamp(stamp, field="updated_at") < local_updated_at
        except InvalidInput:
            return False  # an unreadable stamp orders nothing; the record is validated anyway
        return older and (version is None or version <= head.version)
    return stamp is None and version is not None and version < head.version


def _state_moved(
    line: BundleLine, local: StoredRecord | None
) -> tuple[MemoryState, MemoryState] | None:
    """(local state, the line's state) when a line that names a state disagrees with the
    live local memory; None when it names none or they agree."""
    if local is None or "state" not in line.body:
        return None
    wanted = _line_state(line)
    return None if wanted is local.state else (local.state, wanted)


def _line_state(line: BundleLine) -> MemoryState:
    value = line.body.get("state", MemoryState.ACTIVE.value)
    try:
        return MemoryState(value)
    except ValueError as e:
        raise InvalidInput(
            "state", "enum", f"state must be one of {', '.join(s.value for s in MemoryState)}"
        ) from e


class TransferService:
    """Export and import as the entry points see them."""

    def __init__(self, deps: Writing) -> None:
        self.deps = deps

    def export(self, who: Who, scopes: Sequence[str] | None) -> Iterator[str]:
        """The bundle's lines (no trailing newlines), streamed from the records view: of
        ``scopes`` (every scope when None), narrowed to what ``who`` may read."""
        caller = access.caller_of(who)
        return export_lines(
            self.deps.store, self.deps.clock, caller.tenant, access.readable(caller, scopes)
        )

    def begin_import(
        self, who: Who, *, actor: str = "import", source: str = "ndjson"
    ) -> ImportSession:
        """A session to ``feed`` numbered lines in batches, then ``finish``. A caller that
        may never write is refused at once; each line is judged against its scopes (a
        record as a write, a tombstone as a forget in the memory's own scope), and a
        refused line is rejected in the report while the others land."""
        caller = access.caller_of(who)
        access.require_role(caller, "write")
        # The source names the batch on the log for good (``MemoriesImported.source``): a
        # label, so a credential in it is refused like one in any other name.
        self.deps.secrets.identifier(caller.tenant, "source", source)

        def permit(action: Action, scope: str) -> None:
            access.require(caller, action, scope)

        return ImportSession(self.deps, caller.tenant, actor=actor, source=source, permit=permit)
