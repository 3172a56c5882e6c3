"""The Kafka worker's body without a broker: batching by partition, the shared
apply/retry/dead-letter policy, dead letters through the port, and its metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from ai_memory.adapters.sqlite_dead_letters import SqliteDeadLetters
from ai_memory.core.errors import PermanentError, Unavailable
from ai_memory.core.events import LoggedEvent, MemoryWritten
from ai_memory.core.positions import pack
from ai_memory.projector.policy import Backoff, Rewind
from ai_memory.projector.worker import ProjectorWorker
from ai_memory.serialization import AvroEventSerializer
from tests.factories import record, written

SERIALIZER = AvroEventSerializer()
FAST = Backoff(0.001, 0.002)


class RecordingSink:
    """Records what it was asked to apply and where its checkpoint is; can fail."""

    name = "records"

    def __init__(self, *, fail_times: int = 0, poison: str | None = None) -> None:
        self.applied: list[tuple[int, list[int]]] = []
        self.skipped: list[int] = []
        self.fail_times = fail_times
        self.poison = poison

    def checkpoint(self, partition: int = 0) -> int:
        return 0

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        if self.fail_times:
            self.fail_times -= 1
            raise Unavailable("store down", retry_after=0.01)
        for e in events:
            if isinstance(e.event, MemoryWritten) and e.event.record.id == self.poison:
                raise PermanentError("cannot project this", code="bad_event")
        self.applied.append((partition, [e.position for e in events]))

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.skipped.append(position)

    def idle(self) -> None: ...


@pytest.fixture
def dlq(tmp_path: Path) -> Iterator[SqliteDeadLetters]:
    store = SqliteDeadLetters(tmp_path / "dlq.db")
    yield store
    store.close()


def message(partition: int, offset: int, memory_id: str) -> tuple[int, int, bytes]:
    return partition, offset, SERIALIZER.encode(written(record(memory_id)))


def run(worker: ProjectorWorker, messages: list[tuple[int, int, bytes]]) -> str:
    asyncio.run(worker.handle(messages))
    metrics = generate_latest(worker.metrics.registry).decode()
    worker.executor.shutdown(wait=True)
    return metrics


def test_batches_are_applied_per_partition_in_offset_order(dlq: SqliteDeadLetters) -> None:
    sink = RecordingSink()
    run(
        ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST),
        [message(0, 5, "a"), message(1, 0, "b"), message(0, 6, "c")],
    )
    assert sink.applied == [(0, [pack(0, 5), pack(0, 6)]), (1, [pack(1, 0)])]
    assert dlq.entries() == []


def test_undecodable_events_are_dead_lettered_in_order_and_the_rest_applied(
    dlq: SqliteDeadLetters,
) -> None:
    sink = RecordingSink()
    junk = b"this is not an avro frame at all"
    metrics = run(
        ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST),
        [message(0, 0, "a"), (0, 1, junk), message(0, 2, "b")],
    )
    # What precedes the bad bytes is applied before the checkpoint skips past them.
    assert sink.applied == [(0, [pack(0, 0)]), (0, [pack(0, 2)])]
    assert sink.skipped == [pack(0, 1)]
    (entry,) = dlq.entries()
    assert entry.raw == junk and entry.reason == "bad_magic" and entry.position == pack(0, 1)
    assert entry.projection == "records" and entry.partition == 0
    assert 'aimem_dead_lettered_events_total{projection="records",reason="bad_magic"} 1.0' in (
        metrics
    )


def test_retryable_failures_are_retried_until_applied_and_never_dead_lettered(
    dlq: SqliteDeadLetters,
) -> None:
    sink = RecordingSink(fail_times=5)
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)
    metrics = run(worker, [message(2, 9, "a")])
    assert sink.applied == [(2, [pack(2, 9)])]
    assert worker.failures == 5 and dlq.entries() == []
    assert 'aimem_projection_stuck{partition="2",projection="records"} 0.0' in metrics


def test_a_poison_event_is_isolated_dead_lettered_with_its_bytes_and_skipped(
    dlq: SqliteDeadLetters,
) -> None:
    sink = RecordingSink(poison="bad")
    bad = message(0, 1, "bad")
    run(
        ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST),
        [message(0, 0, "a"), bad, message(0, 2, "c")],
    )
    assert [p for _, batch in sink.applied for p in batch] == [pack(0, 0), pack(0, 2)]
    assert sink.skipped == [pack(0, 1)]
    (entry,) = dlq.entries()
    assert (entry.reason, entry.position, entry.raw) == ("projection:bad_event", pack(0, 1), bad[2])
    assert "cannot project this" in entry.error


def test_a_stuck_worker_reports_it_and_stops_when_closed(dlq: SqliteDeadLetters) -> None:
    sink = RecordingSink(fail_times=10**9)
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)

    async def scenario() -> str:
        task = asyncio.ensure_future(worker.handle([message(3, 0, "a")]))
        while worker.policy.stuck is None:
            await asyncio.sleep(0.01)
        metrics = generate_latest(worker.metrics.registry).decode()
        worker._stopping.set()  # what close() does first
        with pytest.raises(Exception, match="stopping"):
            await task
        return metrics

    metrics = asyncio.run(scenario())
    worker.close()
    assert 'aimem_projection_stuck{partition="3",projection="records"} 1.0' in metrics
    assert sink.applied == [] and dlq.entries() == []


class LossySink:
    """A view with durable state that can "lose" its last applied batch, as a single
    Cassandra node killed before its commit log was synced loses acknowledged writes."""

    name = "records"

    def __init__(self) -> None:
        self.rows: dict[int, int] = {}  # position -> partition
        self.checkpoints: dict[int, int] = {}
        self._undo: tuple[list[int], int, int] | None = None
        self.down = 0

    def checkpoint(self, partition: int = 0) -> int:
        return self.checkpoints.get(partition, 0)

    def apply(self, events: Sequence[LoggedEvent], partition: int = 0) -> None:
        if self.down:
            self.down -= 1
            raise Unavailable("store restarting", retry_after=0.01)
        self._undo = ([e.position for e in events], partition, self.checkpoint(partition))
        for e in events:
            self.rows[e.position] = partition
        self.checkpoints[partition] = events[-1].position

    def lose_last_batch(self) -> None:
        assert self._undo is not None
        positions, partition, before = self._undo
        for position in positions:
            self.rows.pop(position, None)
        self.checkpoints[partition] = before

    def reset(self) -> None: ...

    def skip_to(self, position: int, partition: int = 0) -> None:
        self.checkpoints[partition] = position

    def idle(self) -> None: ...


def test_a_view_that_lost_its_last_batch_is_rewound_to_its_own_checkpoint(
    dlq: SqliteDeadLetters,
) -> None:
    sink = LossySink()
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)

    async def scenario() -> None:
        assert await worker.resume_offset(0) == 0
        await worker.handle([message(0, n, f"m{n}") for n in range(3)])
        await worker.handle([message(0, n, f"m{n}") for n in range(3, 5)])
        sink.lose_last_batch()  # the store came back without offsets 3 and 4
        # The next batch would move the checkpoint past the gap: it is refused instead.
        with pytest.raises(Rewind) as rewound:
            await worker.handle([message(0, 5, "m5")])
        assert (rewound.value.checkpoint, rewound.value.expected) == (pack(0, 2), pack(0, 4))
        assert pack(0, 5) not in sink.rows
        # Where the driver seeks: the event after what the view durably holds.
        assert await worker.resume_offset(0) == 3
        await worker.handle([message(0, n, f"m{n}") for n in range(3, 6)])

    asyncio.run(scenario())
    worker.close()
    assert sorted(sink.rows) == [pack(0, n) for n in range(6)]
    assert sink.checkpoint(0) == pack(0, 5) and worker.rewinds == 1


def test_a_store_that_fails_and_comes_back_behind_is_caught_before_the_retry(
    dlq: SqliteDeadLetters,
) -> None:
    sink = LossySink()
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)

    async def scenario() -> None:
        await worker.resume_offset(1)
        await worker.handle([message(1, 0, "a"), message(1, 1, "b")])
        sink.lose_last_batch()
        sink.down = 2  # the crash shows up as failures of the next batch first
        with pytest.raises(Rewind):
            await worker.handle([message(1, 2, "c")])

    asyncio.run(scenario())
    worker.close()
    assert sink.rows == {} and sink.checkpoint(1) == 0 and dlq.entries() == []


def test_partitions_not_resumed_by_this_worker_are_not_guarded(dlq: SqliteDeadLetters) -> None:
    sink = LossySink()
    sink.checkpoints[0] = pack(0, 9)  # another worker's progress; nothing was held here
    run(ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST), [message(0, 10, "a")])
    assert sink.checkpoint(0) == pack(0, 10)


class FakeConsumer:
    """Faust's consumer as the runner sees it: an assignment and high watermarks."""

    def __init__(self, assigned: set[object]) -> None:
        self.assigned = assigned

    def assignment(self) -> set[object]:
        return set(self.assigned)

    def highwater(self, tp: object) -> int:
        assert tp in self.assigned, "Partition is not assigned"
        return 10


