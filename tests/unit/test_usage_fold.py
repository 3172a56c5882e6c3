"""The usage fold (``core.usage``): what it counts is what the records view holds, it
writes a tenant key once per batch, and it stays exact when a crash keeps any prefix of
its writes and the events are delivered again from any earlier offset."""

from __future__ import annotations

import itertools

import pytest

from ai_memory.adapters.memory import MemoryRecordStore
from ai_memory.core.events import LoggedEvent
from ai_memory.core.positions import pack
from ai_memory.core.projection import project_records
from ai_memory.core.usage import (
    ABSENT,
    TenantUsage,
    UsageFold,
    memory_key,
    partition_key,
    resume_point,
    tenant_key,
    tenants_in,
    usage_of,
)
from tests.usage_crashes import (
    Crash,
    Op,
    RecordingTable,
    crashing_run,
    event_of,
    recount,
    sizes_from,
    streams_of,
    usage_in,
)

W, D = "write", "delete"


def fold_all(streams: dict[int, list[LoggedEvent]], batch: int = 1000) -> RecordingTable:
    table = RecordingTable()
    fold = UsageFold(table)
    for partition, events in streams.items():
        for i in range(0, len(events), batch):
            fold.apply(partition, events[i : i + batch])
    return table


def store_usage(streams: dict[int, list[LoggedEvent]], tenant: str) -> tuple[int, int]:
    """What the in-memory record store holds for ``tenant`` after the log."""
    store = MemoryRecordStore()
    for events in streams.values():
        for logged in events:
            store.apply(project_records(logged), checkpoint=logged.position)
    size = sum(len(s.record.content.encode()) for s in store.scan_records(tenant))
    return store.count(tenant), size


# A log with every kind of event, two tenants sharing a memory id, two partitions.
MIXED = [
    Op(W, "acme", "m1", "tea"),
    Op(W, "acme", "m2", "二十"),  # 6 bytes, 2 characters
    Op(W, "globex", "m1", "coffee"),
    Op(W, "acme", "m1", "green tea"),  # rewritten: 9 bytes
    Op("state", "acme", "m1"),  # archived: still stored, still counted
    Op("recall", "acme", "m2"),
    Op(D, "acme", "m2"),
    Op("delete0", "acme", "never"),  # a tombstone of an id that never had a record
    Op(W, "acme", "m3", "x" * 40),
    Op(W, "acme", "m3", "y" * 10),  # the same memory twice in one batch
    Op(W, "acme", "m3", "z" * 20),
    Op("sealed_write", "globex", "m1"),  # its key was destroyed: nothing changes
    Op(D, "globex", "m1"),
    Op(W, "globex", "m4", "late"),
]


def test_it_counts_what_the_records_view_holds() -> None:
    streams = streams_of(MIXED)
    table = fold_all(streams)
    got = usage_in(table)
    assert (got["acme"].memories, got["acme"].bytes) == (2, 9 + 20)
    assert (got["globex"].memories, got["globex"].bytes) == (1, 4)
    for tenant in ("acme", "globex"):
        assert (got[tenant].memories, got[tenant].bytes) == store_usage(streams, tenant)
    assert got == recount(streams)


def test_bytes_are_utf8_bytes_not_characters() -> None:
    table = fold_all(streams_of([Op(W, "acme", "m", "日本語 ✓")]))
    assert usage_in(table)["acme"].bytes == len("日本語 ✓".encode()) == 13


def test_a_delete_removes_whatever_its_version_says() -> None:
    """The records view removes a memory on any MemoryDeleted; so does the fold (a
    version-0 tombstone on a live memory is not expected, but it is counted alike)."""
    streams = streams_of([Op(W, "acme", "m", "abc"), Op("delete0", "acme", "m")], partitions=1)
    assert usage_in(fold_all(streams))["acme"] == TenantUsage(0, 0, {0: pack(0, 1)})
    assert store_usage(streams, "acme") == (0, 0)


def test_a_write_after_a_forget_is_counted_again_as_the_store_puts_it_again() -> None:
    ops = [Op(W, "acme", "m", "abc"), Op(D, "acme", "m"), Op(W, "acme", "m", "abcd")]
    streams = streams_of(ops, partitions=1)
    assert usage_in(fold_all(streams))["acme"].bytes == 4
    assert store_usage(streams, "acme") == (1, 4)


