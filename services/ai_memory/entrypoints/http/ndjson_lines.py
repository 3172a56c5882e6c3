"""Splitting an NDJSON upload into numbered lines in linear time and bounded memory.

Each chunk is scanned once from where the last newline was found, and a partial line is
kept in a growing ``bytearray`` (amortised appends), so the cost is proportional to the
body however it is chunked. A line longer than ``max_line_bytes`` is never buffered: its
bytes are dropped as they arrive and the line is handed on as ``OversizedLine`` with its
number, for the import to report as rejected.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from ai_memory.service.transfer import Line, OversizedLine


async def numbered_lines(
    chunks: AsyncIterator[bytes], max_line_bytes: int
) -> AsyncIterator[tuple[int, Line]]:
    """``(number, line)`` pairs, 1-based; a line is text, or raw bytes when it is not
    UTF-8, or ``OversizedLine``."""
    pending = bytearray()
    oversized = False
    number = 0
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            piece = memoryview(chunk)[start:end]
            number += 1
            if oversized or len(pending) + len(piece) > max_line_bytes:
                yield number, OversizedLine(max_line_bytes)
            else:
                pending += piece
                yield number, _decode(bytes(pending))
            pending.clear()
            oversized = False
            start = end + 1
        if oversized:
            continue
        rest = memoryview(chunk)[start:]
        if len(pending) + len(rest) > max_line_bytes:
            oversized = True
            pending.clear()
        else:
            pending += rest
    if oversized:
        yield number + 1, OversizedLine(max_line_bytes)
    elif pending:
        yield number + 1, _decode(bytes(pending))


def _decode(raw: bytes) -> str | bytes:
    """Text, or the raw bytes when they are not UTF-8 (the session rejects that line)."""
    try:
        return raw.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return raw
