"""KafkaDeadLetters against a real broker: the DeadLetters contract on the ``.dlq`` topic,
and the record format every writer shares (``adapters/kafka/dead_letter``)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest

from ai_memory.adapters.kafka import KafkaLogConfig
from ai_memory.adapters.kafka.dead_letter import (
    PROJECTION,
    REASON,
    RESOLVED,
    dead_letter_record,
    header_dict,
    resolved_record,
)
from ai_memory.adapters.kafka.dead_letters import KafkaDeadLetters
from ai_memory.core.ports import DeadLetters
from ai_memory.core.positions import pack
from tests.contract.dead_letters_contract import DeadLettersContract, MakeStore, letter
from tests.kafka_requests import count_fetches


class TestKafkaDeadLetters(DeadLettersContract):
    @pytest.fixture
    def make_store(self, kafka_bootstrap: str) -> Iterator[MakeStore]:
        config = KafkaLogConfig(kafka_bootstrap, f"dlq-test-{uuid.uuid4().hex[:10]}", 1)
        opened: list[KafkaDeadLetters] = []

        def make() -> DeadLetters:
            store = KafkaDeadLetters(config)
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()


def test_one_record_format_names_the_projection_and_the_source() -> None:
    key, value, headers = dead_letter_record(
        b"raw", "bad_magic", pack(2, 5), "aimem.events", projection="index", error="E: x"
    )
    got = header_dict(headers)
    assert key == b"index:" + str(pack(2, 5)).encode() and value == b"raw"
    assert got[REASON] == "bad_magic" and got[PROJECTION] == "index"
    assert got["aimem.dlq.partition"] == "2" and got["aimem.dlq.offset"] == "5"
    marker_key, _, marker = resolved_record("index", pack(2, 5))
    assert marker_key == key and header_dict(marker)[RESOLVED] == "1"


def test_an_idle_store_sends_no_fetches(
    kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store reads its topic when asked; an assigned consumer left running fetched in
    the background twenty times a second for the life of every gateway."""
    config = KafkaLogConfig(kafka_bootstrap, f"dlq-test-{uuid.uuid4().hex[:10]}", 1)
    store = KafkaDeadLetters(config)
    try:
        store.put(letter(pack(0, 3), "index"))
        assert store.counts() == {"index": 1}
        fetches = count_fetches(monkeypatch)
        threading.Event().wait(2.0)
        assert len(fetches) <= 2, fetches  # one in flight when it was paused, at most
        assert store.counts() == {"index": 1}  # and it still reads when asked
    finally:
        store.close()
