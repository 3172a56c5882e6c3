"""One stored-memories quota for a whole deployment: two gateways, one number.

Two ``ai-memory serve`` processes share one Kafka log and one Cassandra keyspace, with a
records worker and the usage worker (``ai-memory project --projection usage``) running.
The tenant may store ``QUOTA`` memories. Writers hammer both gateways at once with new
memories until every write is refused. Then, once everything is projected:

* the store holds at least the quota (the gateways did not refuse early) and at most
  ``QUOTA + OVERSHOOT`` — what was created through the *other* gateway while a count was
  being trusted (``service/quotas.py``); the overshoot measured is printed;
* both gateways report the same usage (``GET /v1/usage``), equal to the store's count —
  they read one table, not their own tallies;
* a new memory is refused by both, an update is still accepted, and after forgets each
  gateway admits new memories again: the room freed on one is seen by the other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from loadtest.cluster import Cluster

from ai_memory.adapters.cassandra.record_store import CassandraRecordStore

QUOTA = 150
#: Generous on a shared 2-core box: what the other gateway creates while a count is
#: trusted (1 s) and while the table trails the log; measured 5 at the last run.
OVERSHOOT = 120
BODY = {"type": "fact", "scope": "user:alice", "source_agent": "e2e"}


@pytest.fixture
def gateways(
    tmp_path: Path, kafka_bootstrap: str, cassandra_contact: str
) -> Iterator[tuple[Cluster, Cluster]]:
    first = Cluster(tmp_path / "a", kafka_bootstrap, cassandra_contact)
    second = first.another_gateway(tmp_path / "b")
    for c in (first, second):
        c.env["AIMEM_TENANT_MAX_MEMORIES"] = str(QUOTA)
    yield first, second
    second.stop()
    first.stop()


def put(url: str, memory_id: str, content: str) -> int:
    r = httpx.put(f"{url}/v1/memories/{memory_id}", json={**BODY, "content": content}, timeout=60)
    if r.status_code == 403:
        assert r.json()["code"] == "quota_exceeded", r.text
    else:
        assert r.status_code in (200, 201), r.text
    return r.status_code


def usage(url: str) -> dict[str, Any]:
    r = httpx.get(f"{url}/v1/usage", timeout=30)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def settled(cluster: Cluster, store: CassandraRecordStore, expected: int) -> dict[str, Any]:
    """The gateway's usage once the table counts what the store holds (both caught up)."""
    deadline = time.monotonic() + 120
    while True:
        cluster.wait_caught_up()
        body = usage(cluster.url)
        if body["memories"] == expected == store.count("default"):
            return body
        assert time.monotonic() < deadline, (body, expected, store.count("default"))
        time.sleep(0.5)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_two_gateways_enforce_one_quota_from_the_usage_table(
    gateways: tuple[Cluster, Cluster],
) -> None:
    first, second = gateways
    first.start_gateway()
    second.start_gateway()
    first.start_worker(1)  # records
    first.start_worker(1, projection="usage")
    # The usage table exists (the usage worker has folded a first write) before the
    # race starts: until then a gateway counts its record store instead.
    assert put(first.url, "warm-up", "the first memory") in (200, 201)
    deadline = time.monotonic() + 180
    while usage(first.url)["memories"] < 1 or usage(second.url)["memories"] < 1:
        assert time.monotonic() < deadline, "the usage table never counted the first write"
        time.sleep(0.5)

    created = ["warm-up"]
    lock = threading.Lock()

    def writer(n: int, url: str) -> None:
        refused_in_a_row = 0
        i = 0
        while refused_in_a_row < 20:
            status = put(url, f"w{n}-{i}", f"writer {n} memory {i}")
            i += 1
            if status == 403:
                refused_in_a_row += 1
                time.sleep(0.1)  # past the quota: a recount may still free nothing
            else:
                refused_in_a_row = 0
                with lock:
                    created.append(f"w{n}-{i - 1}")

    threads = [
        threading.Thread(target=writer, args=(n, g.url))
        for n, g in enumerate((first, second, first, second))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    store = CassandraRecordStore.from_url(first.store_url)
    try:
        stored = len(created)
        one, two = settled(first, store, stored), settled(second, store, stored)
        overshoot = stored - QUOTA
        print(f"quota {QUOTA}: {stored} stored through two gateways, overshoot {overshoot}")
        assert QUOTA <= stored <= QUOTA + OVERSHOOT
        assert (one["memories"], one["bytes"]) == (two["memories"], two["bytes"])

        for g in (first, second):  # full: refused on both; updates always work
            assert put(g.url, f"late-{g.port}", "one more") == 403
            assert put(g.url, "warm-up", f"updated through {g.port}") in (200, 201)
        # Forget through one gateway enough to make room; the other sees the room.
        room = stored - QUOTA + 5
        for memory in created[1 : room + 1]:
            r = httpx.delete(f"{first.url}/v1/memories/{memory}", timeout=60)
            assert r.status_code == 200, r.text
        settled(second, store, stored - room)
        assert put(second.url, "after-forget", "room made on the other gateway") in (200, 201)
    finally:
        store.close()
