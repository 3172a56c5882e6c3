"""ProjectionTailer: the embedded projection driver.

One daemon thread per sink follows the log from the sink's own checkpoint (stored with the
view, so a restart resumes where it stopped), applies batches, and wakes anyone waiting
for a position (read-your-writes). Every batch goes through the shared ``ApplyPolicy``:
an unavailable store is retried forever (the projection reports itself stuck), an event
that cannot be applied — or decoded — is dead-lettered and the projection moves on.

Linger. Writes that trickle in (a hundred single writes a second) would each wake the
tailer for a batch of one, and a batch costs the same fixed work whatever it carries (the
log read, the view's transaction or engine call, its checkpoint: ≈ 0.4 ms per projection
per batch here). After a batch smaller than ``LINGER_BELOW`` the tailer therefore waits
``linger`` seconds before reading again, like Kafka's ``linger.ms``: the first write after
a quiet spell is applied at once, the writes right behind it share the next batch. A
reader waiting for a position (``wait=true``, ``min_position``) cuts the linger short,
so read-your-writes never pays it; other readers see a write at most ``linger`` later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

from ai_memory.core.errors import Rewind, UndecodableEvent
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import DeadLetters, EventLog
from ai_memory.telemetry import EVENT_CONTEXTS, batch_span

from .policy import ApplyPolicy, Backoff, RawOf, Stopping
from .sinks import ProjectionSink

log = logging.getLogger(__name__)

ProgressCallback = Callable[[int], None]  # events applied by the latest batch

#: Batches smaller than this are followed by the linger (bigger ones mean a backlog).
LINGER_BELOW = 16


class ProjectionTailer:
    def __init__(
        self,
        event_log: EventLog,
        sink: ProjectionSink,
        *,
        batch_size: int = 500,
        partition: int = 0,
        dead_letters: DeadLetters | None = None,
        raw_of: RawOf | None = None,
        backoff: Backoff | None = None,
        linger: float = 0.0,
    ) -> None:
        self.log = event_log
        self.sink = sink
        self.batch_size = batch_size
        self.linger = linger
        self.partition = partition
        self._position = sink.checkpoint(partition)
        self._cond = threading.Condition()
        # Requests waiting on an event loop: (position, their loop, future to resolve).
        self._async_waiters: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._idle = False
        # Set when a reader waits for a position, or on stop: ends a linger early.
        self._hurry = threading.Event()
        self._sync_waiters = 0
        self._raw_of = raw_of
        self.rewinds = 0  # times the view was found behind this tailer
        # Waits end early when the tailer is stopped; a synchronous catch-up (replay) has
        # no thread to stop, so the event is only set by ``stop``.
        self.policy = ApplyPolicy(sink, dead_letters, backoff=backoff, wait=self._stop.wait)

    @property
    def failures(self) -> int:
        return self.policy.failures

    @property
    def last_error(self) -> str | None:
        return self.policy.last_error

    @property
    def dead_lettered(self) -> int:
        return self.policy.dead_lettered

    @property
    def name(self) -> str:
        return self.sink.name if self.partition == 0 else f"{self.sink.name}/{self.partition}"

    @property
    def position(self) -> int:
        return self._position

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, name=f"projector-{self.name}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._hurry.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wait(self, position: int, timeout: float) -> bool:
        """True once this projection has applied ``position``; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            if self._position >= position:
                return True
            self._sync_waiters += 1
            self._hurry.set()
            try:
                while self._position < position:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._cond.wait(remaining)
            finally:
                self._sync_waiters -= 1
        return True

    def step(self) -> int:
        """Apply one batch; return how many events it covered (applied or dead-lettered).

        A view that lost what it was given (``Rewind``: an index process restarted from
        its last flush) moves this tailer back to the view's checkpoint: the log is read
        again from there, and nothing the view lost stays lost."""
        try:
            return self._step()
        except Rewind as e:
            with self._cond:
                if e.checkpoint < self._position:
                    log.warning("projection %s rewound: %s", self.name, e)
                    self._position = e.checkpoint
                    self.rewinds += 1
            return 0

    def _step(self) -> int:
        try:
            events = self.log.read(
                after=self._position, limit=self.batch_size, partition=self.partition
            )
        except UndecodableEvent as e:
            return self._dead_letter(e)
        if not events:
            self.policy.clear()
            return 0
        parents = EVENT_CONTEXTS.lookup(e.event.header.event_id for e in events)
        with batch_span("aimem.projection.apply", parents, self._span_attributes(events)):
            self.policy.apply(events, self.partition, self._raw_of)
        self._advance(events[-1].position)
        return len(events)

    def _span_attributes(self, events: list[LoggedEvent]) -> dict[str, str | int]:
        return {
            "aimem.projection": self.sink.name,
            "aimem.partition": self.partition,
            "aimem.events": len(events),
            "aimem.position.first": events[0].position,
            "aimem.position.last": events[-1].position,
        }

    def catch_up(self, progress: ProgressCallback | None = None) -> int:
        """Apply everything on the log now, synchronously (replay, tests, CLI)."""
        target = self.log.last_position(self.partition)
        applied = 0
        while self._position < target:
            rewinds = self.rewinds
            n = self.step()
            if n == 0 and self.rewinds == rewinds:
                break
            applied += n
            if progress:
                progress(n)
        return applied

    def rebuild(self, progress: ProgressCallback | None = None) -> int:
        """Throw the view away and replay this partition into it (one-partition logs;
        see ``rebuild_all`` for a partitioned log)."""
        return rebuild_all([self], progress)

    def rewind(self) -> None:
        with self._cond:
            self._position = 0

    def _dead_letter(self, error: UndecodableEvent) -> int:
        """Bytes no schema can read must not stop the projection: they are parked with
        the reason and the checkpoint moves past them. Logs report where the bad record
        is (``position``, ``raw``) when it is the first of a page."""
        position = getattr(error, "position", None)
        if not isinstance(position, int):
            raise error  # a log that cannot say where: surface it (retried by the loop)
        raw = getattr(error, "raw", b"")
        self.policy.park_undecodable(
            position, self.partition, raw if isinstance(raw, bytes) else b"", error
        )
        self._advance(position)
        return 1

    async def wait_async(self, position: int, timeout: float) -> bool:
        """``wait`` for the event loop: woken by the applying thread the moment the
        position is applied (no polling delay), holding no worker thread meanwhile."""
        loop = asyncio.get_running_loop()
        reached = loop.create_future()
        with self._cond:
            if self._position >= position:
                return True
            self._async_waiters.append((position, loop, reached))
            self._hurry.set()
        try:
            await asyncio.wait_for(asyncio.shield(reached), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            with self._cond:
                self._async_waiters = [w for w in self._async_waiters if w[2] is not reached]

    def _advance(self, position: int) -> None:
        with self._cond:
            self._position = position
            self._cond.notify_all()
            due = [w for w in self._async_waiters if w[0] <= position]
        for _, loop, reached in due:
            with contextlib.suppress(RuntimeError):  # that loop has closed meanwhile
                loop.call_soon_threadsafe(_resolve, reached)

    def _lingered(self) -> bool:
        """Wait ``linger`` after a small batch unless a reader waits for a position;
        True if it waited (then the next read comes at once)."""
        if self.linger <= 0:
            return False
        with self._cond:
            self._hurry.clear()
            # A stop that set ``_hurry`` just before the clear above has set ``_stop``
            # first: seen here, so it is never kept waiting the linger out.
            if self._sync_waiters or self._async_waiters or self._stop.is_set():
                return False
        self._hurry.wait(self.linger)
        return True

    def _run(self) -> None:
        backoff = 0.05
        quiet = False
        while not self._stop.is_set():
            try:
                # Read, unless the last wait found nothing: the log said there is
                # nothing to read. After a page that was not full, wait before reading
                # again: the wait answers at once if more is there, and on Kafka it is
                # the long poll whose events the next read takes, so a tailing projection
                # costs one fetch per commit, not a fetch and an end-offset request.
                if not quiet:
                    applied = self.step()
                    if applied > 0:
                        self._idle = False
                        backoff = 0.05
                    if applied >= self.batch_size:
                        continue
                    if 0 < applied < LINGER_BELOW and self._lingered():
                        continue  # read what arrived meanwhile, without waiting again
                quiet = not self.log.wait_for_events(
                    after=self._position, timeout=0.5, partition=self.partition
                )
                # Quiet for a while: make buffered work durable (an index flush can take
                # a tenth of a second, so never between two busy batches).
                if quiet and not self._idle:
                    self.sink.idle()
                    self._idle = True
                backoff = 0.05
            except Stopping:
                return
            except Exception as e:  # reading the log failed; the checkpoint did not move
                quiet = False
                self.policy.note_failure(self.partition, self._position, e)
                log.exception("projection %s failed at position %s", self.name, self._position)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 5.0)


def rebuild_all(tailers: list[ProjectionTailer], progress: ProgressCallback | None = None) -> int:
    """Reset the (shared) sink once, then replay every partition into it from 0."""
    if not tailers:
        return 0
    tailers[0].sink.reset()
    applied = 0
    for tailer in tailers:
        tailer.rewind()
        applied += tailer.catch_up(progress)
    return applied


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
