"""Where a deployment reads usage from (the ``UsageSource`` port, ``core.usage``).

* Embedded (SQLite) and ``memory://`` record stores count in the store itself: the
  records they hold are what usage counts, read in one snapshot with their checkpoints.
* Any other record store (Cassandra) is counted by scanning the tenant's records
  (``RecordScanUsage``): exact, O(the tenant's memories) per answer, and no tenant
  listing, so ``/metrics`` has no usage series for it.
* A Kafka log (a distributed gateway): the usage table the usage worker folds
  (``projector/usage_worker.py``), read from its changelog by every gateway
  (``ReplicatedUsage`` over ``KafkaUsageReplica``): one number for the whole deployment,
  which the stored-memories quota enforces too (``quota_count``). Until that replica has
  read the changelog (no usage worker has run yet), the record store answers.
"""

from __future__ import annotations

from collections.abc import Callable

from ai_memory.adapters.record_scan_usage import RecordScanUsage
from ai_memory.adapters.replicated_usage import ReplicatedUsage
from ai_memory.adapters.sqlite_record_store import SqliteRecordStore
from ai_memory.core.ports import RecordStore, UsageSource
from ai_memory.service.quotas import COUNT_TTL
from ai_memory.settings import Settings

from .urls import scheme_of


def build_usage_source(
    settings: Settings, store: RecordStore, partitions: Callable[[], list[int]]
) -> UsageSource:
    """The usage source of a process whose records view is ``store`` over a log of
    ``partitions``."""
    if scheme_of(settings.event_log_url) == "kafka":
        from ai_memory.adapters.kafka.config import parse_kafka_url
        from ai_memory.adapters.kafka.usage_replica import KafkaUsageReplica, changelog_topic

        kafka = parse_kafka_url(settings.event_log_url)
        replica = KafkaUsageReplica(kafka, changelog_topic(kafka.topic))
        return ReplicatedUsage(replica, record_store_usage(store, partitions))
    return record_store_usage(store, partitions)


def quota_count(usage: UsageSource, store: RecordStore) -> Callable[[str], int]:
    """What the stored-memories quota counts: the deployment-wide usage table where a
    gateway has it, else the record store's own count (cheaper than a usage scan)."""
    if isinstance(usage, ReplicatedUsage):
        replica = usage.replica

        def count(tenant: str) -> int:
            return replica.usage(tenant).memories if replica.ready else store.count(tenant)

        return count
    return store.count


def quota_ttl(usage: UsageSource) -> float:
    """How long the quota trusts a count: a second from the usage table (an answer costs
    nothing; what bounds the overshoot is how far the table is behind), the default
    from a record store (each count is a store read)."""
    return 1.0 if isinstance(usage, ReplicatedUsage) else COUNT_TTL


def close_usage(usage: UsageSource) -> None:
    """Stop what the source runs of its own (the replica's reader); a record store is
    closed by its owner."""
    if isinstance(usage, ReplicatedUsage):
        usage.close()


def record_store_usage(store: RecordStore, partitions: Callable[[], list[int]]) -> UsageSource:
    """What the record store holds, counted where it can be counted cheaply."""
    from ai_memory.adapters.memory import MemoryRecordStore
    from ai_memory.adapters.sealed_record_store import SealedRecordStore

    if isinstance(store, SealedRecordStore) and isinstance(store.inner, SqliteRecordStore):
        return store.inner  # it sums the sizes its sealed rows name, without opening them
    if isinstance(store, SqliteRecordStore | MemoryRecordStore):
        return store
    return RecordScanUsage(store, partitions)
