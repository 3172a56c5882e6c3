from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_event_log import SqliteEventLog
from ai_memory.core.ports import EventLog
from ai_memory.serialization import AvroEventSerializer
from tests.contract.event_log_contract import EventLogContract
from tests.factories import record, written


class TestSqliteEventLog(EventLogContract):
    @pytest.fixture
    def log(self, tmp_path: Path) -> Iterator[EventLog]:
        log = SqliteEventLog(tmp_path / "events.db", AvroEventSerializer())
        yield log
        log.close()


def test_positions_survive_reopen_and_are_never_reused(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    first = SqliteEventLog(path, AvroEventSerializer())
    positions = first.append([written(record("a")), written(record("b"))])
    first.close()
    reopened = SqliteEventLog(path, AvroEventSerializer())
    assert reopened.last_position() == positions[-1]
    (later,) = reopened.append([written(record("c"))])
    assert later > positions[-1]
    reopened.close()


def test_payload_on_disk_is_avro_single_object_encoding(tmp_path: Path) -> None:
    import sqlite3

    log = SqliteEventLog(tmp_path / "events.db", AvroEventSerializer())
    log.append([written()])
    log.close()
    (payload,) = (
        sqlite3.connect(tmp_path / "events.db").execute("SELECT payload FROM events").fetchone()
    )
    assert bytes(payload[:2]) == b"\xc3\x01"
