"""The UsageSource contract: every source answers what the records view it reads holds —
its ``count`` and the UTF-8 bytes of its content — and the same as the usage fold
(``core.usage``) over the log that built the view."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from ai_memory.core.ports import RecordStore, UsageSource
from ai_memory.core.positions import pack
from ai_memory.core.projection import PutRecord, PutTombstone, RemoveRecord, SetState
from ai_memory.core.record import MemoryState
from ai_memory.core.usage import UsageFold, tenants_in, usage_of
from ai_memory.projector.sinks import RecordsSink
from tests.contract.record_store_contract import stored, tombstone
from tests.factories import T0
from tests.usage_crashes import Op, streams_of

# Text whose bytes are not its characters: 2-, 3- and 4-byte UTF-8, a combining mark.
WIDE = "é二🦜e\u0301"


@dataclass
class Stack:
    store: RecordStore  # what the source reads, filled through its port
    source: UsageSource


class UsageSourceContract:
    lists_tenants = True  # False: a source that cannot list tenants cheaply lists none

    @pytest.fixture
    def stack(self) -> Iterator[Stack]:
        raise NotImplementedError

    def test_a_tenant_never_seen_uses_nothing(self, stack: Stack) -> None:
        got = stack.source.usage("nobody")
        assert (got.memories, got.bytes) == (0, 0)

    def test_it_counts_live_memories_and_their_utf8_bytes(self, stack: Stack) -> None:
        stack.store.apply(
            [
                PutRecord(stored("m1", "tea", position=1)),
                PutRecord(stored("m2", WIDE, position=2)),
                PutRecord(stored("m3", "gone soon", position=3)),
                RemoveRecord("default", "m3", 4),
            ],
            checkpoint=4,
        )
        got = stack.source.usage("default")
        assert (got.memories, got.bytes) == (2, 3 + len(WIDE.encode()))
        assert got.memories == stack.store.count("default")

    def test_a_rewrite_replaces_the_size_and_a_state_change_keeps_it(self, stack: Stack) -> None:
        stack.store.apply([PutRecord(stored("m1", "x" * 50, position=1))], checkpoint=1)
        stack.store.apply([PutRecord(stored("m1", "y" * 7, position=2, version=2))], checkpoint=2)
        stack.store.apply(
            [SetState("default", "m1", MemoryState.ARCHIVED, T0, 3)], checkpoint=3
        )  # archived: still stored, still counted
        got = stack.source.usage("default")
        assert (got.memories, got.bytes) == (1, 7)

    def test_tenants_are_apart_even_with_the_same_ids(self, stack: Stack) -> None:
        stack.store.apply(
            [
                PutRecord(stored("m1", "abc", position=1, tenant="acme")),
                PutRecord(stored("m1", "abcdef", position=2, tenant="globex")),
                PutRecord(stored("m2", "z", position=3, tenant="globex")),
            ],
            checkpoint=3,
        )
        acme, globex = stack.source.usage("acme"), stack.source.usage("globex")
        assert (acme.memories, acme.bytes, globex.memories, globex.bytes) == (1, 3, 2, 7)

    def test_positions_say_up_to_where_every_event_is_counted(self, stack: Stack) -> None:
        stack.store.apply([PutRecord(stored("m1", position=pack(0, 4)))], checkpoint=pack(0, 4))
        stack.store.apply(
            [PutRecord(stored("m2", position=pack(3, 1)))], checkpoint=pack(3, 9), partition=3
        )
        positions = stack.source.usage("default").positions
        assert positions.get(0) == pack(0, 4) and positions.get(3) == pack(3, 9)

    def test_it_lists_every_tenant_that_holds_or_held_memories(self, stack: Stack) -> None:
        stack.store.apply(
            [
                PutRecord(stored("m1", position=1, tenant="zeta")),
                PutRecord(stored("m1", position=2, tenant="alpha")),
                RemoveRecord("alpha", "m1", 3),  # forgotten: it held memories
                PutTombstone(tombstone("m1", position=3, tenant="alpha")),
                PutTombstone(tombstone("m9", position=4, tenant="mid")),  # a tombstone only
            ],
            checkpoint=4,
        )
        listed = stack.source.tenants()
        assert listed == (["alpha", "mid", "zeta"] if self.lists_tenants else [])

    def test_it_answers_as_the_fold_over_the_log_that_built_the_view(self, stack: Stack) -> None:
        ops = [
            Op("write", "acme", "m1", "tea"),
            Op("write", "acme", "m2", WIDE),
            Op("write", "globex", "m1", "coffee"),
            Op("write", "acme", "m1", "green " + WIDE),
            Op("state", "acme", "m1"),
            Op("recall", "acme", "m2"),
            Op("delete", "acme", "m2"),
            Op("delete0", "acme", "never"),
            Op("write", "acme", "m3", "x" * 40),
            Op("write", "acme", "m3", "y" * 10),
            Op("sealed_write", "globex", "m1"),
            Op("delete", "globex", "m1"),
            Op("write", "globex", "m4", "late"),
            Op("write", "acme", "m2", "back"),  # a write after a forget is put again
        ]
        streams = streams_of(ops, partitions=2)
        sink, table = RecordsSink(stack.store), dict[str, list[int]]()
        fold = UsageFold(table)
        for partition, events in streams.items():
            for i in range(0, len(events), 3):
                sink.apply(events[i : i + 3], partition)
                fold.apply(partition, events[i : i + 3])
        for tenant in tenants_in(table):
            want, got = usage_of(table.items(), tenant), stack.source.usage(tenant)
            assert (got.memories, got.bytes) == (want.memories, want.bytes), tenant
        assert stack.source.usage("acme").memories == 3
