"""The one apply/retry/dead-letter policy of every projection driver.

Both drivers — the embedded tailer threads and the Kafka workers — hand each batch to
``ApplyPolicy.apply``, so an event is treated the same wherever it is projected:

* ``RetryableError`` (a store or the log is down): retry with capped backoff *forever*
  and report the projection as stuck. Nothing is dead-lettered because infrastructure is
  down — the events are fine and would all be lost to the dead-letter store otherwise.
* Any other exception: retry the batch a few times (a transient bug, a race), then
  isolate the poison by bisecting the batch — halves that apply are applied, in order; an
  event that fails on its own is dead-lettered with the reason and the error, and the
  sink's checkpoint moves past it with ``skip_to``. The rest of the batch is applied.
* Undecodable events never reach a sink: the driver hands them to ``park_undecodable``.
  A decode that fails because a store is down (opening a sealed event needs its key from
  the vault) is infrastructure, retried like a sink's failure (``decode``): never parked.
* A driver that reads the log itself (the Kafka workers) passes a ``guard``: it is called
  before every attempt of a batch and before every retry after a failure, and raises
  ``Rewind`` when the view's stored checkpoint is behind what this driver last applied —
  the store lost acknowledged writes (a single Cassandra node killed before its commit log
  was synced). Applying the batch then would move the checkpoint past the gap for good,
  so the policy gives the batch up and the driver re-reads the log from the stored
  checkpoint (never resume past what the view durably holds).

The policy blocks the calling thread while it waits; ``wait`` is injected (it returns
True when the driver is stopping) and so is the clock, so every decision is testable
without threads or real time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from ai_memory.core.errors import AiMemoryError, RetryableError, Rewind
from ai_memory.core.events import LoggedEvent
from ai_memory.core.ports import DeadLetter, DeadLetters

from .sinks import ProjectionSink

log = logging.getLogger(__name__)

# Failures of the machine, not of the event: adapters translate driver errors into
# RetryableError, and an OSError (disk full, connection reset) or MemoryError that slips
# through is infrastructure too — dead-lettering on it would park every healthy event.
INFRASTRUCTURE: tuple[type[BaseException], ...] = (RetryableError, OSError, MemoryError)

Wait = Callable[[float], bool]  # sleep up to n seconds; True when the driver is stopping
Now = Callable[[], datetime]
RawOf = Callable[[LoggedEvent], bytes]


Guard = Callable[[int], None]  # called with the partition; raises Rewind
T = TypeVar("T")


class Stopping(Exception):
    """The driver is stopping while the policy waits: the batch is not applied."""


@dataclass(frozen=True)
class Stuck:
    """A projection that cannot move: where, since when and why (for /healthz)."""

    partition: int
    position: int  # the first event of the batch that cannot be applied
    since: datetime
    error: str
    retryable: bool  # True: infrastructure is down; False: retrying before isolating
    attempts: int


@dataclass(frozen=True)
class Outcome:
    applied: int
    dead_lettered: tuple[int, ...] = ()


@dataclass(frozen=True)
class Backoff:
    initial: float = 0.05
    maximum: float = 5.0

    def delays(self) -> Callable[[], float]:
        """A function returning the next delay: doubling from ``initial`` up to ``maximum``."""
        current = self.initial

        def next_delay() -> float:
            nonlocal current
            delay, current = current, min(current * 2, self.maximum)
            return delay

        return next_delay


def error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def reason_of(error: BaseException) -> str:
    """A stable word for the dead-letter entry: the undecodable reason, or the error code
    prefixed by ``projection:`` (an unexpected exception is ``projection:<TypeName>``)."""
    undecodable = getattr(error, "reason", None)
    if isinstance(undecodable, str):
        return undecodable
    if isinstance(error, AiMemoryError):
        return f"projection:{error.code}"
    return f"projection:{type(error).__name__}"


def _sleep(seconds: float) -> bool:
    time.sleep(seconds)
    return False


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ApplyPolicy:
    """Applies batches of one projection through its sink; see the module docstring."""

    def __init__(
        self,
        sink: ProjectionSink,
        dead_letters: DeadLetters | None,
        *,
        retries: int = 3,
        backoff: Backoff | None = None,
        wait: Wait = _sleep,
        now: Now = _utcnow,
        guard: Guard | None = None,
    ) -> None:
        self.sink = sink
        self.guard = guard
        self.dead_letters = dead_letters
        self.retries = max(1, retries)
        self.backoff = backoff or Backoff()
        self.wait = wait
        self.now = now
        self.failures = 0  # failed attempts so far (a metric)
        self.dead_lettered = 0  # events parked by this policy (a metric)
        self.dead_lettered_by_reason: dict[str, int] = {}
        self.last_error: str | None = None
        self._stuck: Stuck | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.sink.name

    @property
    def stuck(self) -> Stuck | None:
        with self._lock:
            return self._stuck

    def apply(
        self,
        events: Sequence[LoggedEvent],
        partition: int = 0,
        raw: Mapping[int, bytes] | RawOf | None = None,
    ) -> Outcome:
        """Apply a batch of one partition, in order; return once every event is either
        applied or dead-lettered (the sink's checkpoint is then past the last one).

        ``raw``: the events' original bytes by position (or a function of the event), kept
        in the dead-letter entry. Raises ``Stopping`` if the driver stops meanwhile and
        ``Rewind`` if the guard finds the view behind."""
        if not events:
            return Outcome(0)
        parked: list[int] = []
        try:
            self._apply_retrying(events, partition)
        except (Stopping, Rewind):
            raise
        except Exception as first:
            log.warning(
                "projection %s: batch at %s fails (%s); isolating the event(s) that fail",
                self.name,
                events[0].position,
                error_text(first),
            )
            self._isolate(events, partition, raw, parked, first)
        self.clear()
        return Outcome(len(events) - len(parked), tuple(parked))

    def decode(self, decode: Callable[[], T], position: int, partition: int) -> T:
        """Run ``decode``, retrying infrastructure failures forever, like a sink's.

        Decoding a sealed event opens its data key, and the vault is a store: when it is
        unreachable (a Cassandra node just killed: "replica(s) failed to execute read")
        the event is fine and must wait, not be parked as undecodable — parking it lost an
        acknowledged write from the view. Any other failure is the bytes' own and is
        raised for the driver to ``park_undecodable``."""
        return self._settle(decode, position, partition)

    def park_undecodable(
        self, position: int, partition: int, raw: bytes, error: BaseException
    ) -> None:
        """Dead-letter bytes no schema can read and move the checkpoint past them."""
        self._park(position, partition, raw, error, attempts=1)
        self._settle(lambda: self.sink.skip_to(position, partition), position, partition)

    def note_failure(self, partition: int, position: int, error: BaseException) -> None:
        """A failure outside a batch (reading the log): the projection is stuck."""
        self._mark(partition, position, error, isinstance(error, INFRASTRUCTURE), 1)

    # --- internals -----------------------------------------------------------------

    def _apply_retrying(self, events: Sequence[LoggedEvent], partition: int) -> None:
        """Apply, retrying infrastructure failures forever and any other failure
        ``retries`` times; re-raise the last non-retryable error."""
        delay = self.backoff.delays()
        attempts = 0
        position = events[0].position
        while True:
            try:
                if self.guard is not None:
                    self.guard(partition)
                self.sink.apply(events, partition)
                return
            except Rewind:
                raise
            except INFRASTRUCTURE as e:
                attempts += 1
                self._mark(partition, position, e, True, attempts)
                self._pause(delay())
            except Exception as e:
                attempts += 1
                self._mark(partition, position, e, False, attempts)
                if attempts >= self.retries:
                    raise
                self._pause(delay())

    def _isolate(
        self,
        events: Sequence[LoggedEvent],
        partition: int,
        raw: Mapping[int, bytes] | RawOf | None,
        parked: list[int],
        error: BaseException,
    ) -> None:
        """Bisect: the left half is settled before the right one, so events are applied
        in log order and the checkpoint only moves forward."""
        if len(events) == 1:
            event = events[0]
            parked.append(event.position)
            self._park(event.position, partition, _raw(raw, event), error, self.retries)
            self._settle(
                lambda: self.sink.skip_to(event.position, partition), event.position, partition
            )
            return
        middle = len(events) // 2
        for half in (events[:middle], events[middle:]):
            try:
                self._apply_infra_retrying(half, partition)
            except (Stopping, Rewind):
                raise
            except Exception as e:
                self._isolate(half, partition, raw, parked, e)

    def _apply_infra_retrying(self, events: Sequence[LoggedEvent], partition: int) -> None:
        """Apply once more while isolating: the whole batch already had its retries, so
        only an infrastructure failure is retried here."""
        self._settle(lambda: self.sink.apply(events, partition), events[0].position, partition)

    def _settle(self, action: Callable[[], T], position: int, partition: int) -> T:
        """Run ``action`` and return what it returns, retrying only infrastructure
        failures (forever); after a failure the guard checks the view first."""
        delay = self.backoff.delays()
        attempts = 0
        while True:
            try:
                if attempts and self.guard is not None:
                    self.guard(partition)
                return action()
            except INFRASTRUCTURE as e:
                attempts += 1
                self._mark(partition, position, e, True, attempts)
                self._pause(delay())

    def _park(
        self, position: int, partition: int, raw: bytes, error: BaseException, attempts: int
    ) -> None:
        now = self.now()
        letter = DeadLetter(
            projection=self.name,
            position=position,
            partition=partition,
            reason=reason_of(error),
            error=error_text(error),
            raw=raw,
            attempts=attempts,
            first_failed_at=now,
            last_failed_at=now,
        )
        log.error(
            "projection %s: dead-lettering position %s (%s): %s",
            self.name,
            position,
            letter.reason,
            letter.error,
        )
        if self.dead_letters is None:
            # Without a dead-letter store the event is skipped with only this log line:
            # a projection that stops forever is worse than one event missing from a view.
            log.error("projection %s: no dead-letter store, %s skipped", self.name, position)
        else:
            self._settle(lambda: self._put(letter), position, partition)
        self.dead_lettered += 1
        reasons = self.dead_lettered_by_reason
        reasons[letter.reason] = reasons.get(letter.reason, 0) + 1

    def _put(self, letter: DeadLetter) -> None:
        assert self.dead_letters is not None
        self.dead_letters.put(letter)

    def _mark(
        self, partition: int, position: int, error: BaseException, retryable: bool, attempts: int
    ) -> None:
        self.failures += 1
        text = error_text(error)
        self.last_error = text
        log.warning(
            "projection %s failed at position %s (attempt %d, %s): %s",
            self.name,
            position,
            attempts,
            "retrying" if retryable else "will isolate",
            text,
        )
        with self._lock:
            # "Since" is when this position started failing, not the latest attempt.
            same = self._stuck is not None and self._stuck.position == position
            since = self._stuck.since if same and self._stuck is not None else self.now()
            self._stuck = Stuck(partition, position, since, text, retryable, attempts)

    def clear(self) -> None:
        """The projection moved: it is no longer stuck."""
        with self._lock:
            self._stuck = None

    def _pause(self, seconds: float) -> None:
        if self.wait(seconds):
            raise Stopping(f"projection {self.name} is stopping")


def _raw(raw: Mapping[int, bytes] | RawOf | None, event: LoggedEvent) -> bytes:
    if raw is None:
        return b""
    if callable(raw):
        try:
            return raw(event)
        except Exception:  # an event that cannot be re-encoded is parked without bytes
            log.exception("cannot encode the event at position %s", event.position)
            return b""
    return raw.get(event.position, b"")


__all__ = ["ApplyPolicy", "Backoff", "Guard", "Outcome", "Rewind", "Stopping", "Stuck"]