def faust_event(partition: int, offset: int, memory_id: str, generation: int) -> object:
    from types import SimpleNamespace

    _, _, value = message(partition, offset, memory_id)
    return SimpleNamespace(
        message=SimpleNamespace(
            partition=partition, offset=offset, value=value, generation_id=generation
        )
    )


def runner_for(worker: ProjectorWorker, assigned: set[object]) -> tuple[object, list[str]]:
    from types import SimpleNamespace

    from ai_memory.projector.faust_worker import ProjectorRunner

    app = SimpleNamespace(consumer_generation_id=2, consumer=FakeConsumer(assigned))
    runner = ProjectorRunner(app, "t", worker)  # type: ignore[arg-type]
    rejoins: list[str] = []

    async def rejoin(why: str, *, now: bool = False) -> None:
        rejoins.append(why)

    runner.rejoin = rejoin  # type: ignore[method-assign]
    return runner, rejoins


def test_faust_events_of_an_older_generation_or_an_unresumed_partition_are_never_applied(
    dlq: SqliteDeadLetters,
) -> None:
    from faust.types import TP

    sink = RecordingSink()
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)
    runner, rejoins = runner_for(worker, {TP("t", 0)})

    async def scenario() -> None:
        assert await runner.resume_offsets({TP("t", 0), TP("other", 3)}) == {TP("t", 0): 0}
        await runner.apply(
            [
                faust_event(0, 7, "stale", generation=1),  # fetched before the rebalance
                faust_event(0, 0, "a", generation=2),
                faust_event(1, 4, "b", generation=2),  # never resumed here
            ]
        )

    asyncio.run(scenario())
    worker.executor.shutdown(wait=True)
    assert sink.applied == [(0, [pack(0, 0)])]
    assert len(rejoins) == 1  # the group is asked to seek partition 1 through its view


