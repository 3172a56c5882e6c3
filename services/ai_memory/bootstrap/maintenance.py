"""The operator's tools over a log: replaying the projections, and the dead letters
(listed, shown, discarded, or re-driven through a view)."""

from __future__ import annotations

from ai_memory.projector.replay import Replay
from ai_memory.serialization import AvroEventSerializer
from ai_memory.service.dead_letters import DeadLetterService
from ai_memory.settings import Settings

from .assemble import build
from .by_url import build_dead_letters
from .projections import raw_frames
from .security import build_sealer


def open_replay(settings: Settings) -> Replay:
    """``ai-memory replay``: the projections' rebuilds over a log opened without
    appending (stop an embedded server first)."""
    c = build(settings, writer=False)
    return Replay(
        c.log,
        packed_positions=c.projections.packed_positions,
        store=c.store,
        index=c.index,
        embedder=c.embedder,
        dead_letters=c.dead_letters,
        raw_of=raw_frames(AvroEventSerializer(sealer=c.sealer)),
        close=c.close,
    )


def build_dead_letter_service(settings: Settings, *, redrive: bool = False) -> DeadLetterService:
    """The dead-letter store behind ``ai-memory dead-letters``. Listing, showing and
    discarding touch only the store (they work while the server runs); ``redrive`` also
    builds the container, because re-driving reads the log and applies through a view."""
    serializer = AvroEventSerializer(sealer=build_sealer(settings))

    def describe(raw: bytes) -> str:
        return repr(serializer.decode(raw))

    if not redrive:
        return DeadLetterService(build_dead_letters(settings), describe=describe)
    c = build(settings, writer=False)
    store = c.dead_letters
    assert store is not None  # build always opens one
    return DeadLetterService(
        store,
        describe=describe,
        redrive_for=lambda name: c.projections.redriver(name, store),
        close=c.close,
    )
