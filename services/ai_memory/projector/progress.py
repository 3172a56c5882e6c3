"""Where each projection is, and waiting for a log position (read-your-writes).

A projection is driven either in this process (tailers, one per partition, which notify
waiters directly) or by external workers (``ai-memory project``), whose progress is read
from the checkpoints they store with their view. Positions are per partition, so a wait
asks the projection about the partition the position belongs to.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from ai_memory.core import positions
from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import DeadLetter, DeadLetters, EventLog
from ai_memory.service.dead_letters import Redrive, Redriven
from ai_memory.service.health import DriverState

from .redrive import redrive
from .sinks import ProjectionSink
from .tailer import ProjectionTailer

_POLL_SECONDS = 0.02


@dataclass(frozen=True)
class ProjectionStatus:
    projection: str
    partition: int
    position: int
    head: int
    lag: int  # events of this partition not applied yet
    in_process: bool


@dataclass
class Projections:
    log: EventLog
    packed_positions: bool = False  # True on a partitioned log (see core.positions)
    tailers: list[ProjectionTailer] = field(default_factory=list)
    external: list[ProjectionSink] = field(default_factory=list)

    def wait(self, position: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        partition = positions.partition_of(position) if self.packed_positions else 0
        for tailer in self.tailers:
            if tailer.partition == partition and not tailer.wait(
                position, max(0.0, deadline - time.monotonic())
            ):
                return False
        for sink in self.external:
            while sink.checkpoint(partition) < position:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(_POLL_SECONDS)
        return True

    async def wait_async(self, position: int, timeout: float) -> bool:
        """``wait`` for the event loop: polls instead of blocking, so a waiting request
        holds a timer, not a worker thread (the pool stays free for /healthz and reads)."""
        deadline = time.monotonic() + timeout
        partition = positions.partition_of(position) if self.packed_positions else 0
        for tailer in self.tailers:  # in-process: woken by the tailer, no polling
            if tailer.partition == partition and not await tailer.wait_async(
                position, max(0.0, deadline - time.monotonic())
            ):
                return False
        delay = 0.001
        while not await self._reached(partition, position):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_SECONDS)
        return True

    async def _reached(self, partition: int, position: int) -> bool:
        if any(t.partition == partition and t.position < position for t in self.tailers):
            return False
        for sink in self.external:
            # A stored checkpoint is I/O: read it on a thread for a moment, not the loop.
            if await asyncio.to_thread(sink.checkpoint, partition) < position:
                return False
        return True

    def beyond_head(self, position: int) -> bool:
        """True when no event has that position yet: a wait for it could only time out."""
        partition = positions.partition_of(position) if self.packed_positions else 0
        if partition not in self.log.partitions():
            return True
        head = self.log.last_position(partition)
        if not self.packed_positions:
            return position > head
        return head == 0 or positions.offset_of(position) > positions.offset_of(head)

    def status(self) -> list[ProjectionStatus]:
        heads = {p: self.log.last_position(p) for p in self.log.partitions()}
        rows = [(t.sink.name, t.partition, t.position, True) for t in self.tailers]
        rows += [(sink.name, p, sink.checkpoint(p), False) for sink in self.external for p in heads]
        return [
            ProjectionStatus(name, p, pos, heads.get(p, 0), self._lag(heads.get(p, 0), pos), local)
            for name, p, pos, local in rows
        ]

    def _lag(self, head: int, position: int) -> int:
        if head <= position:
            return 0
        if not self.packed_positions:
            return head - position
        return positions.offset_of(head) - (positions.offset_of(position) if position else -1)

    def start(self) -> None:
        for tailer in self.tailers:
            tailer.start()

    def drain(self, timeout: float) -> None:
        """Graceful shutdown: give running in-process tailers the chance to apply what
        is on the log now (what they miss is applied after the next start)."""
        deadline = time.monotonic() + timeout
        for tailer in self.tailers:
            if tailer.running:
                head = self.log.last_position(tailer.partition)
                tailer.wait(head, max(0.0, deadline - time.monotonic()))

    def stop(self) -> None:
        for tailer in self.tailers:
            tailer.stop()

    def catch_up(self) -> None:
        """Apply, synchronously, everything on the log to the views driven here (a tool
        that decides on the whole log before its first step, as the governor does)."""
        for tailer in self.tailers:
            tailer.catch_up()

    def driver_states(self) -> list[DriverState]:
        """What health and metrics report of the projections driven in this process."""
        return [_driver_state(t) for t in self.tailers]

    def redriver(self, projection: str, dead_letters: DeadLetters) -> Redrive:
        """Re-driving ``projection``'s dead letters through its sink in this process."""
        sinks = [t.sink for t in self.tailers] + self.external
        sink = next((s for s in sinks if s.name == projection), None)
        if sink is None:
            raise InvalidInput(
                "projection", "absent", f"no {projection} projection in this deployment"
            )

        def one(letter: DeadLetter) -> Redriven:
            done = redrive(letter, self.log, sink, dead_letters, packed=self.packed_positions)
            return Redriven(done.letter, done.resolved, done.error)

        return one

    def by_sink(self) -> dict[str, list[ProjectionTailer]]:
        grouped: dict[str, list[ProjectionTailer]] = {}
        for tailer in self.tailers:
            grouped.setdefault(tailer.sink.name, []).append(tailer)
        return grouped


def _driver_state(tailer: ProjectionTailer) -> DriverState:
    stuck = tailer.policy.stuck
    return DriverState(
        name=tailer.name,
        projection=tailer.sink.name,
        partition=tailer.partition,
        failures=tailer.failures,
        stuck=None
        if stuck is None
        else {
            "partition": stuck.partition,
            "position": stuck.position,
            "since": stuck.since.isoformat().replace("+00:00", "Z"),
            "attempts": stuck.attempts,
            "retryable": stuck.retryable,
            "last_error": stuck.error,
        },
        dead_lettered_by_reason=dict(tailer.policy.dead_lettered_by_reason),
    )
