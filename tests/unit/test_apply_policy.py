"""The shared apply/retry/dead-letter policy, without threads or real time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_dead_letters import SqliteDeadLetters
from ai_memory.core.errors import PermanentError, Unavailable
from ai_memory.core.events import LoggedEvent, MemoryWritten
from ai_memory.projector.policy import ApplyPolicy, Backoff, Stopping
from ai_memory.serialization import UndecodableEvent
from tests.factories import T0, record, written


class FakeSink:
    """Applies batches into a list; events of ``poison`` ids fail in any batch."""

    name = "index"

    def __init__(
        self, *, poison: Sequence[str] = (), down: int = 0, flaky: int = 0, crash: bool = False
    ) -> None:
        self.poison = set(poison)
        self.down = down  # the next ``down`` applies raise Unavailable
        self.flaky = flaky  # the next ``flaky`` applies raise a non-retryable error
        self.crash = crash  # poison raises a bare ValueError instead of a PermanentError
        self.disk_full = 0  # the next ``disk_full`` applies raise an unwrapped OSError
        self.applied: list[int] = []
        self.checkpoints: list[int] = []
        self.calls = 0

    def checkpoint(self, partition: int = 0) -> int:
        return max(self.checkpoints, default=0)

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        self.calls += 1
        if self.down:
            self.down -= 1
            raise Unavailable("index is down")
        if self.disk_full:
            self.disk_full -= 1
            raise OSError(28, "No space left on device")
        if self.flaky:
            self.flaky -= 1
            raise RuntimeError("transient")
        for e in events:
            if isinstance(e.event, MemoryWritten) and e.event.record.id in self.poison:
                if self.crash:
                    raise ValueError("year 10000 is out of range")
                raise PermanentError("cannot index", code="bad_event")
        self.applied += [e.position for e in events]
        self.checkpoints.append(events[-1].position)

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.checkpoints.append(position)

    def idle(self) -> None: ...


class Waits:
    """The injected sleep: records delays; says "stop" after ``limit`` waits."""

    def __init__(self, limit: int = 1000) -> None:
        self.delays: list[float] = []
        self.limit = limit

    def __call__(self, seconds: float) -> bool:
        self.delays.append(seconds)
        return len(self.delays) >= self.limit


def batch(*ids: str) -> list[LoggedEvent]:
    return [LoggedEvent(i + 1, written(record(mid))) for i, mid in enumerate(ids)]


@pytest.fixture
def dlq(tmp_path: Path) -> Iterator[SqliteDeadLetters]:
    store = SqliteDeadLetters(tmp_path / "dead_letters.db")
    yield store
    store.close()


def policy(sink: FakeSink, dlq: SqliteDeadLetters, waits: Waits) -> ApplyPolicy:
    return ApplyPolicy(sink, dlq, retries=3, backoff=Backoff(0.1, 1.0), wait=waits, now=lambda: T0)


def test_a_clean_batch_is_applied_once(dlq: SqliteDeadLetters) -> None:
    sink, waits = FakeSink(), Waits()
    outcome = policy(sink, dlq, waits).apply(batch("a", "b", "c"))
    assert sink.applied == [1, 2, 3] and sink.calls == 1
    assert outcome.applied == 3 and outcome.dead_lettered == ()
    assert waits.delays == []


def test_infrastructure_failures_are_retried_with_capped_backoff_never_dead_lettered(
    dlq: SqliteDeadLetters,
) -> None:
    sink, waits = FakeSink(down=7), Waits()
    p = policy(sink, dlq, waits)
    seen: list[object] = []
    p.wait = lambda s: seen.append(p.stuck) or waits(s)  # type: ignore[func-returns-value]
    p.apply(batch("a", "b"))
    assert sink.applied == [1, 2]
    assert dlq.entries() == []
    assert waits.delays == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    stuck = seen[-1]
    assert stuck is not None and stuck.retryable and stuck.position == 1  # type: ignore[attr-defined]
    assert "index is down" in stuck.error  # type: ignore[attr-defined]
    assert p.stuck is None  # moving again clears it


def test_a_store_that_stays_down_keeps_the_projection_stuck_until_it_stops(
    dlq: SqliteDeadLetters,
) -> None:
    sink, waits = FakeSink(down=10**9), Waits(limit=50)
    p = policy(sink, dlq, waits)
    with pytest.raises(Stopping):
        p.apply(batch("a", "poison"))
    assert sink.applied == [] and sink.checkpoints == []
    assert dlq.entries() == []  # far more tries than ``retries``, still nothing parked
    assert p.stuck is not None and p.stuck.retryable and p.stuck.attempts == 50


def test_an_unwrapped_os_error_is_infrastructure_not_poison(dlq: SqliteDeadLetters) -> None:
    """A disk that fills up must not dead-letter every healthy event of the log."""
    sink, waits = FakeSink(), Waits()
    sink.disk_full = 20  # far more than ``retries``
    p = policy(sink, dlq, waits)
    p.apply(batch("a", "b", "c"))
    assert sink.applied == [1, 2, 3]
    assert dlq.entries() == []
    assert len(waits.delays) == 20


def test_a_poison_event_in_the_middle_is_isolated_and_the_rest_applied_in_order(
    dlq: SqliteDeadLetters,
) -> None:
    sink, waits = FakeSink(poison=["bad"]), Waits()
    p = policy(sink, dlq, waits)
    events = batch("a", "b", "c", "bad", "e", "f", "g")
    outcome = p.apply(events, raw={4: b"the original bytes"})
    assert sink.applied == [1, 2, 3, 5, 6, 7]  # each once, in log order
    assert sink.checkpoints == sorted(sink.checkpoints)  # never moves backwards
    assert sink.checkpoint() == 7
    assert outcome.dead_lettered == (4,) and outcome.applied == 6
    (entry,) = dlq.entries()
    assert (entry.projection, entry.position, entry.partition) == ("index", 4, 0)
    assert entry.reason == "projection:bad_event" and "cannot index" in entry.error
    assert entry.raw == b"the original bytes" and entry.attempts == 3
    assert entry.first_failed_at == T0
    assert waits.delays == [0.1, 0.2]  # the batch's retries, then isolation without waits
    assert p.stuck is None and p.dead_lettered == 1


def test_a_poison_event_last_in_the_batch_moves_the_checkpoint_past_it(
    dlq: SqliteDeadLetters,
) -> None:
    sink = FakeSink(poison=["bad"], crash=True)
    policy(sink, dlq, Waits()).apply(batch("a", "b", "bad"))
    assert sink.applied == [1, 2] and sink.checkpoint() == 3
    (entry,) = dlq.entries()
    assert entry.position == 3 and entry.reason == "projection:ValueError"
    assert entry.error == "ValueError: year 10000 is out of range"


def test_several_poison_events_are_each_dead_lettered(dlq: SqliteDeadLetters) -> None:
    sink = FakeSink(poison=["x", "y"])
    events = batch("x", "a", "b", "y", "c")
    policy(sink, dlq, Waits()).apply(events, raw=lambda e: f"raw{e.position}".encode())
    assert sink.applied == [2, 3, 5] and sink.checkpoint() == 5
    assert [(e.position, e.raw) for e in dlq.entries()] == [(1, b"raw1"), (4, b"raw4")]


def test_a_transient_failure_is_retried_before_anything_is_isolated(
    dlq: SqliteDeadLetters,
) -> None:
    sink, waits = FakeSink(flaky=2), Waits()
    policy(sink, dlq, waits).apply(batch("a", "b"))
    assert sink.applied == [1, 2] and dlq.entries() == []
    assert waits.delays == [0.1, 0.2]


def test_infrastructure_failing_while_isolating_is_retried_not_dead_lettered(
    dlq: SqliteDeadLetters,
) -> None:
    class DownAfterPoison(FakeSink):
        def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
            if self.calls == 3:  # the batch failed 3 times; now the store goes down
                self.down = 4
            super().apply(events, partition)

    sink = DownAfterPoison(poison=["bad"])
    policy(sink, dlq, Waits()).apply(batch("a", "bad", "c", "d"))
    assert sink.applied == [1, 3, 4]
    assert [e.position for e in dlq.entries()] == [2]


def test_undecodable_bytes_are_parked_and_skipped(dlq: SqliteDeadLetters) -> None:
    sink = FakeSink()
    p = policy(sink, dlq, Waits())
    p.park_undecodable(9, 0, b"\x00junk", UndecodableEvent("bad_magic", "not an Avro frame"))
    assert sink.checkpoint() == 9
    (entry,) = dlq.entries()
    assert (entry.reason, entry.raw, entry.position) == ("bad_magic", b"\x00junk", 9)
