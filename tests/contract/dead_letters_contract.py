"""The DeadLetters contract: the embedded SQLite table and the Kafka dead-letter topic pass it.

``make_store`` returns a factory: every call opens another store on the same backing data,
as the server and the ``ai-memory dead-letters`` command would."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from ai_memory.core.ports import DeadLetter, DeadLetters
from tests.factories import T0

MakeStore = Callable[[], DeadLetters]


def letter(
    position: int = 7, projection: str = "index", *, attempts: int = 3, at_s: float = 0, **kw: str
) -> DeadLetter:
    at = T0 + timedelta(seconds=at_s)
    return DeadLetter(
        projection=projection,
        position=position,
        partition=0,
        reason=kw.get("reason", "projection:internal_error"),
        error=kw.get("error", "ValueError: year 10000 is out of range"),
        raw=kw.get("raw", "\x00raw event bytes\xff").encode("latin-1"),
        attempts=attempts,
        first_failed_at=at,
        last_failed_at=at,
    )


class DeadLettersContract:
    @pytest.fixture
    def make_store(self) -> MakeStore:
        raise NotImplementedError

    def test_empty(self, make_store: MakeStore) -> None:
        store = make_store()
        assert store.entries() == [] and store.counts() == {}
        assert store.get("index", 1) is None
        assert store.resolve("index", 1) is False

    def test_put_then_read_every_field(self, make_store: MakeStore) -> None:
        store = make_store()
        entry = letter()
        assert store.put(entry) == entry
        assert store.get("index", 7) == entry
        assert store.entries() == [entry]
        assert make_store().get("index", 7) == entry  # another process sees it

    def test_parking_again_keeps_the_first_failure_and_adds_attempts(
        self, make_store: MakeStore
    ) -> None:
        store = make_store()
        store.put(letter(attempts=3))
        again = store.put(letter(attempts=1, at_s=60, error="ValueError: still broken"))
        assert again.attempts == 4
        assert again.first_failed_at == T0
        assert again.last_failed_at == T0 + timedelta(seconds=60)
        assert again.error == "ValueError: still broken"
        assert store.get("index", 7) == again
        assert store.counts() == {"index": 1}

    def test_listing_is_per_projection_and_ordered(self, make_store: MakeStore) -> None:
        store = make_store()
        for position, projection in [(9, "index"), (3, "records"), (2, "index"), (5, "index")]:
            store.put(letter(position, projection))
        assert [(e.projection, e.position) for e in store.entries()] == [
            ("index", 2),
            ("index", 5),
            ("index", 9),
            ("records", 3),
        ]
        assert [e.position for e in store.entries("index")] == [2, 5, 9]
        assert [e.position for e in store.entries("index", limit=2)] == [2, 5]
        assert store.counts() == {"index": 3, "records": 1}

    def test_the_same_position_in_two_projections_is_two_entries(
        self, make_store: MakeStore
    ) -> None:
        store = make_store()
        store.put(letter(4, "index"))
        store.put(letter(4, "records"))
        assert store.resolve("index", 4) is True
        assert store.get("index", 4) is None
        assert store.get("records", 4) is not None

    def test_resolve_removes_once(self, make_store: MakeStore) -> None:
        store = make_store()
        store.put(letter(1))
        store.put(letter(2))
        assert store.resolve("index", 1) is True
        assert store.resolve("index", 1) is False
        assert [e.position for e in make_store().entries()] == [2]
        assert store.counts() == {"index": 1}

    def test_a_resolved_event_can_be_parked_again(self, make_store: MakeStore) -> None:
        store = make_store()
        store.put(letter(1, attempts=2))
        store.resolve("index", 1)
        again = store.put(letter(1, attempts=1, at_s=5))
        assert again.attempts == 1 and again.first_failed_at == T0 + timedelta(seconds=5)
        assert store.counts() == {"index": 1}

    def test_empty_and_binary_bytes_round_trip(self, make_store: MakeStore) -> None:
        store = make_store()
        store.put(letter(1, raw=""))
        store.put(letter(2, raw="".join(chr(i) for i in range(256))))
        got = store.get("index", 1)
        assert got is not None and got.raw == b""
        got = store.get("index", 2)
        assert got is not None and got.raw == bytes(range(256))