def test_a_rewind_in_the_faust_runner_unresumes_every_partition_and_asks_a_rebalance(
    dlq: SqliteDeadLetters,
) -> None:
    from faust.types import TP

    sink = LossySink()
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)
    runner, rejoins = runner_for(worker, {TP("t", 0)})

    async def scenario() -> None:
        await runner.resume_offsets({TP("t", 0)})
        await runner.apply([faust_event(0, n, f"m{n}", 2) for n in range(3)])
        sink.lose_last_batch()
        await runner.apply([faust_event(0, 3, "m3", 2)])  # would skip the gap
        assert rejoins and not worker.resumed(0)
        await runner.apply([faust_event(0, 4, "m4", 2)])  # still past the gap: dropped
        assert await runner.resume_offsets({TP("t", 0)}) == {TP("t", 0): 0}
        await runner.apply([faust_event(0, n, f"m{n}", 2) for n in range(5)])

    asyncio.run(scenario())
    worker.executor.shutdown(wait=True)
    assert sorted(sink.rows) == [pack(0, n) for n in range(5)]


class VaultDownAtFirst:
    """A serializer whose decoding fails like a vault that is unreachable (the key of a
    sealed event cannot be read), ``times`` times, then decodes."""

    def __init__(self, times: int) -> None:
        self.times = times

    def decode(self, data: bytes) -> object:
        if self.times:
            self.times -= 1
            raise Unavailable("cassandra error: Replica(s) failed to execute read")
        return SERIALIZER.decode(data)

    def decode_many(self, datas: list[bytes]) -> list[object]:
        # The batch's key read fails as the vault is down; each event then meets it again.
        down = Unavailable("cassandra error: Replica(s) failed to execute read")
        return [down if self.times else SERIALIZER.decode(d) for d in datas]


