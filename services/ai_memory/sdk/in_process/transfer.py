"""The in-process change feed and export/import, as ``GET /v1/changes``, ``GET
/v1/export`` and ``POST /v1/import`` serve them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from ai_memory.core import errors as core
from ai_memory.core.record import validate_scope

from .. import _wire as w
from .. import errors as sdk
from ..models import ChangeOut, ImportOut
from .base import InProcessBase
from .errors import as_sdk_error, typed_errors

__all__ = ["TransferMethods"]

_BATCH = 500  # import lines handed to the session at a time (the HTTP route's batch)


class TransferMethods(InProcessBase):
    # --- change feed --------------------------------------------------------------------
    def changes(
        self,
        scope: str | Sequence[str] | None = None,
        *,
        since: str | None = None,
        follow: bool = True,
        limit: int = 100,
        poll_timeout: float = 20.0,
    ) -> Iterator[ChangeOut]:
        """The change feed of this client's tenant, as ``GET /v1/changes`` serves it."""
        feed = self.container.services.changes
        if feed is None:
            raise sdk.NotFoundError("no change feed here", code="changes_unavailable")
        wanted = w.export_params(scope).get("scope")
        scopes = None
        if isinstance(wanted, list):
            scopes = [validate_scope(s, self._memory.limits) for s in wanted]
        cursor = feed.start() if since == "now" else since
        while True:
            try:
                page = feed.page(self.tenant, scopes, since=cursor, limit=limit)
            except core.AiMemoryError as e:  # a generator: the decorator cannot reach here
                raise as_sdk_error(e) from e
            for change in page.changes:
                yield ChangeOut.model_validate(change.to_json())
            cursor = page.next
            if page.more or (page.changes and follow):
                continue
            if not follow:
                return
            feed.wait_blocking(cursor, poll_timeout)

    # --- export / import ----------------------------------------------------------------
    def export_lines(self, scope: str | Sequence[str] | None = None) -> Iterator[str]:
        """The NDJSON bundle line by line, as ``GET /v1/export`` streams it."""
        from ai_memory.service.transfer import export_lines

        wanted = w.export_params(scope).get("scope")
        try:
            scopes = (
                [validate_scope(s, self._memory.limits) for s in wanted]
                if isinstance(wanted, list)
                else None
            )
        except core.AiMemoryError as e:
            raise as_sdk_error(e) from e
        yield from export_lines(self._memory, self.tenant, scopes)

    def export_to(self, path: str | Path, scope: str | Sequence[str] | None = None) -> int:
        count = 0
        with Path(path).open("w", encoding="utf-8") as f:
            for line in self.export_lines(scope):
                f.write(line + "\n")
                count += 1
        return count

    @typed_errors
    def import_bundle(
        self, source: w.ImportSource, *, wait: bool = False, source_name: str | None = None
    ) -> ImportOut:
        """Feed the bundle to an import session in batches, as ``POST /v1/import`` does."""
        from ai_memory.service.transfer import ImportSession

        session = ImportSession(
            self._memory,
            self.tenant,
            actor=self.actor or "import",
            source=source_name or "ndjson",
        )
        batch: list[tuple[int, str | bytes]] = []
        for number, line in enumerate(_lines(source), start=1):
            if line.strip():
                batch.append((number, line))
            if len(batch) >= _BATCH:
                session.feed(batch)
                batch = []
        if batch:
            session.feed(batch)
        return ImportOut.model_validate(session.finish(wait=wait).to_json())


def _lines(source: w.ImportSource) -> Iterator[str | bytes]:
    """The bundle's lines from what ``import_bundle`` accepts: text, or the raw bytes of a
    line that is not UTF-8 (the import session rejects those, naming the line)."""
    for line in _raw_lines(source):
        if isinstance(line, bytes):
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError:
                yield line
        else:
            yield line


def _raw_lines(source: w.ImportSource) -> Iterator[str | bytes]:
    if isinstance(source, str):
        raise TypeError("pass Path(...) to import a file, or an iterable of lines")
    if isinstance(source, bytes):
        yield from source.splitlines()
        return
    if isinstance(source, os.PathLike):
        with Path(source).open("rb") as f:
            for raw in f:
                yield raw.rstrip(b"\r\n")
        return
    for line in source:
        if isinstance(line, Mapping):
            yield json.dumps(line, ensure_ascii=False, separators=(",", ":"))
        elif isinstance(line, bytes):
            yield line.rstrip(b"\r\n")
        else:
            yield line.rstrip("\r\n")
