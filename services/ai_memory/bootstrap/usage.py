"""Where a deployment reads usage from (the ``UsageSource`` port, ``core.usage``).

* Embedded (SQLite) and ``memory://`` record stores count in the store itself: the
  records they hold are what usage counts, read in one snapshot with their checkpoints.
* Any other record store (Cassandra) is counted by scanning the tenant's records
  (``RecordScanUsage``): exact, O(the tenant's memories) per answer, and no tenant
  listing, so ``/metrics`` has no usage series for it.
* A Kafka log: the same for now. The distributed deployment is to read the usage fold's
  table (``core.usage.UsageFold`` folded by the stream processor; ``usage_of`` and
  ``tenants_in`` read it) — that reader is what ``build_usage_source`` returns there.
"""

from __future__ import annotations

from collections.abc import Callable

from ai_memory.adapters.record_scan_usage import RecordScanUsage
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.ports import RecordStore, UsageSource
from ai_memory.settings import Settings

from .urls import scheme_of


def build_usage_source(
    settings: Settings, store: RecordStore, partitions: Callable[[], list[int]]
) -> UsageSource:
    """The usage source of a process whose records view is ``store`` over a log of
    ``partitions``."""
    if scheme_of(settings.event_log_url) == "kafka":
        # distributed: replaced by the usage fold (the reader of its table goes here)
        return record_store_usage(store, partitions)
    return record_store_usage(store, partitions)


def record_store_usage(store: RecordStore, partitions: Callable[[], list[int]]) -> UsageSource:
    """What the record store holds, counted where it can be counted cheaply."""
    from ai_memory.adapters.memory import MemoryRecordStore

    if isinstance(store, SqliteRecordStore | MemoryRecordStore):
        return store
    return RecordScanUsage(store, partitions)
