"""KafkaEventLog: the distributed log of record, one Kafka topic of Avro events.

* **Keys and order.** The record key is ``event.partition_key`` (``tenant/scope``); its
  partition is ``murmur2(key) % partitions`` (the Java client's and aiokafka's default), so
  every event of a scope, hence of a memory, lands in one partition, in append order.
* **One writer per partition** (``docs``: deploy/WRITE_PATH.md). A log opened with a
  ``WriterConfig`` (a gateway) joins the writers group (``ownership``); the partitions it
  is assigned it writes itself through a ``PartitionWriter`` — heads in memory, versions
  checked without a database round trip, appends group-committed in Kafka transactions
  whose producer epoch fences a zombie owner. An append for another partition is
  forwarded to its owner (``peer``). A log opened without one (projector workers,
  replay, tools) is read-only.
* **Durability.** ``acks=all`` with ``min.insync.replicas`` from the topic; ``append``
  returns once the transaction holding its events is committed. Readers use
  ``read_committed``, so an aborted transaction is never seen.
* **Positions.** ``core.positions.pack(partition, offset)``: positive, increasing within a
  partition, one integer everywhere (APIs, checkpoints, ``USING TIMESTAMP``). Commit
  markers take offsets too, so positions have gaps; ``last_position`` is the newest
  *event*.
* **Threads.** The port is synchronous; aiokafka runs on one background event loop
  (see ``loop``). Avro encoding and decoding happen on the calling thread.
* **Values and headers.** The value is the Avro single-object frame from the serializer;
  headers ``aimem.event_type`` and ``aimem.event_id`` let tools route and deduplicate
  without decoding.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka import TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.partitioner import murmur2

from ai_memory.core.errors import InvalidInput, PermanentError, Unavailable
from ai_memory.core.events import DomainEvent, Head, LoggedEvent, TenantPage
from ai_memory.core.hosts import is_loopback
from ai_memory.core.ports import CHANGE_EVENT_TYPES, EventSerializer
from ai_memory.core.positions import offset_of, pack, partition_of
from ai_memory.serialization import UndecodableEvent

from ..tenant_reads import decoded_skipping_poison
from .config import KafkaLogConfig, parse_kafka_url
from .errors import translate_errors
from .heads_restore import restore_heads
from .keyed_scan import KeyedScan, scan_keyed
from .loop import BackgroundLoop
from .ownership import OwnershipMember
from .partition_heads import PartitionHeads
from .partition_writer import Item, NotOwner, PartitionWriter
from .peer import PeerClient, PeerServer
from .reader import ReaderPool, UndecodableRecord, new_consumer
from .topics import ensure_topics

log = logging.getLogger(__name__)

EVENT_TYPE_HEADER = "aimem.event_type"
EVENT_ID_HEADER = "aimem.event_id"
_WAIT_POLL_SECONDS = 0.05  # end offsets are polled: a broker cannot push "new data"
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


class KafkaEventLog:
    def __init__(
        self,
        bootstrap: str,
        topic: str,
        serializer: EventSerializer,
        *,
        partitions: int = 6,
        replication_factor: int = 1,
        min_insync_replicas: int | None = None,
        request_timeout: float = 30.0,
        client_id: str = "ai-memory",
        writer: WriterConfig | None = None,
    ) -> None:
        """Connect, create or verify the topics; with ``writer``, join the writers group
        and wait for the first assignment.

        Raises ``Unavailable`` when Kafka cannot be reached and ``TopicMismatch`` when the
        existing topic has another partition count; nothing is left running then."""
        self.config = KafkaLogConfig(
            bootstrap,
            topic,
            partitions,
            replication_factor,
            min_insync_replicas,
            request_timeout,
        )
        self._serializer = serializer
        self._client_id = client_id
        self._closed = False
        self._admin: Any = None
        self._offsets: Any = None
        self._writer_config = writer
        self._writers: dict[int, PartitionWriter] = {}
        self._member: OwnershipMember | None = None
        self._peer_server: PeerServer | None = None
        self._peers: PeerClient | None = None
        self.advertised: str | None = None
        self._last_event: dict[int, tuple[int, int]] = {}  # partition → (end, last event)
        # The newest offset each partition committed for this process: a broker's answer
        # about a just-created partition can lag behind an append it acknowledged.
        self._appended: dict[int, int] = {}
        self._readers = ReaderPool(bootstrap, topic, client_id, request_timeout)
        self._heads_readers = ReaderPool(
            bootstrap, self.config.heads_topic, client_id, request_timeout
        )
        self._loop = BackgroundLoop(f"kafka-event-log:{topic}")
        try:
            with translate_errors():
                self._partitions = self._loop.run(self._start(), self._timeout * 2)
        except BaseException:
            self._loop.close(self._shutdown)
            raise

    @classmethod
    def from_url(
        cls, url: str, serializer: EventSerializer, *, writer: WriterConfig | None = None
    ) -> KafkaEventLog:
        """``kafka://host:9092[,host2:9092]/<topic>?partitions=6&replication_factor=1``
        (see ``config.parse_kafka_url`` for every parameter)."""
        c = parse_kafka_url(url)
        return cls(
            c.bootstrap,
            c.topic,
            serializer,
            partitions=c.partitions,
            replication_factor=c.replication_factor,
            min_insync_replicas=c.min_insync_replicas,
            request_timeout=c.request_timeout,
            writer=writer,
        )

    @property
    def _timeout(self) -> float:
        return self.config.request_timeout + 5.0

    @property
    def writable(self) -> bool:
        return self._writer_config is not None

    async def _start(self) -> list[int]:
        bootstrap, timeout_ms = self.config.bootstrap, int(self.config.request_timeout * 1000)
        self._admin = AIOKafkaAdminClient(
            bootstrap_servers=bootstrap, client_id=self._client_id, request_timeout_ms=timeout_ms
        )
        await self._admin.start()
        partitions = await ensure_topics(self._admin, self.config)
        await self._admin.close()
        self._admin = None
        self._offsets = new_consumer(bootstrap, self._client_id, self.config.request_timeout)
        await self._offsets.start()
        if self._writer_config is not None:
            await self._join(self._writer_config)
        return partitions

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
        if not events:
            return []
        if not self.writable:
            raise PermanentError(
                "this event log was opened read-only (no writer configuration)",
                code="event_log_read_only",
            )
        # Encode first: an unencodable event fails before anything is sent.
        items = [Item.of(e, self._serializer.encode(e), self._headers(e)) for e in events]
        groups: dict[int, list[int]] = {}
        for index, event in enumerate(events):
            groups.setdefault(self.partition_for(event.partition_key), []).append(index)
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
                    return await self._peers.append(owner, partition, [i.value for i in items])
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

    async def _append_forwarded(self, partition: int, frames: list[bytes]) -> list[int]:
        """A peer's append for a partition this process owns."""
        writer = self._writers.get(partition)
        if writer is None or writer.fenced or writer.paused:
            raise NotOwner(f"this gateway does not own partition {partition}")
        events = await asyncio.to_thread(lambda: [self._serializer.decode(f) for f in frames])
        items = [Item.of(e, f, self._headers(e)) for e, f in zip(events, frames, strict=True)]
        if any(self.partition_for(i.event.partition_key) != partition for i in items):
            raise NotOwner(f"an event of this append does not belong to partition {partition}")
        await writer.ready(self.config.request_timeout)
        return await writer.append(items)

    def _headers(self, event: DomainEvent) -> list[tuple[str, bytes]]:
        return [
            (EVENT_TYPE_HEADER, self._serializer.event_type(event).encode()),
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
        with translate_errors():
            return self._loop.run(self._heads(tenant, list(memory_ids)), self._timeout * 2)

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

    # --- reading ----------------------------------------------------------------------

    def partitions(self) -> list[int]:
        """Fixed at start-up: the count was verified then, and changing it in place is
        refused (see ``topics``)."""
        return list(self._partitions)

    def read(self, *, after: int, limit: int, partition: int = 0) -> list[LoggedEvent]:
        """Events after ``after``, decoded on this thread. An undecodable record raises
        ``UndecodableRecord`` (an ``UndecodableEvent`` carrying position and bytes) when it
        is the first of the page; otherwise the page ends just before it."""
        start = self._start_offset(after, partition)
        if limit <= 0:
            return []
        with translate_errors():
            raw = self._loop.run(self._fetch(partition, start, limit), self._timeout * 2)
        events: list[LoggedEvent] = []
        for offset, value in raw:
            position = pack(partition, offset)
            try:
                event = self._serializer.decode(value)
            except UndecodableEvent as e:
                if events:
                    break  # return the good prefix; the next read starts at the bad record
                raise UndecodableRecord(e, position=position, partition=partition, raw=value) from e
            events.append(LoggedEvent(position, event))
        return events

    def read_tenant(
        self, tenant: str, *, after: int, limit: int, scan: int, partition: int = 0
    ) -> TenantPage:
        """The tenant's records of the partition, found by key (``keyed_scan``): a record
        is kept when its key (``tenant/scope``) starts with the tenant's."""
        prefix = f"{tenant}/".encode()
        return self._keyed_page(
            tenant,
            lambda key: key.startswith(prefix),
            lambda event: True,
            after=after,
            limit=limit,
            scan=scan,
            partition=partition,
        )

    def read_changes(
        self,
        tenant: str,
        scopes: Sequence[str] | None,
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int = 0,
    ) -> TenantPage:
        """``read_tenant`` keeping only records whose key is ``tenant/<scope>`` of one of
        ``scopes`` (the scope filter is the key test: other scopes stay undecoded), then
        only the change types."""
        prefix = f"{tenant}/".encode()
        keys = None if scopes is None else {f"{tenant}/{s}".encode() for s in scopes}
        return self._keyed_page(
            tenant,
            (lambda key: key.startswith(prefix)) if keys is None else keys.__contains__,
            lambda event: type(event).__name__ in CHANGE_EVENT_TYPES,
            after=after,
            limit=limit,
            scan=scan,
            partition=partition,
        )

    def _keyed_page(
        self,
        tenant: str,
        keep_key: Callable[[bytes], bool],
        keep_event: Callable[[DomainEvent], bool],
        *,
        after: int,
        limit: int,
        scan: int,
        partition: int,
    ) -> TenantPage:
        start = self._start_offset(after, partition)
        if limit <= 0 or scan <= 0:
            return TenantPage([], max(after, 0), False)

        async def scanned() -> KeyedScan:
            end = max(await self._end_offset(partition), self._appended.get(partition, -1) + 1)
            return await scan_keyed(
                self._readers, partition, start, end, keep_key, limit=limit, scan=scan
            )

        with translate_errors():
            found = self._loop.run(scanned(), self._timeout * 2)
        rows = [(pack(partition, offset), value) for offset, value in found.kept]
        # The key prefix is exact for tenants of keys (no '/' in them); a tenant named
        # through the in-process API is not validated, so the header decides.
        events = [
            e
            for e in decoded_skipping_poison(rows, self._serializer)
            if e.event.header.tenant == tenant and keep_event(e.event)
        ]
        scanned_to = pack(partition, found.last) if found.last >= start else max(after, 0)
        return TenantPage(events, scanned_to, found.complete)

    async def _fetch(self, partition: int, start: int, limit: int) -> list[tuple[int, bytes]]:
        end = max(await self._end_offset(partition), self._appended.get(partition, -1) + 1)
        if start >= end:
            return []
        return await self._readers.fetch(partition, start, min(limit, end - start))

    def last_position(self, partition: int = 0) -> int:
        """The position of the newest committed *event* (commit markers are skipped)."""
        self._check_partition(partition)
        with translate_errors():
            last = self._loop.run(self._last_event_offset(partition), self._timeout)
        return 0 if last < 0 else pack(partition, last)

    async def _last_event_offset(self, partition: int) -> int:
        """Offset of the newest committed event, -1 if none. The end offset counts commit
        markers, so the events just before it are read back (once per new end offset)."""
        end = await self._end_offset(partition)
        cached = self._last_event.get(partition)
        if cached is not None and cached[0] == end:
            return max(cached[1], self._appended.get(partition, -1))
        last, window = -1, 4
        while end > 0:
            start = max(0, end - window)
            page = await self._readers.fetch(partition, start, end - start)
            if page:
                last = page[-1][0]
                break
            if start == 0:
                break
            window *= 4
        self._last_event[partition] = (end, last)
        return max(last, self._appended.get(partition, -1))

    def wait_for_events(self, *, after: int, timeout: float, partition: int = 0) -> bool:
        start = self._start_offset(after, partition)

        async def wait() -> bool:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                if await self._last_event_offset(partition) >= start:
                    return True
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return False
                await asyncio.sleep(min(_WAIT_POLL_SECONDS, remaining))

        with translate_errors():
            return self._loop.run(wait(), max(timeout, 0.0) + self._timeout)

    async def _end_offset(self, partition: int, topic: str | None = None) -> int:
        """The last stable offset (``read_committed``): nothing at or after it is readable."""
        tp = TopicPartition(topic or self.config.topic, partition)
        ends = await self._offsets.end_offsets([tp])
        return int(ends[tp])

    def _start_offset(self, after: int, partition: int) -> int:
        """The first offset to read for ``position > after``."""
        self._check_partition(partition)
        if after <= 0:
            return 0
        if partition_of(after) != partition:
            raise InvalidInput(
                "after", "partition", f"position {after} is not a position of partition {partition}"
            )
        return offset_of(after) + 1

    def _check_partition(self, partition: int) -> None:
        if partition not in self._partitions:
            raise InvalidInput(
                "partition", "range", f"the log has partitions {self._partitions}, not {partition}"
            )

    # --- closing ----------------------------------------------------------------------

    def close(self) -> None:
        """Leave the writers group, stop every writer and client, stop the loop thread."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(concurrent.futures.TimeoutError, Unavailable):
            self._loop.close(self._shutdown)

    async def _shutdown(self) -> None:
        """Stop every client; one failing to stop must not keep the others open. Writers
        stop before the group is left, so no partition has two live writers here."""
        stops: list[Any] = [w.stop for w in self._writers.values()]
        stops += [self._member.stop] if self._member is not None else []
        stops += [self._peer_server.stop] if self._peer_server is not None else []
        stops += [self._peers.close] if self._peers is not None else []
        stops += [self._readers.close, self._heads_readers.close]
        stops += [self._offsets.stop] if self._offsets is not None else []
        stops += [self._admin.close] if self._admin is not None else []
        for stop in stops:
            try:
                await stop()
            except Exception:
                log.exception("error while closing a Kafka client")
        self._writers.clear()
        self._offsets = self._admin = self._member = self._peer_server = self._peers = None


__all__ = ["KafkaEventLog", "WriterConfig"]
