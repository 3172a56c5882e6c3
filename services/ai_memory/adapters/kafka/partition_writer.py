"""The single writer of one partition: in-memory heads, group commit, fenced transactions.

One process owns a partition at a time (``ownership``). Its ``PartitionWriter``:

* **fences the previous owner** on start: its transactional producer's id is
  ``aimem-writer.<topic>.<partition>``, the same in every process, so initialising it bumps
  the producer epoch at the transaction coordinator — a zombie owner's open transaction is
  aborted and anything it still tries to commit fails with ``ProducerFenced``;
* **restores the heads** of the partition after that (``restore``): every transaction of
  the old owner is now committed or aborted, so reading to the end with
  ``read_committed`` sees exactly what the log holds;
* **decides versions in memory**: each append is checked against the committed heads with
  the pure ``core.heads.admit`` (a retried event is recognised by its id, a stale expected
  version is refused with ``Conflict``) — no database round trip;
* **group-commits**: appends that arrive while a transaction is in flight queue up and go
  in the next one, all of them in one transaction with the changelog records of the heads
  they move. A caller is answered only after ``commit_transaction`` returned, so no version
  is acknowledged before it is durably on the log (acks=all, ``min.insync.replicas``), and
  no head moves in memory before that either: an aborted transaction leaves no orphan.

A failed or ambiguous transaction fails every append of the batch (``Unavailable``: retry)
and the writer starts over — new producer (which settles the pending transaction), heads
restored from the log — before it takes the next append. ``ProducerFenced`` means another
process owns the partition now: the writer stops and refuses appends until it is
re-assigned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka import errors as ke

from ai_memory.core.errors import Conflict, Unavailable
from ai_memory.core.events import DomainEvent, Head
from ai_memory.core.heads import AlreadyOnLog, HeadUpdate, Refused, admit, head_update
from ai_memory.core.positions import pack

from .errors import translate
from .partition_heads import Entry, Key, PartitionHeads, changelog_key, encode_entry

log = logging.getLogger(__name__)

_MAX_BATCH_EVENTS = 5_000  # per transaction; more waits for the next one
_MAX_BATCH_BYTES = 1024 * 1024
# How long a busy writer waits for company before a transaction. 15 ms, not 5: sixteen
# concurrent PUTs cost the whole stack 8.5–8.6 ms each against 9.8–10.3 at 5 ms
# (interleaved on one stack, loadtest/RESULTS.md, "Trickling writes share a projection
# batch"); a write acknowledged while the writer is busy waits up to 10 ms longer.
_LINGER_S = 0.015
_BUSY_S = 0.05  # busy: its last transaction ended less than this ago

Restorer = Callable[[int], Awaitable[PartitionHeads]]
Accepted = dict[int, list[int]]  # append in batch → items to send
# append in batch → item → its position (committed) or the (append, item) sending it
Known = dict[int, dict[int, int | tuple[int, int]]]


@dataclass(frozen=True)
class Item:
    """One event to append: its encoded record and the head it moves (if any)."""

    event: DomainEvent
    key: bytes
    value: bytes
    headers: list[tuple[str, bytes]]
    update: HeadUpdate | None

    @classmethod
    def of(cls, event: DomainEvent, value: bytes, headers: list[tuple[str, bytes]]) -> Item:
        return cls(event, event.partition_key.encode(), value, headers, head_update(event))


@dataclass
class _Append:
    items: Sequence[Item]
    future: asyncio.Future[list[int]]
    positions: list[int] = field(default_factory=list)


@dataclass
class _Staged:
    """A head decided in the batch being committed; its position comes from the send."""

    entry: Entry
    index: tuple[int, int]  # (append in batch, item) of the event that sets it


class NotOwner(Unavailable):
    """This process does not (or no longer) own the partition; ask the owner."""

    code = "partition_not_owned"


class PartitionWriter:
    def __init__(
        self,
        *,
        topic: str,
        heads_topic: str,
        partition: int,
        bootstrap: str,
        client_id: str,
        request_timeout: float,
        restore: Restorer,
    ) -> None:
        self.topic = topic
        self.heads_topic = heads_topic
        self.partition = partition
        self.transactional_id = f"aimem-writer.{topic}.{partition}"
        self._bootstrap = bootstrap
        self._client_id = client_id
        self._timeout = request_timeout
        self._restore = restore
        self._queue: asyncio.Queue[_Append] = asyncio.Queue()
        self._producer: Any = None
        self._heads = PartitionHeads()
        # Committed heads not yet in the changelog. The changelog is only a shortcut for
        # restoring (which folds every event after its newest position), so it may trail
        # the log by a transaction.
        self._unlogged: dict[Key, Entry] = {}
        self._task: asyncio.Task[None] | None = None
        self._last_commit = float("-inf")  # monotonic time the last transaction ended
        self._ready = asyncio.Event()
        self._stopped = False
        self.fenced = False
        self.paused = False
        # What /healthz shows of this writer.
        self.transactions = 0
        self.events = 0
        self.last_error: str | None = None

    # --- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Begin taking over the partition in the background; appends wait until ready."""
        self._task = asyncio.get_running_loop().create_task(self._main())

    async def stop(self) -> None:
        """Give the partition up: fail what is queued, stop the producer."""
        self._stopped = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self._fail_queued(NotOwner(f"partition {self.partition} changed owner; retry"))
        await self._close_producer()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def status(self) -> dict[str, Any]:
        if self.fenced:
            state = "fenced"
        elif self.paused:
            state = "paused"
        elif self._ready.is_set():
            state = "writing"
        else:
            state = "taking_over"
        return {
            "partition": self.partition,
            "state": state,
            "heads": len(self._heads.entries),
            "transactions": self.transactions,
            "events": self.events,
            "queued": self._queue.qsize(),
            "last_error": self.last_error,
        }

    @property
    def is_ready(self) -> bool:
        """Owner with restored heads, taking appends (readable from any thread)."""
        return self._ready.is_set() and not (self.paused or self.fenced or self._stopped)

    async def ready(self, timeout: float) -> None:
        if not self._ready.is_set():  # every heads lookup asks: no task when it is
            await asyncio.wait_for(self._ready.wait(), timeout)

    # --- the port ----------------------------------------------------------------------
    def heads(self, tenant: str, memory_ids: Sequence[str]) -> dict[str, Head]:
        """Committed heads only: a decision never builds on an uncommitted version."""
        return self._heads.lookup(tenant, memory_ids)

    def pause(self) -> None:
        """Stop taking appends (the partition is being re-assigned); what is queued is
        refused so its callers go to the next owner, a transaction in flight completes —
        or fails fenced, if the next owner is another process and was faster."""
        self.paused = True
        self._fail_queued(NotOwner(f"partition {self.partition} is changing owner; retry"))

    def resume(self) -> None:
        """Assigned again without having lost the partition in between: another owner in
        between would have fenced this producer, and its next commit would fail and make
        the writer restore, so the heads in memory are never trusted blindly."""
        self.paused = False

    async def append(self, items: Sequence[Item]) -> list[int]:
        if self._stopped or self.fenced or self.paused:
            raise NotOwner(f"this process does not own partition {self.partition}")
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Append(items, future))
        return await future

    # --- the loop ----------------------------------------------------------------------
    async def _main(self) -> None:
        while not self._stopped:
            try:
                await self._take_over()
                self._ready.set()
                self.last_error = None
                while not self._stopped:
                    batch = await self._next_batch()
                    await self._commit(batch)
            except asyncio.CancelledError:
                raise
            except ke.ProducerFenced:
                log.warning("partition %d: fenced by a newer owner; stopping", self.partition)
                self.fenced = True
                self._ready.clear()
                self._fail_queued(NotOwner(f"partition {self.partition} has a newer owner"))
                return
            except Exception as e:
                log.exception("partition %d writer failed; taking over again", self.partition)
                self.last_error = f"{type(e).__name__}: {e}"
                self._ready.clear()
                await self._close_producer()
                await asyncio.sleep(0.5)

    async def _take_over(self) -> None:
        """Fence the previous owner (or our own failed transaction), then restore heads."""
        await self._close_producer()
        timeout_ms = int(self._timeout * 1000)
        producer = AIOKafkaProducer(
            bootstrap_servers=self._bootstrap,
            client_id=f"{self._client_id}-writer-{self.partition}",
            transactional_id=self.transactional_id,
            enable_idempotence=True,
            acks="all",
            linger_ms=0,
            max_batch_size=_MAX_BATCH_BYTES,
            # A transaction begun right after a commit is refused (CONCURRENT_TRANSACTIONS)
            # until the coordinator has written the markers; retry soon, not after 100 ms.
            retry_backoff_ms=5,
            request_timeout_ms=timeout_ms,
            transaction_timeout_ms=max(timeout_ms * 2, 60_000),
        )
        try:
            await producer.start()  # InitProducerId: bumps the epoch, settles open ones
        except BaseException:
            with contextlib.suppress(Exception):
                await producer.stop()
            raise
        self._producer = producer
        self._heads = await self._restore(self.partition)
        # Heads restored from events past the changelog go into it with the next
        # transaction: once later records raise its newest position, a restore would no
        # longer fold those events.
        self._unlogged = {k: self._heads.entries[k] for k in self._heads.folded}
        log.info("partition %d: owner; %d heads restored", self.partition, len(self._heads.entries))

    async def _next_batch(self) -> list[_Append]:
        batch = [await self._queue.get()]
        events = len(batch[0].items)
        if self._queue.empty() and time.monotonic() - self._last_commit < _BUSY_S:
            # A busy writer lingers a moment before the next transaction (Kafka's
            # ``linger.ms``): appends of concurrent requests are usually a few
            # milliseconds apart, and each transaction costs the broker and this process
            # the same whatever it carries. A writer that was idle starts at once.
            await asyncio.sleep(_LINGER_S)
        while not self._queue.empty() and events < _MAX_BATCH_EVENTS:
            nxt = self._queue.get_nowait()
            batch.append(nxt)
            events += len(nxt.items)
        return batch

    async def _commit(self, batch: list[_Append]) -> None:
        try:
            await self._commit_batch(batch)
        finally:
            self._last_commit = time.monotonic()

    async def _commit_batch(self, batch: list[_Append]) -> None:
        accepted, staged, known = self._decide(batch)
        sends = [(a, i) for a, append in enumerate(batch) for i in accepted.get(a, [])]
        try:
            if sends:
                try:
                    await self._transaction(batch, sends, staged)
                except Exception as e:
                    fenced = _fenced_by(self._producer)
                    if fenced is None or fenced is e:
                        raise
                    raise fenced from e
        except BaseException as e:
            error = _as_retryable(e)
            for a in accepted:
                if not batch[a].future.done():
                    batch[a].future.set_exception(error)
            raise
        for key, stage in staged.items():
            self._heads.set(key, stage.entry)
            self._unlogged[key] = stage.entry  # in the changelog with the next transaction
        for a in accepted:
            append = batch[a]
            for i, ref in known.get(a, {}).items():
                append.positions[i] = (
                    ref if isinstance(ref, int) else batch[ref[0]].positions[ref[1]]
                )
            if not append.future.done():
                append.future.set_result(list(append.positions))

    def _decide(self, batch: list[_Append]) -> tuple[Accepted, dict[Key, _Staged], Known]:
        """Admit each append whole or refuse it whole, in arrival order; later appends of
        the batch see the heads decided by earlier ones."""
        accepted: Accepted = {}
        staged: dict[Key, _Staged] = {}
        known: Known = {}
        for a, append in enumerate(batch):
            append.positions = [0] * len(append.items)
            if append.future.done():
                continue  # its caller gave up (timed out) before it was sent: drop it
            local: dict[Key, _Staged] = {}
            sends: list[int] = []
            retried: dict[int, int | tuple[int, int]] = {}
            refused: Conflict | None = None
            for i, item in enumerate(append.items):
                u = item.update
                if u is None:
                    sends.append(i)
                    continue
                key = (u.tenant, u.head.memory_id)
                stage = local.get(key) or staged.get(key)
                current = stage.entry if stage is not None else self._heads.get(key)
                verdict = admit(
                    u,
                    None if current is None else current.head,
                    None if current is None else current.event_id,
                )
                if isinstance(verdict, Refused):
                    refused = Conflict(
                        f"memory {u.head.memory_id!r} was changed by another writer (this "
                        f"append expected version {u.expected_version}); read it again and "
                        "retry",
                        code="concurrent_write",
                    )
                    break
                if isinstance(verdict, AlreadyOnLog):
                    # Committed: its position is known. Staged in this batch: it is the
                    # same event sent a moment ago, and takes that send's position.
                    retried[i] = verdict.position if stage is None else stage.index
                    continue
                local[key] = _Staged(Entry(u.head, u.event_id), (a, i))
                sends.append(i)
            if refused is not None:
                append.future.set_exception(refused)
                continue
            staged.update(local)
            accepted[a] = sends
            known[a] = retried
        return accepted, staged, known

    async def _transaction(
        self, batch: list[_Append], sends: list[tuple[int, int]], staged: dict[Key, _Staged]
    ) -> None:
        """One transaction: the batch's events, and the changelog records of heads that
        earlier transactions committed (their positions are known now, so nothing waits
        for this batch's offsets before the commit)."""
        producer = self._producer
        snapshot = dict(self._unlogged)
        await producer.begin_transaction()
        try:
            futures = []
            for a, i in sends:
                item = batch[a].items[i]
                futures.append(
                    await producer.send(
                        self.topic,
                        value=item.value,
                        key=item.key,
                        headers=item.headers,
                        partition=self.partition,
                    )
                )
            for key, entry in snapshot.items():
                futures.append(
                    await producer.send(
                        self.heads_topic,
                        value=encode_entry(key, entry),
                        key=changelog_key(key),
                        partition=self.partition,
                    )
                )
            # Every outcome is collected (none left unretrieved), then the first failure
            # fails the transaction.
            outcomes = await asyncio.gather(*futures, return_exceptions=True)
            failed = next((m for m in outcomes if isinstance(m, BaseException)), None)
            if failed is not None:
                raise failed
            metas: list[Any] = list(outcomes)
        except BaseException:
            with contextlib.suppress(Exception):  # the take-over's new producer settles it
                await producer.abort_transaction()
            raise
        await producer.commit_transaction()
        for (a, i), meta in zip(sends, metas[: len(sends)], strict=True):
            batch[a].positions[i] = pack(self.partition, meta.offset)
        for stage in staged.values():
            a, i = stage.index
            head = replace(stage.entry.head, position=batch[a].positions[i])
            stage.entry = Entry(head, stage.entry.event_id)
        for key, entry in snapshot.items():
            if self._unlogged.get(key) is entry:
                del self._unlogged[key]
        self.transactions += 1
        self.events += len(sends)

    def _fail_queued(self, error: BaseException) -> None:
        while not self._queue.empty():
            append = self._queue.get_nowait()
            if not append.future.done():
                append.future.set_exception(error)

    async def _close_producer(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            try:
                await producer.stop()
            except Exception:
                log.debug("error stopping a writer producer", exc_info=True)


def _fenced_by(producer: AIOKafkaProducer | None) -> ke.ProducerFenced | None:
    """The fence that ended ``producer``'s transaction, if that is what ended it.

    The sender learns of a newer owner in the background (``AddPartitionsToTxn`` answered
    "fenced") and puts the transaction in a fatal state; the *next* ``send`` then fails
    with ``IllegalOperation`` ("not in transaction"), which says nothing of the fence. A
    fenced writer must stop, not take over again, so the cause is read back here (aiokafka
    keeps it on the transaction's waiter; there is no public accessor)."""
    txn = producer._txn_manager if producer is not None else None
    if txn is None or not txn.is_fatal_error():
        return None
    waiter = txn.wait_for_transaction_end()
    if not waiter.done() or waiter.cancelled():
        return None
    error = waiter.exception()
    return error if isinstance(error, ke.ProducerFenced) else None


def _as_retryable(e: BaseException) -> BaseException:
    """What a caller whose append was in a failed transaction hears: retry (its events are
    not on the log, or — if the commit's outcome was lost — are, and a retry of the same
    events is recognised by their ids)."""
    if isinstance(e, ke.ProducerFenced):
        return NotOwner("the partition moved to another owner during the append; retry")
    mapped = translate(e)
    if isinstance(mapped, Unavailable):
        return mapped
    return Unavailable(
        f"the append's transaction failed ({type(e).__name__}); retry", retry_after=1.0
    )
