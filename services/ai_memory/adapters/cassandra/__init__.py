"""Cassandra adapters for the distributed deployment: the ``records`` projection (and
its checkpoints), on a keyspace created by versioned migrations.

    session = CassandraSession.from_url("cassandra://127.0.0.1:9042/ai_memory")
    migrate(session)
    records = CassandraRecordStore(session)
"""

from .key_store import CassandraKeyStore
from .migrations import migrate
from .record_store import CassandraRecordStore
from .session import CassandraSession, CassandraSettings, parse_url
from .webhook_store import CassandraWebhookStore

__all__ = [
    "CassandraKeyStore",
    "CassandraRecordStore",
    "CassandraSession",
    "CassandraSettings",
    "CassandraWebhookStore",
    "migrate",
    "parse_url",
]
