"""Counting what a Kafka client asks the broker, for tests of what idle clients cost."""

from __future__ import annotations

from typing import Any

import aiokafka.conn
import pytest


def count_fetches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on (until the test ends), every fetch request any client of this process
    sends is appended to the returned list."""
    fetches: list[str] = []
    send = aiokafka.conn.AIOKafkaConnection.send

    def counted(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        if type(request).__name__.startswith("FetchRequest"):
            fetches.append(type(request).__name__)
        return send(self, request, *args, **kwargs)

    monkeypatch.setattr(aiokafka.conn.AIOKafkaConnection, "send", counted)
    return fetches