def test_delivering_a_batch_again_changes_nothing() -> None:
    streams = streams_of(MIXED)
    table = fold_all(streams)
    before = dict(table)
    writes = len(table.history)
    fold = UsageFold(table)
    for partition, events in streams.items():
        assert fold.apply(partition, events) == set()
        assert fold.apply(partition, events[3:]) == set()
    assert dict(table) == before and len(table.history) == writes


def test_one_tenant_write_per_batch_and_one_write_per_memory_changed() -> None:
    ops = [Op(W, "acme", f"m{i}", "abc") for i in range(5)]
    streams = streams_of(ops, partitions=1)
    table = RecordingTable()
    assert UsageFold(table).apply(0, streams[0]) == {"acme"}
    keys = [k for k, _ in table.history]
    memories = [memory_key("acme", f"m{i}") for i in range(5)]
    # The partition's resume point is written last: it survives only with the rest.
    assert keys == [*memories, tenant_key("acme", 0), partition_key(0)]
    assert table[partition_key(0)] == [pack(0, 4)]
    assert table[tenant_key("acme", 0)] == [5, 15, pack(0, 4)]
    assert table[memory_key("acme", "m2")] == [3, pack(0, 2), ABSENT]


def test_an_unchanged_size_writes_no_memory_key() -> None:
    ops = [Op(W, "acme", "m", "abc"), Op(W, "acme", "m", "xyz"), Op("sealed_write", "acme", "m")]
    table = RecordingTable()
    fold = UsageFold(table)
    streams = streams_of(ops, partitions=1)
    fold.apply(0, streams[0][:1])
    written = len(table.history)
    fold.apply(0, streams[0][1:])
    # Only the tenant key moves (its position); the memory is as big as before.
    assert [k for k, _ in table.history[written:]] == [tenant_key("acme", 0), partition_key(0)]


def test_a_memory_written_twice_in_a_batch_writes_the_tenant_key_between() -> None:
    ops = [Op(W, "acme", "m", "a" * 5), Op(W, "acme", "other", "b"), Op(W, "acme", "m", "c" * 9)]
    table = RecordingTable()
    UsageFold(table).apply(0, streams_of(ops, partitions=1)[0])
    m, t = memory_key("acme", "m"), tenant_key("acme", 0)
    assert table.history == [
        (m, [5, pack(0, 0), ABSENT]),
        (memory_key("acme", "other"), [1, pack(0, 1), ABSENT]),
        (t, [2, 6, pack(0, 1)]),  # before m is written again, without its second write
        (m, [9, pack(0, 2), 5]),
        (t, [2, 10, pack(0, 2)]),
        (partition_key(0), [pack(0, 2)]),
    ]


def test_the_reader_sums_a_tenants_partitions_and_names_their_positions() -> None:
    rows = [
        (tenant_key("acme", 0), [2, 10, pack(0, 7)]),
        (tenant_key("acme", 3), [1, 5, pack(3, 2)]),
        (tenant_key("acme-x", 0), [9, 99, pack(0, 9)]),  # a tenant whose name extends it
        (memory_key("acme", "t|acme|1"), [5, pack(0, 1), ABSENT]),  # an id that looks like a key
    ]
    assert usage_of(rows, "acme") == TenantUsage(3, 15, {0: pack(0, 7), 3: pack(3, 2)})
    assert usage_of(rows, "nobody") == TenantUsage(0, 0, {})
    assert tenants_in(k for k, _ in rows) == ["acme", "acme-x"]


# --- crashes ----------------------------------------------------------------------------
def every_single_crash(
    ops: list[Op], sizes: list[int], fold: type[UsageFold] = UsageFold
) -> list[tuple[int, dict[int, int], dict[str, TenantUsage]]]:
    """Every crash point of a run, each with the earliest and the latest restart of
    every partition: ``(durable writes, restarts, usage at the end)``."""
    streams = streams_of(ops)
    total = len(crashing_run(streams, [], sizes_from(sizes), fold).history)
    outcomes = []
    for durable in range(total + 1):
        for choice in itertools.product((0, -1), repeat=len(streams)):
            restart = dict(enumerate(choice))
            crash = Crash(durable, restart)
            table = crashing_run(streams, [crash], sizes_from(sizes), fold)
            outcomes.append((durable, restart, usage_in(table)))
    return outcomes


