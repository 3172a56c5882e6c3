"""``client.changes`` over real HTTP (sync and async iterators) and in process: entries
as the feed serves them, ``follow=False`` stops when caught up, a follower sees a later
write, and a restart from the last entry's cursor repeats nothing."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from ai_memory.bootstrap import Container
from ai_memory.sdk import AsyncMemoryClient, ChangeOut, InvalidInputError, MemoryClient, MemoryIn
from ai_memory.sdk.in_process import InProcessClient
from tests.isolation_probe import LiveServer


@pytest.fixture
def server(container: Container) -> Iterator[LiveServer]:
    live = LiveServer(container)
    yield live
    live.stop()


def write(client: MemoryClient | InProcessClient, memory_id: str, scope: str = "user:ana") -> None:
    record = MemoryIn(content=f"{memory_id} likes tea", type="fact", scope=scope, source_agent="a")
    client.upsert(memory_id, record, wait=True)


def test_sync_iterator_catches_up_resumes_and_follows(server: LiveServer) -> None:
    with MemoryClient(server.url, timeout=30) as client:
        for i in range(5):
            write(client, f"m{i}")
        write(client, "other", "user:bob")
        client.delete("m1", wait=True)
        seen = list(client.changes("user:ana", follow=False, limit=2))
        assert all(isinstance(c, ChangeOut) for c in seen)
        assert [(c.kind, c.id) for c in seen] == [
            *[("written", f"m{i}") for i in range(5)],
            ("forgotten", "m1"),
        ]
        # A restart from the third entry's cursor: the rest, nothing twice.
        again = list(client.changes("user:ana", since=seen[2].cursor, follow=False))
        assert [c.cursor for c in again] == [c.cursor for c in seen[3:]]

        def later() -> None:
            time.sleep(0.3)
            with MemoryClient(server.url, timeout=30) as other:
                write(other, "late")

        thread = threading.Thread(target=later)
        thread.start()
        follower = client.changes("user:ana", since=seen[-1].cursor, poll_timeout=5)
        assert next(follower).id == "late"
        thread.join()
        with pytest.raises(InvalidInputError):
            list(client.changes(since="bogus", follow=False))


def test_async_iterator(server: LiveServer) -> None:
    with MemoryClient(server.url, timeout=30) as client:
        write(client, "a1")
        write(client, "a2")

    async def read() -> list[str]:
        async with AsyncMemoryClient(server.url, timeout=30) as client:
            ids = [c.id async for c in client.changes(follow=False)]
            start = await anext(aiter(client.changes(since="now", follow=False)), None)
            assert start is None  # nothing after "now"
            return ids

    assert asyncio.run(read()) == ["a1", "a2"]


def test_in_process_client_follows_the_log(container: Container) -> None:
    client = InProcessClient(container)
    write(client, "p1")
    assert [c.id for c in client.changes(follow=False)] == ["p1"]
    cursor = next(iter(client.changes(follow=False))).cursor
    threading.Timer(0.2, lambda: write(InProcessClient(container), "p2")).start()
    began = time.monotonic()
    assert next(client.changes(since=cursor, poll_timeout=5)).id == "p2"
    assert time.monotonic() - began < 4
