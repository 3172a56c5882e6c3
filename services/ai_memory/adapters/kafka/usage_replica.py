"""Every gateway's replica of the usage table, read from the table's changelog topic.

The usage projection (``projector/usage_worker.py``, a Faust agent) keeps per-tenant
usage in a changelog-backed Faust table. A gateway does not run Faust to read it: like a
Faust ``GlobalTable``, it reads every partition of the changelog topic (compacted, so a
restart reads one value per key) from the beginning and then follows it, keeping the
latest value of each key. A tenant's usage is the sum of its keys (``core.usage``), so
every gateway enforces the same number, behind the log by the fold's batch interval
plus this read's poll (≈ 0.5 s under load; measured in ``loadtest/RESULTS.md``).

No consumer group: nothing is committed and no rebalance ever involves a gateway. Until
the changelog topic exists (no usage worker has ever run) and has been read to its end,
``ready`` is False and ``adapters.replicated_usage`` answers from the record store instead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from ai_memory.core.usage import PARTITION_PREFIX, TENANT_PREFIX, TenantUsage, usage_of

from .config import KafkaLogConfig
from .loop import BackgroundLoop

log = logging.getLogger(__name__)

POLL_MS = 250
#: The usage table's name in its Faust app (``projector/usage_worker.py``).
TABLE = "usage"
#: Keys a gateway keeps, as they start in the changelog's JSON (no other key is decoded:
#: the memory keys, one write per memory changed, are most of the topic).
_KEPT = (f'"{TENANT_PREFIX}'.encode(), f'"{PARTITION_PREFIX}'.encode())


def app_id(topic: str) -> str:
    """The usage worker's Faust app id (and consumer group) for the log ``topic``."""
    return f"aimem-usage.{topic}"


def changelog_topic(topic: str) -> str:
    """Faust's name for the usage table's changelog topic (``<app id>-<table>-changelog``)."""
    return f"{app_id(topic)}-{TABLE}-changelog"


#: How often a gateway looks for a changelog topic that does not exist yet, seconds.
DISCOVER_EVERY_S = 5.0


class KafkaUsageReplica:
    """``UsageSource`` over the usage table's changelog (see the module docstring)."""

    def __init__(self, config: KafkaLogConfig, changelog: str) -> None:
        self.config = config
        self.changelog = changelog
        # Tenant keys only (``t|<tenant>|<partition>``), by tenant: the memory keys are
        # the fold's own state, one per memory, and no gateway needs them.
        self._rows: dict[str, dict[str, list[int]]] = {}
        # ``p|<partition>`` keys: up to where each log partition is folded.
        self._folded: dict[int, int] = {}
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stopping = False
        self._follower: asyncio.Task[None] | None = None  # set once ``_follow`` runs
        self._loop = BackgroundLoop("aimem-usage-replica")
        self._task = self._loop.spawn(self._follow())

    @property
    def ready(self) -> bool:
        """Whether the changelog exists and was read to its end once."""
        return self._ready.is_set()

    def wait_ready(self, timeout: float) -> bool:
        return self._ready.wait(timeout)

    def usage(self, tenant: str) -> TenantUsage:
        with self._lock:
            rows = list(self._rows.get(tenant, {}).items())
            folded = dict(self._folded)
        used = usage_of(rows, tenant)
        # A partition's ``p|`` key is written after its usage keys and read in that order:
        # everything up to it is counted, for this tenant too.
        positions = {p: max(folded.get(p, 0), used.positions.get(p, 0)) for p in folded}
        return TenantUsage(used.memories, used.bytes, {**used.positions, **positions})

    def folded(self) -> dict[int, int]:
        """Per log partition, the position of the last event folded (counted or not):
        usage read now reflects every event up to there."""
        with self._lock:
            return dict(self._folded)

    def tenants(self) -> list[str]:
        with self._lock:
            return sorted(t for t, rows in self._rows.items() if rows)

    async def _follow(self) -> None:
        self._follower = asyncio.current_task()
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.config.bootstrap,
            group_id=None,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            isolation_level="read_committed",
            request_timeout_ms=int(self.config.request_timeout * 1000),
        )
        try:
            await consumer.start()
            partitions = await self._discover(consumer)
            if partitions is None:
                return
            tps = [TopicPartition(self.changelog, p) for p in sorted(partitions)]
            consumer.assign(tps)
            await consumer.seek_to_beginning(*tps)
            ends = await consumer.end_offsets(tps)
            while not self._stopping:
                batch = await consumer.getmany(timeout_ms=POLL_MS)
                self._apply(batch)
                if not self._ready.is_set() and all(
                    await asyncio.gather(*(self._reached(consumer, tp, ends[tp]) for tp in tps))
                ):
                    self._ready.set()
        except asyncio.CancelledError:
            raise
        except Exception:  # the gateway goes on with the record store's count
            log.exception("usage replica of %s stopped", self.changelog)
        finally:
            await consumer.stop()

    async def _discover(self, consumer: AIOKafkaConsumer) -> set[int] | None:
        while not self._stopping:
            await consumer._client.force_metadata_update()
            partitions = consumer.partitions_for_topic(self.changelog)
            if partitions:
                return set(partitions)
            await asyncio.sleep(DISCOVER_EVERY_S)
        return None

    @staticmethod
    async def _reached(consumer: AIOKafkaConsumer, tp: TopicPartition, end: int) -> bool:
        return bool(await consumer.position(tp) >= end)

    def _apply(self, batch: dict[Any, list[Any]]) -> None:
        updates: list[tuple[str, list[int] | None]] = []
        for records in batch.values():
            for r in records:
                if r.key is None or not r.key.startswith(_KEPT):
                    continue
                key = json.loads(r.key)
                if isinstance(key, str):
                    updates.append((key, None if r.value is None else json.loads(r.value)))
        if not updates:
            return
        with self._lock:
            for key, value in updates:
                if key.startswith(PARTITION_PREFIX):
                    if value is not None:
                        self._folded[int(key[len(PARTITION_PREFIX) :])] = value[0]
                    continue
                rows = self._rows.setdefault(key.split("|")[1], {})
                if value is None:
                    rows.pop(key, None)
                else:
                    rows[key] = value

    def close(self) -> None:
        self._stopping = True

        async def stop() -> None:
            while self._follower is None and not self._task.done():
                await asyncio.sleep(0)  # spawned before this: let it start, then stop it
            follower = self._follower
            if follower is not None:
                # Wait for the reader to finish: its ``finally`` stops the consumer on
                # this loop, which releases its sockets. Left running, that stop would be
                # cancelled midway by the loop's own close (unclosed transports).
                follower.cancel()
                await asyncio.gather(follower, return_exceptions=True)

        self._loop.close(stop)
