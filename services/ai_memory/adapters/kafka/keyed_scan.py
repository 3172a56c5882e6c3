"""Reading one tenant's (or some scopes') records out of a shared partition.

Kafka has no index by key, so a partition is read from a start offset in chunks and a
record is kept when its key (``tenant/scope``) passes a test: other tenants' and other
scopes' records are skipped by key, never decoded. At most ``scan`` records are examined
per call, so a tenant with few events in a busy partition costs at most ``scan`` records
of transfer per call, never the whole partition; the caller continues past them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .reader import ReaderPool

_SCAN_CHUNK = 500  # records per fetch while looking for one tenant's events


@dataclass(frozen=True)
class KeyedScan:
    """(offset, value) of the records kept, the offset of the last record examined, and
    whether the partition's end was reached."""

    kept: list[tuple[int, bytes]]
    last: int
    complete: bool


async def scan_keyed(
    readers: ReaderPool,
    partition: int,
    start: int,
    end: int,
    keep: Callable[[bytes], bool],
    *,
    limit: int,
    scan: int,
) -> KeyedScan:
    kept: list[tuple[int, bytes]] = []
    offset, last = start, start - 1
    while offset < end and offset - start < scan:
        want = min(_SCAN_CHUNK, end - offset, scan - (offset - start))
        # The whole range [offset, offset + want) is examined: ``fetch`` returns once the
        # consumer is past it (commit markers are skipped, not returned).
        for record_offset, key, value in await readers.fetch_keyed(partition, offset, want):
            if keep(key):
                kept.append((record_offset, value))
                if len(kept) >= limit:
                    return KeyedScan(kept, record_offset, record_offset + 1 >= end)
        offset += want
        last = offset - 1
    return KeyedScan(kept, last, offset >= end)
