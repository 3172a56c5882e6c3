"""The usage fold against a naive recount and the record store, on random logs (writes,
rewrites, forgets, tombstone-only forgets, sealed writes, state changes, recalls; several
tenants sharing memory ids, several partitions, a memory many times in one batch), with
random batches, random crashes that keep any prefix of the table's writes, and
redelivery from any earlier batch boundary, in batches cut anew. Every tenant-key write
must be exact when made, not only the table in the end."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.adapters.memory import MemoryRecordStore
from ai_memory.core.events import LoggedEvent
from ai_memory.core.projection import project_records
from ai_memory.core.usage import (
    MEMORY_PREFIX,
    PARTITION_PREFIX,
    TENANT_PREFIX,
    UsageFold,
    resume_point,
    tenant_key,
)
from tests.usage_crashes import (
    Crash,
    Op,
    RecordingTable,
    batches_of,
    crashing_run,
    partition_of_memory,
    recount,
    run,
    sizes_from,
    streams_of,
    usage_in,
    wrong_tenant_writes,
)

KINDS = ["write"] * 5 + ["delete", "delete0", "sealed_write", "state", "recall"]

ops = st.lists(
    st.builds(
        Op,
        st.sampled_from(KINDS),
        st.sampled_from(["acme", "globex"]),
        st.sampled_from(["m1", "m|2", "m3"]),  # few: a memory comes back often
        st.text(alphabet="ab二✓", max_size=6),
    ),
    min_size=2,
    max_size=40,
)
batch_sizes = st.lists(st.integers(1, 8), min_size=1, max_size=4)
restarts = st.dictionaries(st.integers(0, 2), st.integers(-1, 6), max_size=3)


def check(streams: dict[int, list[LoggedEvent]], crashes: list[Crash], sizes: list[int]) -> None:
    table = crashing_run(streams, crashes, sizes_from(sizes))
    assert usage_in(table) == recount(streams), f"after {crashes}"
    # Exact at every step, not only in the end: no tenant key ever held a wrong count.
    assert wrong_tenant_writes(streams, table.history) == [], f"after {crashes}"


@settings(max_examples=150)
@given(
    ops=ops,
    partitions=st.integers(1, 3),
    first=batch_sizes,
    again=batch_sizes,
    restart=restarts,
)
def test_a_crash_after_any_write_and_redelivery_give_the_recount(
    ops: list[Op],
    partitions: int,
    first: list[int],
    again: list[int],
    restart: dict[int, int],
) -> None:
    """The table keeps every prefix of the run's writes in turn; each partition is
    delivered again from a batch boundary at or before its first batch that lost a write."""
    streams = streams_of(ops, partitions)
    total = len(crashing_run(streams, [], sizes_from(first)).history)
    for durable in range(total + 1):
        check(streams, [Crash(durable, restart, first)], again)


@settings(max_examples=300)
@given(
    ops=ops,
    partitions=st.integers(1, 3),
    sizes=st.lists(batch_sizes, min_size=3, max_size=3),
    restart=st.lists(restarts, min_size=2, max_size=2),
    data=st.data(),
)
def test_a_crash_while_redelivering_after_a_crash_gives_the_recount(
    ops: list[Op],
    partitions: int,
    sizes: list[list[int]],
    restart: list[dict[int, int]],
    data: st.DataObject,
) -> None:
    """A first crash anywhere, then a second one after any write of the redelivery:
    memory keys of the first run may still be ahead of their tenant keys."""
    streams = streams_of(ops, partitions)
    total = len(crashing_run(streams, [], sizes_from(sizes[0])).history)
    durable = data.draw(st.integers(0, total), label="first crash after")
    crashed = Crash(durable, restart[0], sizes[0])
    redelivery = crashing_run(streams, [crashed], sizes_from(sizes[1]))
    for second in range(len(redelivery.history) - redelivery.restored + 1):
        check(streams, [crashed, Crash(second, restart[1], sizes[1])], sizes[2])


@settings(max_examples=200)
@given(ops=ops, partitions=st.integers(1, 3), sizes=batch_sizes)
def test_the_fold_counts_what_the_record_store_counts(
    ops: list[Op], partitions: int, sizes: list[int]
) -> None:
    streams = streams_of(ops, partitions)
    got = usage_in(crashing_run(streams, [], sizes_from(sizes)))
    store = MemoryRecordStore()
    for events in streams.values():
        for logged in events:
            store.apply(project_records(logged), checkpoint=logged.position)
    for tenant in {op.tenant for op in ops}:
        size = sum(len(s.record.content.encode()) for s in store.scan_records(tenant))
        usage = got.get(tenant)
        counted = (usage.memories, usage.bytes) if usage else (0, 0)
        assert counted == (store.count(tenant), size)


@settings(max_examples=200)
@given(ops=ops, partitions=st.integers(1, 3), sizes=batch_sizes)
def test_between_two_writes_of_a_tenant_key_each_memory_key_is_written_once(
    ops: list[Op], partitions: int, sizes: list[int]
) -> None:
    """The invariant the exactness rests on, read off the writes themselves."""
    table: RecordingTable = crashing_run(streams_of(ops, partitions), [], sizes_from(sizes))
    since: dict[str, set[str]] = {}  # tenant key → memory keys written since it was
    for key, _ in table.history:
        if key.startswith(TENANT_PREFIX):
            since[key] = set()
            continue
        if key.startswith(PARTITION_PREFIX):
            continue
        assert key.startswith(MEMORY_PREFIX)
        _, tenant, memory = key.split("|", 2)
        owner = tenant_key(tenant, partition_of_memory(tenant, memory, partitions))
        written = since.setdefault(owner, set())
        assert key not in written, f"{key} written twice since {owner} was"
        written.add(key)


@settings(max_examples=200)
@given(ops=ops, partitions=st.integers(1, 3), first=batch_sizes, again=batch_sizes)
def test_resuming_each_partition_after_its_own_folded_point_gives_the_recount(
    ops: list[Op], partitions: int, first: list[int], again: list[int]
) -> None:
    """What the usage worker does after a kill -9: whatever prefix of the writes
    survived, each partition is read again from the event after its ``p|`` key (no
    committed offset involved) and the table ends exact, never wrong on the way."""
    streams = streams_of(ops, partitions)
    full = crashing_run(streams, [], sizes_from(first))
    for durable in range(len(full.history) + 1):
        table = RecordingTable(full.history[:durable])
        starts = {}
        for p, events in streams.items():
            done = resume_point(table, p)
            after = [i for i, e in enumerate(events) if done is None or e.position > done]
            starts[p] = after[0] if after else len(events)
        run(table, streams, batches_of(streams, starts, sizes_from(again)), UsageFold)
        assert usage_in(table) == recount(streams), f"kept {durable} writes"
        assert wrong_tenant_writes(streams, table.history) == [], f"kept {durable} writes"
        for p, events in streams.items():
            if events:
                assert resume_point(table, p) == events[-1].position