@pytest.mark.parametrize("sizes", [[1], [2], [3, 1], [100]])
def test_a_crash_at_every_write_and_any_redelivery_gives_the_truth(sizes: list[int]) -> None:
    truth = recount(streams_of(MIXED))
    for durable, restart, got in every_single_crash(MIXED, sizes):
        assert got == truth, f"crash after {durable} writes, restart {restart}"


def test_two_crashes_in_a_row_give_the_truth() -> None:
    """The second run crashes too, while memory keys of the first are still ahead of
    their tenant key."""
    streams = streams_of(MIXED)
    truth = recount(streams)
    total = len(crashing_run(streams, [], sizes_from([3])).history)
    for first, second in itertools.product(range(0, total + 1, 2), range(0, total + 1, 3)):
        crashes = [Crash(first, {0: -1, 1: 0}), Crash(second, {0: 0, 1: -1})]
        table = crashing_run(streams, crashes, sizes_from([3, 2]))
        assert usage_in(table) == truth, f"crashes after {first} then {second} writes"


class _NoFlush(UsageFold):
    """The fold without the rule "write the tenant key before a memory key is written a
    second time since it was"."""

    def _must_flush(self, tenant: object, memory: str) -> bool:
        return False


def test_without_the_flush_before_a_second_write_a_crash_miscounts() -> None:
    """The rule is load-bearing: remove it and a crash that keeps a memory's second
    write but not the tenant key loses the memory's first version from the count
    (redelivered, the first write reads the second's ``prev`` as its own ``before``)."""
    ops = [Op(W, "acme", "m", "a" * 5), Op(W, "acme", "m", "c" * 9)]
    truth = recount(streams_of(ops))
    wrong = [
        (durable, got)
        for durable, _, got in every_single_crash(ops, [100], _NoFlush)
        if got != truth
    ]
    assert wrong, "the rule would not be needed"
    durable, got = wrong[0]
    assert durable == 2 and got["acme"] == TenantUsage(0, 4, truth["acme"].positions)
    # The real fold, crashed the same way:
    assert all(got == truth for _, _, got in every_single_crash(ops, [100]))


def test_a_write_sealed_by_the_time_it_is_delivered_again_is_counted_as_first_folded() -> None:
    """Folded in clear, then its memory forgotten and its key destroyed before the
    tenant key was written: redelivered it reads sealed, yet its forget must remove
    exactly what it added."""
    streams = streams_of([Op(W, "acme", "m", "hello"), Op(D, "acme", "m")], partitions=1)
    write, forget = streams[0]
    table = RecordingTable()
    UsageFold(table).apply(0, [write])
    table = RecordingTable(table.history[:1])  # the memory key survived, the tenant key not
    sealed = event_of(Op("sealed_write", "acme", "m"))
    UsageFold(table).apply(0, [LoggedEvent(write.position, sealed), forget])
    assert usage_in(table)["acme"] == TenantUsage(0, 0, {0: forget.position})


def test_a_memory_key_a_crashed_run_wrote_counts_as_written_since_the_tenant_key() -> None:
    """Run 1 folds the first write and crashes keeping only its memory key; run 2 folds
    both writes in one batch — the first from that memory key — and must write the
    tenant key before the memory key again, or a crash keeping only the memory key's
    second write would make run 3 count the memory's second version alone."""
    ops = [Op(W, "acme", "m", "a" * 5), Op(W, "acme", "m", "c" * 9)]
    streams = streams_of(ops, partitions=1)
    truth = recount(streams)
    for second in range(4):
        crashes = [Crash(1, {0: 0}, batch=[1]), Crash(second, {0: 0}, batch=[2])]
        table = crashing_run(streams, crashes, sizes_from([2]))
        assert usage_in(table) == truth, f"second crash after {second} writes"


def test_a_batch_that_counts_nothing_still_moves_the_resume_point() -> None:
    """Events that change no usage (or could not be decoded: ``through``) are folded
    past, so a restart does not read them again."""
    ops = [Op(W, "acme", "m", "abc"), Op("recall", "acme", "m")]
    streams = streams_of(ops, partitions=1)
    table = RecordingTable()
    fold = UsageFold(table)
    fold.apply(0, streams[0])
    assert resume_point(table, 0) == streams[0][-1].position
    fold.apply(0, [], through=pack(0, 9))
    assert resume_point(table, 0) == pack(0, 9)
    fold.apply(0, [], through=pack(0, 3))  # redelivered: never moves back
    assert resume_point(table, 0) == pack(0, 9)
