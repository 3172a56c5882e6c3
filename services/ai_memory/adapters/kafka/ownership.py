"""Who writes which partition: a Kafka consumer group decides, as in Kafka Streams.

Every gateway joins the group ``aimem-writers.<topic>`` subscribed to the heads
changelog topic (same partition count as the event topic); the partitions a member is
assigned are the event partitions it owns and writes. The group protocol guarantees that
a partition is assigned to at most one live member; the transactional producer's epoch
(``partition_writer``) turns "at most one *live*" into "at most one *able to commit*",
because a member the group gave up on (paused, partitioned away) is fenced the moment the
new owner initialises its producer.

The assignor also tells every member where the others are: each member's metadata carries
its advertised peer URL, and the leader puts the whole partition → URL table into every
assignment (Kafka Streams shares ``application.server`` the same way), so a gateway
forwards an append for a partition it does not own to the owner (``peer``).

Nothing is consumed through this group: the assigned partitions are paused, and the loop
polls only to keep the membership alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)

log = logging.getLogger(__name__)

OnChange = Callable[[set[int], set[int]], Awaitable[None]]  # (revoked, assigned)


class Routes:
    """The partition → owner URL table of the latest assignment."""

    def __init__(self) -> None:
        self.owners: dict[int, str] = {}
        self.generation = 0
        self.changed = asyncio.Event()

    def update(self, owners: Mapping[int, str]) -> None:
        self.owners = dict(owners)
        self.generation += 1
        self.changed.set()
        self.changed = asyncio.Event()


def assignor_for(advertised: str, routes: Routes) -> type[AbstractPartitionAssignor]:
    """An assignor class bound to this member (aiokafka's assignor API is class methods)."""

    class OwnerAssignor(AbstractPartitionAssignor):  # type: ignore[misc]
        name = "aimem-owner-v1"
        version = 0

        @classmethod
        def metadata(cls, topics: Iterable[str]) -> ConsumerProtocolMemberMetadata:
            return ConsumerProtocolMemberMetadata(cls.version, list(topics), advertised.encode())

        @classmethod
        def assign(
            cls, cluster: Any, members: Mapping[str, ConsumerProtocolMemberMetadata]
        ) -> dict[str, ConsumerProtocolMemberAssignment]:
            return assign_round_robin(cluster, members, cls.version)

        @classmethod
        def on_assignment(cls, assignment: ConsumerProtocolMemberAssignment) -> None:
            table = json.loads(assignment.user_data or b"{}")
            routes.update({int(p): str(url) for p, url in table.items()})

    return OwnerAssignor


def assign_round_robin(
    cluster: Any, members: Mapping[str, ConsumerProtocolMemberMetadata], version: int
) -> dict[str, ConsumerProtocolMemberAssignment]:
    """Partitions dealt round-robin over members sorted by id; every member gets the table."""
    topics = sorted({t for m in members.values() for t in m.subscription})
    # Members that advertise no URL only forward (``ai-memory govern``, a stdio MCP
    # server): they learn the table but own nothing.
    ordered = sorted(m for m in members if members[m].user_data)
    plan: dict[str, dict[str, list[int]]] = {m: {} for m in members}
    table: dict[str, str] = {}
    for topic in topics if ordered else ():
        partitions = sorted(cluster.partitions_for_topic(topic) or ())
        for n, partition in enumerate(partitions):
            member = ordered[n % len(ordered)]
            plan[member].setdefault(topic, []).append(partition)
            table[str(partition)] = members[member].user_data.decode()
    user_data = json.dumps(table, sort_keys=True).encode()
    return {
        m: ConsumerProtocolMemberAssignment(version, sorted(plan[m].items()), user_data)
        for m in sorted(members)
    }


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, member: OwnershipMember) -> None:
        self.member = member

    async def on_partitions_revoked(self, revoked: Any) -> None:
        # Called before the re-join: the writers stop before anyone else may start.
        parts = {tp.partition for tp in revoked}
        self.member.owned -= parts
        await self.member.on_change(parts, set())

    async def on_partitions_assigned(self, assigned: Any) -> None:
        consumer = self.member.consumer
        if consumer is not None:
            consumer.pause(*assigned)
        parts = {tp.partition for tp in assigned}
        self.member.owned |= parts
        await self.member.on_change(set(), parts)


class OwnershipMember:
    """One gateway's membership of the writers group (runs on the log's loop)."""

    def __init__(
        self,
        *,
        bootstrap: str,
        group: str,
        topic: str,
        advertised: str,
        client_id: str,
        on_change: OnChange,
        request_timeout: float,
        session_timeout_ms: int = 10_000,
    ) -> None:
        self.routes = Routes()
        self.owned: set[int] = set()
        self.on_change = on_change
        self.consumer: AIOKafkaConsumer | None = None
        self._args = dict(
            bootstrap_servers=bootstrap,
            group_id=group,
            client_id=f"{client_id}-owner",
            enable_auto_commit=False,
            partition_assignment_strategy=(assignor_for(advertised, self.routes),),
            session_timeout_ms=session_timeout_ms,
            heartbeat_interval_ms=max(session_timeout_ms // 5, 500),
            max_poll_interval_ms=3_600_000,
            request_timeout_ms=int(request_timeout * 1000),
        )
        self._topic = topic
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.consumer = AIOKafkaConsumer(**self._args)
        await self.consumer.start()
        self.consumer.subscribe([self._topic], listener=_Listener(self))
        self._task = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        """Polling keeps the membership and runs rebalances; nothing is consumed."""
        assert self.consumer is not None
        while True:
            try:
                await self.consumer.getmany(timeout_ms=500)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("writers group poll failed; retrying", exc_info=True)
                await asyncio.sleep(1.0)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.consumer is not None:
            await self.consumer.stop()  # leaves the group: the partitions move at once
            self.consumer = None


def partitions_of(assigned: Iterable[TopicPartition]) -> set[int]:
    return {tp.partition for tp in assigned}
