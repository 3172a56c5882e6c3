"""Read-your-writes waits on every partition a unit appended to, not on the maximum."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.positions import newest_per_partition, pack, partition_of


def test_one_wait_per_partition_at_its_newest_position() -> None:
    positions = [pack(0, 5), pack(3, 1), pack(0, 9), pack(3, 0)]
    # The maximum (partition 0, offset 9) says nothing about partition 3.
    assert newest_per_partition(positions, packed=True) == [pack(0, 9), pack(3, 1)]


def test_the_embedded_log_has_one_partition() -> None:
    assert newest_per_partition([3, 9, 4], packed=False) == [9]
    assert newest_per_partition([], packed=False) == []
    assert newest_per_partition([], packed=True) == []


@given(st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 10**9)), max_size=50))
def test_every_position_is_covered_by_its_partition_newest(pairs: list[tuple[int, int]]) -> None:
    positions = [pack(p, o) for p, o in pairs]
    newest = {partition_of(n): n for n in newest_per_partition(positions, packed=True)}
    assert len(newest) == len({p for p, _ in pairs})
    for position in positions:
        assert newest[partition_of(position)] >= position
