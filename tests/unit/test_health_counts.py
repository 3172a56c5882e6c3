"""/healthz never waits long on the dead-letter store (a Kafka topic may be unreachable)."""

from __future__ import annotations

import threading
import time
from typing import Any

from ai_memory.service import health


class SlowStore:
    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def counts(self) -> dict[str, int]:
        self.calls += 1
        self.release.wait(10)
        return {"index": 2}

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


def test_an_unreachable_store_does_not_hold_the_health_check(monkeypatch: Any) -> None:
    monkeypatch.setattr(health, "FIRST_COUNT_WAIT_SECONDS", 0.05)
    health.forget_cached_counts()
    store = SlowStore()
    start = time.monotonic()
    counts, error = health.dead_letter_counts(store)
    assert time.monotonic() - start < 1.0
    assert counts == {} and error == "dead letters not counted yet"
    health.dead_letter_counts(store)
    assert store.calls == 1  # one refresh in flight at a time
    store.release.set()
    deadline = time.monotonic() + 5
    while health.dead_letter_counts(store)[0] != {"index": 2}:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    health.forget_cached_counts()


def test_a_failing_store_is_reported_not_raised() -> None:
    class Broken:
        def counts(self) -> dict[str, int]:
            raise OSError("no route to host")

    health.forget_cached_counts()
    counts, error = health.dead_letter_counts(Broken())  # type: ignore[arg-type]
    assert counts == {} and error == "OSError: no route to host"
    health.forget_cached_counts()


def test_a_partition_writer_that_cannot_take_over_degrades_health() -> None:
    from ai_memory.service.health import HealthService

    def writers(state: str, error: str | None) -> dict[str, Any]:
        return {
            "advertised": "http://10.0.0.7:7070",
            "owners": {"0": "http://10.0.0.7:7070"},
            "partitions": [{"partition": 0, "state": state, "last_error": error}],
        }

    def health(state: str, error: str | None) -> dict[str, Any]:
        service = HealthService(
            statuses=list,
            drivers=list,
            dead_letters=None,
            embedder="static",
            writers=lambda: writers(state, error),
        )
        return service.report("test")

    assert health("writing", None)["status"] == "ok"
    assert health("taking_over", None)["status"] == "ok"  # starting: not a fault yet
    failing = health("taking_over", "KafkaConnectionError: refused")
    assert failing["status"] == "degraded"
    assert failing["writers"]["partitions"][0]["last_error"].startswith("KafkaConnection")