def test_a_vault_down_while_decoding_is_waited_out_never_dead_lettered(
    dlq: SqliteDeadLetters,
) -> None:
    """An acknowledged write was lost this way: the worker parked an event whose key it
    could not read while one Cassandra node of three was being killed."""
    sink = RecordingSink()
    worker = ProjectorWorker(sink, VaultDownAtFirst(4), dlq, backoff=FAST)  # type: ignore[arg-type]
    metrics = run(worker, [message(0, 0, "a"), message(0, 1, "b")])
    assert sink.applied == [(0, [pack(0, 0), pack(0, 1)])]
    assert dlq.entries() == [] and sink.skipped == []
    assert worker.failures == 4
    assert 'aimem_projection_stuck{partition="0",projection="records"} 0.0' in metrics


def test_faust_keeps_its_data_directory_out_of_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Faust's default data directory is ``<app id>-data`` in the working directory:
    every worker run left one behind wherever it was started."""
    from ai_memory.adapters.kafka.config import KafkaLogConfig
    from ai_memory.projector.faust_worker import app_settings

    monkeypatch.chdir(tmp_path)
    settings = app_settings(KafkaLogConfig(bootstrap="127.0.0.1:9", topic="t"), "c")
    datadir = Path(settings["datadir"])
    assert datadir.is_dir() and not datadir.is_relative_to(tmp_path)
    assert datadir.stat().st_mode & 0o777 == 0o700  # private, like every data file
    assert list(tmp_path.iterdir()) == []


def test_every_resume_reads_the_views_checkpoint_from_the_store(dlq: SqliteDeadLetters) -> None:
    """Each assignment asks the view, never a checkpoint this worker remembers: the
    Cassandra records store forgets the read counts of a partition another worker moved
    when it sees that read (``adapters/cassandra/read_count_cache.py``)."""
    from faust.types import TP

    class Counting(LossySink):
        def __init__(self) -> None:
            super().__init__()
            self.reads: list[int] = []

        def checkpoint(self, partition: int = 0) -> int:
            self.reads.append(partition)
            return super().checkpoint(partition)

    sink = Counting()
    worker = ProjectorWorker(sink, SERIALIZER, dlq, backoff=FAST)
    runner, _ = runner_for(worker, {TP("t", 0), TP("t", 1)})

    async def scenario() -> None:
        await runner.resume_offsets({TP("t", 0), TP("t", 1)})
        await runner.apply([faust_event(0, 0, "a", 2)])
        await runner.revoked({TP("t", 0)})
        sink.checkpoints[0] = pack(0, 7)  # another worker projected it meanwhile
        sink.reads.clear()
        assert await runner.resume_offsets({TP("t", 0)}) == {TP("t", 0): 8}
        assert sink.reads == [0]

    asyncio.run(scenario())
    worker.executor.shutdown(wait=True)
