"""The write side of the Kafka event log: one writer per partition, appends, heads.

``KafkaLogWrites`` builds on the read side (``log_reads``): a new owner restores its
partition's heads by reading the log, and every append tells the readers how far this
process has committed. ``KafkaEventLog`` joins the writers group when it is opened with a
``WriterConfig`` and stops every writer when it is closed.

* **One writer per partition** (``docs``: docs/design/WRITE_PATH.md). A log opened with a
  ``WriterConfig`` (a gateway) joins the writers group (``ownership``); the partitions it
  is assigned it writes itself through a ``PartitionWriter`` — heads in memory, versions
  checked without a database round trip, appends group-committed in Kafka transactions
  whose producer epoch fences a zombie owner. An append for another partition is
  forwarded to its owner (``peer``). A log opened without one (projector workers,
  replay, tools) is read-only.
* **Durability.** ``acks=all`` with ``min.insync.replicas`` from the topic; ``append``
  returns once the transaction holding its events is committed.
* **Values and headers.** The value is the Avro single-object frame from the serializer;
  headers ``aimem.event_type`` and ``aimem.event_id`` let tools route and deduplicate
  without decoding.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka.partitioner import murmur2

from ai_memory.core.errors import InvalidInput, PermanentError, Unavailable
from ai_memory.core.events import DomainEvent, Head
from ai_memory.core.hosts import is_loopback
from ai_memory.core.ports import EncodedEvent, EventSerializer, encode_events
from ai_memory.core.positions import offset_of, partition_of
from ai_memory.telemetry import trace_headers
from ai_memory.telemetry.tracing import TRACE_HEADERS

from .config import KafkaLogConfig
from .errors import translate_errors
from .heads_restore import restore_heads
from .log_reads import KafkaLogReads
from .loop import BackgroundLoop
from .ownership import OwnershipMember
from .partition_heads import PartitionHeads
from .partition_writer import Item, NotOwner, PartitionWriter
from .peer import PeerClient, PeerServer
from .reader import ReaderPool

EVENT_TYPE_HEADER = "aimem.event_type"
EVENT_ID_HEADER = "aimem.event_id"
_ROUTE_POLL_SECONDS = 0.1  # while a partition has no owner (a rebalance in progress)


@dataclass(frozen=True)
class WriterConfig:
    """How a gateway takes part in writing: its peer listener and what it advertises.

    ``listen`` is ``host:port`` (port 0: any free port); ``advertised`` is the URL other
    gateways reach it at (default ``http://<listen host>:<bound port>``); ``token`` is the
    shared secret peers must present."""

    listen: str = "127.0.0.1:0"
    advertised: str | None = None
    token: str | None = None
    session_timeout_ms: int = 10_000
    # False: a process that appends now and then (the governor, a stdio MCP server) joins
    # the group to learn the owners and forwards everything; it owns no partition, so it
    # neither needs a reachable peer port nor moves partitions when it comes and goes.
    owns_partitions: bool = True


class KafkaLogWrites(KafkaLogReads):
    """Appending through the partitions' owners, and the heads they hold."""

    def __init__(
        self,
        config: KafkaLogConfig,
        serializer: EventSerializer,
        client_id: str,
        loop: BackgroundLoop,
        writer: WriterConfig | None,
    ) -> None:
        super().__init__(config, serializer, client_id, loop)
        self._writer_config = writer
        self._writers: dict[int, PartitionWriter] = {}
        self._member: OwnershipMember | None = None
        self._peer_server: PeerServer | None = None
        self._peers: PeerClient | None = None
        self.advertised: str | None = None
        self._heads_readers = ReaderPool(
            config.bootstrap, config.heads_topic, client_id, config.request_timeout
        )

    @property
    def writable(self) -> bool:
        return self._writer_config is not None

    # --- joining the writers group -----------------------------------------------------

    async def _join(self, w: WriterConfig) -> None:
        self.advertised = ""
        if w.owns_partitions:
            host, _, port = w.listen.rpartition(":")
            if not w.token and not is_loopback(host or "127.0.0.1"):
                # A peer's append is trusted (it was validated by the gateway that took the
                # request), so an open peer port would let anyone on the network write.
                raise InvalidInput(
                    "AIMEM_PEER_TOKEN",
                    "required",
                    f"the peer listener binds {host!r}, beyond loopback: set AIMEM_PEER_TOKEN "
                    "(a shared secret of the gateways) or bind 127.0.0.1",
                )
            self._peer_server = PeerServer(
                host or "127.0.0.1",
                int(port or 0),
                w.token,
                self._append_forwarded,
                self._local_heads,
            )
            await self._peer_server.start()
            bound = self._peer_server.port
            self.advertised = w.advertised or f"http://{host or '127.0.0.1'}:{bound}"
        self._peers = PeerClient(w.token, self.config.request_timeout)
        self._member = OwnershipMember(
            bootstrap=self.config.bootstrap,
            group=f"aimem-writers.{self.config.topic}",
            topic=self.config.heads_topic,
            advertised=self.advertised,
            client_id=self._client_id,
            on_change=self._ownership_changed,
            request_timeout=self.config.request_timeout,
            session_timeout_ms=w.session_timeout_ms,
        )
        await self._member.start()
        # Serve only once the group has dealt the partitions: before that, every append
        # would only wait for it.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.request_timeout
        while self._member.routes.generation == 0 and loop.time() < deadline:
            await asyncio.sleep(_ROUTE_POLL_SECONDS)

    async def _ownership_changed(self, revoked: set[int], assigned: set[int]) -> None:
        """Revoked partitions pause their writers; assigned ones resume a paused writer
        that is still sound, or start a new one (which fences whoever wrote before). A
        rebalance that gives a gateway back its own partitions costs no restore."""
        for p in sorted(revoked):
            writer = self._writers.get(p)
            if writer is not None:
                writer.pause()
        if not assigned:
            return
        for p in sorted(set(self._writers) - assigned):
            if self._writers[p].paused:
                await self._writers.pop(p).stop()
        for p in sorted(assigned):
            writer = self._writers.get(p)
            if writer is not None and not writer.fenced and writer.running:
                writer.resume()
                continue
            if writer is not None:
                await writer.stop()
            writer = PartitionWriter(
                topic=self.config.topic,
                heads_topic=self.config.heads_topic,
                partition=p,
                bootstrap=self.config.bootstrap,
                client_id=self._client_id,
                request_timeout=self.config.request_timeout,
                restore=self._restore,
            )
            self._writers[p] = writer
            writer.start()

    # --- writing ----------------------------------------------------------------------

    def partition_for(self, key: str) -> int:
        """The partition of a record key: the Java client's default partitioner."""
        return int(murmur2(key.encode()) & 0x7FFFFFFF) % len(self._partitions)

    def append(self, events: Sequence[DomainEvent]) -> list[int]:
        """Append in order (per partition); every event is committed when this returns.
        Atomic within a partition (one transaction), not across partitions; retrying the
        same events is safe for writes and deletes (recognised by event id)."""
        # Encode first: an unencodable event fails before anything is sent.
        return self.append_encoded(encode_events(self._serializer, events))

    def append_encoded(self, events: Sequence[EncodedEvent]) -> list[int]:
        if not events:
            return []
        if not self.writable:
            raise PermanentError(
                "this event log was opened read-only (no writer configuration)",
                code="event_log_read_only",
            )
        # The appending span's W3C context rides on every record (none while tracing is
        # off), so a projector worker's span joins the write's trace.
        traced = trace_headers()
        items = [
            Item.of(e.event, e.frame, self._headers(e.event, e.event_type) + traced) for e in events
        ]
        groups: dict[int, list[int]] = {}
        for index, encoded in enumerate(events):
            groups.setdefault(self.partition_for(encoded.event.partition_key), []).append(index)
        with translate_errors():
            results = self._loop.run(
                self._append_groups(items, groups), self._timeout * 2 + self.config.request_timeout
            )
        positions = [0] * len(events)
        failure: BaseException | None = None
        for indexes, outcome in zip(groups.values(), results, strict=True):
            if isinstance(outcome, BaseException):
                failure = failure or outcome
                continue
            for index, position in zip(indexes, outcome, strict=True):
                positions[index] = position
                p = partition_of(position)
                self._appended[p] = max(self._appended.get(p, -1), offset_of(position))
        if failure is not None:
            raise failure
        return positions

    async def _append_groups(
        self, items: list[Item], groups: dict[int, list[int]]
    ) -> list[list[int] | BaseException]:
        return list(
            await asyncio.gather(
                *(self._append_partition(p, [items[i] for i in idx]) for p, idx in groups.items()),
                return_exceptions=True,
            )
        )

    async def _append_partition(self, partition: int, items: list[Item]) -> list[int]:
        """Append through the partition's owner: this process, or a peer. While ownership
        moves (a rebalance, a dead owner) the append waits for the new owner."""
        assert self._member is not None and self._peers is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.request_timeout
        while True:
            try:
                writer = self._writers.get(partition)
                if writer is not None and not writer.fenced and not writer.paused:
                    await writer.ready(max(deadline - loop.time(), 0.01))
                    return await writer.append(items)
                owner = self._member.routes.owners.get(partition)
                if owner is not None and owner != self.advertised:
                    frames = [i.value for i in items]
                    trace = [h for h in items[0].headers if h[0] in TRACE_HEADERS]
                    return await self._peers.append(owner, partition, frames, trace)
            except (NotOwner, TimeoutError) as e:
                last: BaseException = e
            except Unavailable as e:
                if e.code not in ("partition_not_owned", "partition_owner_unreachable"):
                    raise
                last = e
            else:
                last = Unavailable(f"partition {partition} has no owner yet", retry_after=1.0)
            if loop.time() >= deadline:
                raise Unavailable(
                    f"no owner of partition {partition} took the append in time ({last})",
                    retry_after=1.0,
                    code="partition_not_owned",
                ) from last
            await asyncio.sleep(_ROUTE_POLL_SECONDS)

    async def _append_forwarded(
        self, partition: int, frames: list[bytes], trace: list[tuple[str, bytes]] | None = None
    ) -> list[int]:
        """A peer's append for a partition this process owns."""
        writer = self._writers.get(partition)
        if writer is None or writer.fenced or writer.paused:
            raise NotOwner(f"this gateway does not own partition {partition}")
        events = await asyncio.to_thread(lambda: [self._serializer.decode(f) for f in frames])
        traced = trace or []
        items = [
            Item.of(e, f, self._headers(e) + traced) for e, f in zip(events, frames, strict=True)
        ]
        if any(self.partition_for(i.event.partition_key) != partition for i in items):
            raise NotOwner(f"an event of this append does not belong to partition {partition}")
        await writer.ready(self.config.request_timeout)
        return await writer.append(items)

    def _headers(
        self, event: DomainEvent, event_type: str | None = None
    ) -> list[tuple[str, bytes]]:
        return [
            (EVENT_TYPE_HEADER, (event_type or self._serializer.event_type(event)).encode()),
            (EVENT_ID_HEADER, event.header.event_id.encode()),
        ]

    async def _restore(self, partition: int) -> PartitionHeads:
        return await restore_heads(
            partition,
            changelog=self._heads_readers,
            changelog_topic=self.config.heads_topic,
            events=self._readers,
            end_offset=self._end_offset,
            serializer=self._serializer,
        )

    # --- the write model ----------------------------------------------------------------

    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        """The committed heads of ``memory_ids``: from this process's writers, then from
        the owners of the other partitions (a memory id does not name its partition)."""
        if not memory_ids:
            return {}
        here = self._heads_here(tenant, list(memory_ids))
        if here is not None:
            return here
        with translate_errors():
            return self._loop.run(self._heads(tenant, list(memory_ids)), self._timeout * 2)

    def _heads_here(self, tenant: str, ids: list[str]) -> dict[str, Head] | None:
        """``heads`` on the calling thread when this process owns every partition and
        each writer is ready (one gateway, or a fleet of one): None otherwise, and the
        loop decides (it waits out a rebalance, asks the other owners). Saves every write
        a round trip through the Kafka loop's thread. Reading the writers' heads from this
        thread is what the loop's answer gives too: committed heads, which may move the
        moment after; the owner re-checks every head an append moves (``admit``)."""
        if self._member is None or self._peers is None:
            return None
        owners = self._member.routes.owners  # replaced whole on a rebalance
        writers = dict(self._writers)
        if len(owners) != len(self._partitions) or set(writers) != set(owners):
            return None
        for p, url in owners.items():
            writer = writers[p]
            if url != self.advertised or writer.paused or writer.fenced or not writer.is_ready:
                return None
        found: dict[str, Head] = {}
        for writer in writers.values():
            found.update(writer.heads(tenant, ids))
        return found

    async def _heads(self, tenant: str, ids: list[str]) -> dict[str, Head]:
        if self._member is None or self._peers is None:
            raise PermanentError(
                "this event log was opened read-only (no writer configuration)",
                code="event_log_read_only",
            )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.request_timeout
        while True:
            owners = dict(self._member.routes.owners)
            mine = {p for p, w in self._writers.items() if not w.paused and not w.fenced}
            if len(owners) == len(self._partitions) and all(
                (p in mine) == (url == self.advertised) for p, url in owners.items()
            ):
                break
            if loop.time() >= deadline:
                raise Unavailable("partition ownership is moving; retry", retry_after=1.0)
            await asyncio.sleep(_ROUTE_POLL_SECONDS)
        for writer in list(self._writers.values()):
            if not writer.paused:
                await writer.ready(max(deadline - loop.time(), 0.01))
        found = self._local_heads(tenant, ids)
        missing = [i for i in ids if i not in found]
        remotes = sorted({url for url in owners.values() if url != self.advertised})
        if missing and remotes:
            answers = await asyncio.gather(
                *(self._peers.heads(url, tenant, missing) for url in remotes)
            )
            for answer in answers:
                found.update(answer)
        return found

    def writers(self) -> dict[str, Any]:
        """What this process writes (for ``/healthz``): its partitions' writers and the
        owner of every partition, as the writers group last assigned them."""
        if self._member is None:
            return {}

        async def snapshot() -> dict[str, Any]:
            assert self._member is not None
            return {
                "advertised": self.advertised,
                "owners": {str(p): url for p, url in sorted(self._member.routes.owners.items())},
                "partitions": [w.status() for _, w in sorted(self._writers.items())],
            }

        with translate_errors():
            return self._loop.run(snapshot(), self._timeout)

    def _local_heads(self, tenant: str, ids: list[str]) -> dict[str, Head]:
        found: dict[str, Head] = {}
        for writer in self._writers.values():
            found.update(writer.heads(tenant, ids))
        return found


__all__ = ["EVENT_ID_HEADER", "EVENT_TYPE_HEADER", "KafkaLogWrites", "WriterConfig"]
