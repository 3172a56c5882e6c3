"""This process's storage: the log, the records view and the index, each sealed when
encryption is on (``docs/design/FORGETTING.md``), and the one serializer that seals."""

from __future__ import annotations

from dataclasses import dataclass

from ai_memory.adapters.sealed_record_store import SealedRecordStore
from ai_memory.core.ports import Embedder, EventLog, RecordStore, VectorIndex
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.decoded_frames import DecodedFrames
from ai_memory.serialization.sealer import Sealer
from ai_memory.settings import Settings

from .by_url import (
    build_event_log,
    build_index,
    build_record_store,
    compaction_policy,
    seals_view_at_rest,
)
from .security import build_data_key_vault, index_tag_key, root_key, view_tag_key


@dataclass(frozen=True)
class Storage:
    root: bytes | None  # the root of the key hierarchy; None unless AIMEM_ENCRYPTION=on
    sealer: Sealer | None
    serializer: AvroEventSerializer
    log: EventLog
    store: RecordStore
    index: VectorIndex


def open_storage(
    s: Settings, embedder: Embedder, *, writer: bool, owns_partitions: bool
) -> Storage:
    """The log, the records view and the index of a process (see ``build_event_log`` for
    ``writer`` and ``owns_partitions``)."""
    root = root_key(s)  # None unless AIMEM_ENCRYPTION=on
    sealer = None if root is None else Sealer(build_data_key_vault(s, root))
    # One serializer for the log and the append pipeline: what the pipeline encodes and
    # proves is what the log reads back, and its projections here take the proof's
    # decoded events instead of decoding the frames again (serialization/decoded_frames).
    serializer = AvroEventSerializer(sealer=sealer, decoded=DecodedFrames())
    log = build_event_log(s, serializer, writer=writer, owns_partitions=owns_partitions)
    store = build_record_store(s.record_store_url, shred=sealer is not None)
    if sealer is not None and root is not None and seals_view_at_rest(s.record_store_url):
        store = SealedRecordStore(store, sealer, view_tag_key(root))
    index = build_index(
        s.index_url,
        embedder,
        tag_key=index_tag_key(root),
        compaction=compaction_policy(s),
        own_process=s.index_process,
        search_threads=s.index_search_threads,
    )
    return Storage(root, sealer, serializer, log, store, index)
