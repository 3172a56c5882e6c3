"""Log positions on a partitioned log.

A position is one integer everywhere (APIs, checkpoints, ``USING TIMESTAMP``). On a
partitioned log it packs the partition and the offset: ``(offset + 1) * 2**PARTITION_BITS
+ partition``. Positions of one partition increase with the offset; all events of one
memory live in one partition (the key is tenant/scope and a memory never changes scope),
so comparing positions of the same memory is always meaningful. Positions of different
partitions are not ordered. The embedded log has a single partition 0 and uses plain
increasing integers.
"""

from __future__ import annotations

from collections.abc import Iterable

PARTITION_BITS = 10
MAX_PARTITIONS = 1 << PARTITION_BITS


def pack(partition: int, offset: int) -> int:
    if not 0 <= partition < MAX_PARTITIONS or offset < 0:
        raise ValueError(f"partition {partition} / offset {offset} out of range")
    return ((offset + 1) << PARTITION_BITS) | partition


def partition_of(position: int) -> int:
    return position & (MAX_PARTITIONS - 1)


def offset_of(position: int) -> int:
    return (position >> PARTITION_BITS) - 1


def newest_per_partition(positions: Iterable[int], *, packed: bool) -> list[int]:
    """The newest of ``positions`` in each partition: what a read-your-writes wait must
    reach (positions of different partitions are not ordered, so their maximum is not)."""
    if not packed:
        top = max(positions, default=0)
        return [top] if top else []
    newest: dict[int, int] = {}
    for position in positions:
        partition = partition_of(position)
        newest[partition] = max(newest.get(partition, 0), position)
    return [newest[p] for p in sorted(newest)]
