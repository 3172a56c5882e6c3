"""Restoring one partition's heads when its writer is assigned it (``partition_heads``).

The heads changelog first (a shortcut), then every event after its newest position — all
of them when the changelog is empty — so the events topic stays the only source of truth.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from ai_memory.core.errors import UndecodableEvent
from ai_memory.core.ports import EventSerializer
from ai_memory.core.positions import offset_of, pack

from .partition_heads import PartitionHeads
from .reader import ReaderPool

log = logging.getLogger(__name__)

_RESTORE_PAGE = 5_000

EndOffset = Callable[[int, str | None], Awaitable[int]]  # (partition, topic) → end


async def restore_heads(
    partition: int,
    *,
    changelog: ReaderPool,
    changelog_topic: str,
    events: ReaderPool,
    end_offset: EndOffset,
    serializer: EventSerializer,
) -> PartitionHeads:
    """The heads of ``partition`` as the log holds them now."""
    heads = PartitionHeads()
    end = await end_offset(partition, changelog_topic)
    offset = 0
    while offset < end:
        page = await changelog.fetch(partition, offset, min(_RESTORE_PAGE, end - offset))
        if not page:
            break
        for _, value in page:
            heads.fold_changelog(value)
        offset = page[-1][0] + 1
    offset = offset_of(heads.newest_position) + 1 if heads.newest_position else 0
    end = await end_offset(partition, None)
    while offset < end:
        page = await events.fetch(partition, offset, min(_RESTORE_PAGE, end - offset))
        if not page:
            break
        for record_offset, value in page:
            try:
                event = serializer.decode(value)
            except UndecodableEvent:
                log.error(
                    "partition %d offset %d is undecodable; its head (if any) is not restored",
                    partition,
                    record_offset,
                )
                continue
            heads.fold(event, pack(partition, record_offset))
        offset = page[-1][0] + 1
    return heads
