"""Records that searches read lately, kept sealed for the searches that follow.

A search reads its kept candidates from the record store (``SearchReads.kept``). On
Cassandra that is about ten partition reads per search: most of the node's CPU for a
search, and the driver's work in the gateway besides (``loadtest/RESULTS.md``, "A
search's records, cached by the version the index holds"). An agent's searches come back
to the same memories turn after turn, so a gateway keeps what it read, under rules that
must not be loosened:

* **Only for the version the index holds.** A cached row answers for a hit only if its
  ``position`` — the log position of the write or state change the row shows — equals
  the position the index holds for that memory (``HitFacts.position``). A new version, a
  state change or a forget moves the index's position or drops the hit, so none is ever
  hidden behind a cached row; a row the store gives for another position than the
  index's is read again next time, as without the cache.
* **What the position does not cover is at most ``ttl`` old**: read counts change
  without a new position. A rerank reads them only to break ties, recalls reach the
  store a second or more after the search anyway, and a search result's ``read_count``
  is at most ``AIMEM_SEARCH_CACHE_SECONDS`` (5 s) behind the store's. On 500 distinct
  LoCoMo questions in a 100k scope at 20 searches a second, 1 s answered 10 % of the
  lookups, 5 s 28 %, 60 s 32 % (``loadtest/probe_row_cache.py``).
* **Kept sealed**, as the store hands a search its rows: opening still asks the vault for
  the memory's key, so a forgotten memory (its key destroyed) does not open from here.
  A cached row that does not open is dropped and read again from the store before the
  search gives its hit up (the store's row may have been sealed again since: a records
  replay rewrites rows without a new position).
* Keyed by tenant and memory id; bounded in entries, and an entry past its lifetime
  leaves at the next store, so memory stays flat.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

from ai_memory.core.record import StoredRecord


class SearchRowCache:
    """A bounded, time-limited map of ``(tenant, memory_id)`` to the sealed row a search
    read, answering only for the row's own position. Thread-safe."""

    def __init__(
        self,
        entries: int,
        ttl: float,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if entries < 1 or ttl <= 0:
            raise ValueError("a search row cache needs room and a lifetime")
        self._entries = entries
        self._ttl = ttl
        self._monotonic = monotonic
        self._rows: OrderedDict[tuple[str, str], tuple[float, StoredRecord]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get_many(self, tenant: str, wanted: Mapping[str, int]) -> dict[str, StoredRecord]:
        """The cached rows of ``wanted`` (memory id → the position the index holds) that
        are at that very position and younger than the lifetime."""
        now = self._monotonic()
        found: dict[str, StoredRecord] = {}
        with self._lock:
            for memory_id, position in wanted.items():
                key = (tenant, memory_id)
                entry = self._rows.get(key)
                if entry is None:
                    continue
                stored_at, row = entry
                if now - stored_at >= self._ttl:
                    del self._rows[key]
                    continue
                if row.position == position:
                    found[memory_id] = row
            self.hits += len(found)
            self.misses += len(wanted) - len(found)
        return found

    def put_many(self, tenant: str, rows: Iterable[StoredRecord]) -> None:
        """Keep rows just read from the store. Entries stay in the order they were
        stored, so the oldest are first: those past their lifetime leave here (nothing
        sealed lingers for want of a lookup), then as many as make room."""
        now = self._monotonic()
        with self._lock:
            for row in rows:
                key = (tenant, row.record.id)
                self._rows[key] = (now, row)
                self._rows.move_to_end(key)
            while self._rows:
                stored_at, _ = next(iter(self._rows.values()))
                if now - stored_at < self._ttl and len(self._rows) <= self._entries:
                    break
                self._rows.popitem(last=False)

    def drop(self, tenant: str, memory_ids: Iterable[str]) -> None:
        with self._lock:
            for memory_id in memory_ids:
                self._rows.pop((tenant, memory_id), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows)
