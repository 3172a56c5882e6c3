"""``RecordScanUsage``: a ``UsageSource`` over any ``RecordStore``, by reading the records.

A store that cannot sum its content where it keeps it (Cassandra: a count per bucket is
cheap, the bytes are not) is counted by scanning the tenant's records: O(the tenant's
memories) per answer. A distributed gateway reads the usage table instead
(``adapters.replicated_usage``) once a usage worker has made one; until then this is its
answer, exact but not cheap, and it lists no tenants (so ``/metrics`` has no usage
series rather than scanning every tenant at each scrape).
"""

from __future__ import annotations

from collections.abc import Callable

from ai_memory.core.ports import RecordStore
from ai_memory.core.usage import TenantUsage, content_bytes


class RecordScanUsage:
    def __init__(self, store: RecordStore, partitions: Callable[[], list[int]]) -> None:
        self._store = store
        self._partitions = partitions

    def usage(self, tenant: str) -> TenantUsage:
        # Checkpoints first: every event up to them was applied before the scan began,
        # so the scan counts them (and perhaps a few later ones).
        marks = {p: self._store.checkpoint(p) for p in self._partitions()}
        memories = size = 0
        for stored in self._store.scan_records(tenant):
            memories, size = memories + 1, size + content_bytes(stored.record.content)
        return TenantUsage(memories, size, {p: pos for p, pos in marks.items() if pos})

    def tenants(self) -> list[str]:
        return []
