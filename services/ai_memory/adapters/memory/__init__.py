"""In-memory adapters of every port: the whole container without a file or a server.

They pass the same contract suites as the embedded and distributed adapters, so the
service layer can be unit-tested on them in milliseconds (``tests/service``) and a
whole container can be built from ``memory://`` URLs. Nothing survives the process.

Each adapter keeps its state in a small ``*Backing`` object; opening another adapter
on the same backing is what a restart is for a file-backed adapter (the contract
suites reopen stores that way).
"""

from .dead_letters import DeadLetterBacking, MemoryDeadLetters
from .event_log import LogBacking, MemoryEventLog
from .key_store import KeyBacking, MemoryKeyStore
from .record_store import MemoryRecordStore, RecordBacking
from .vector_index import IndexBacking, MemoryVectorIndex
from .webhook_store import MemoryWebhookStore, WebhookBacking

__all__ = [
    "DeadLetterBacking",
    "IndexBacking",
    "KeyBacking",
    "LogBacking",
    "MemoryDeadLetters",
    "MemoryEventLog",
    "MemoryKeyStore",
    "MemoryRecordStore",
    "MemoryVectorIndex",
    "MemoryWebhookStore",
    "RecordBacking",
    "WebhookBacking",
]
