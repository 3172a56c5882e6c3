"""The records projection's memory of read counts (``adapters/cassandra/read_count_cache``):
what it answers, per partition, and when it lets go."""

from __future__ import annotations

from ai_memory.adapters.cassandra.read_count_cache import ReadCountCache

A, B = ("t", "a"), ("t", "b")


def test_values_answer_only_in_their_partition() -> None:
    cache = ReadCountCache()
    cache.remember(0, {A: (3, 30)})
    assert cache.known(0, [A, B]) == {A: (3, 30)}
    assert cache.known(1, [A]) == {}
    assert (cache.hits, cache.misses) == (1, 2)


def test_a_checkpoint_someone_else_wrote_drops_the_partition() -> None:
    cache = ReadCountCache()
    cache.remember(0, {A: (1, 10)})
    cache.remember(1, {B: (1, 11)})
    cache.wrote(0, 10)
    cache.wrote(1, 11)
    cache.read(0, 10)  # its own: kept
    assert cache.known(0, [A]) == {A: (1, 10)}
    cache.read(0, 12)  # moved by another worker
    assert cache.known(0, [A]) == {}
    assert cache.known(1, [B]) == {B: (1, 11)}  # other partitions keep theirs
    cache.read(0, 12)  # and stays unknown until this process writes one
    cache.remember(0, {A: (2, 13)})
    cache.read(0, 12)
    assert cache.known(0, [A]) == {}


def test_a_partition_never_advanced_here_keeps_nothing_across_a_checkpoint_read() -> None:
    cache = ReadCountCache()
    cache.remember(0, {A: (1, 10)})  # its batch failed before the checkpoint
    cache.read(0, 0)
    assert len(cache) == 0


def test_drop_forget_and_clear() -> None:
    cache = ReadCountCache()
    cache.remember(0, {A: (1, 1), B: (2, 2)})
    cache.drop(0, [A])
    assert cache.known(0, [A, B]) == {B: (2, 2)}
    cache.forget_partition(0)
    assert len(cache) == 0
    cache.remember(2, {A: (1, 1)})
    cache.wrote(2, 1)
    cache.clear()
    assert len(cache) == 0
    cache.remember(2, {A: (1, 1)})
    cache.read(2, 1)  # cleared: the checkpoint it wrote is forgotten too
    assert len(cache) == 0


def test_the_least_recently_used_go_first() -> None:
    cache = ReadCountCache(entries=2)
    cache.remember(0, {A: (1, 1)})
    cache.remember(0, {B: (1, 2)})
    cache.known(0, [A])  # used: B is now the oldest
    cache.remember(0, {("t", "c"): (1, 3)})
    assert set(cache.known(0, [A, B, ("t", "c")])) == {A, ("t", "c")}
