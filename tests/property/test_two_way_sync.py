"""Two instances syncing both ways converge (``sdk.replication``, ``core.convergence``).

Two embedded instances, each with its own clock moved independently (so their clocks
are skewed by up to minutes), take random writes, updates and forgets of a few shared
ids, interleaved with one-way sync passes in both directions that resume from their
saved cursors. After a final pass each way both instances hold the same memories —
what is replicated of them: fields and state; versions, ``updated_at`` and read counts
are each instance's own, and ``meta._sync`` is the stamp replication adds — and the
same tombstones; every id forgotten anywhere is forgotten on both.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai_memory.bootstrap import build
from ai_memory.core.convergence import SYNC_META_KEY
from ai_memory.sdk import GoneError, MemoryIn, NotFoundError
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.sdk.replication import Replicator
from ai_memory.settings import Settings
from tests.factories import FixedClock

IDS = [f"m{i}" for i in range(4)]
SCOPE = "team:sync"
_tenants = itertools.count()


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    made: dict[str, Any] = {}
    for name in ("a", "b"):
        clock = FixedClock()
        container = build(
            Settings(data_dir=tmp_path_factory.mktemp(f"sync-{name}") / "data"), clock=clock
        )
        container.start()
        made[name] = (container, clock)
    yield made
    for container, _ in made.values():
        container.close()


op = st.tuples(
    st.sampled_from(["a", "b"]),
    st.sampled_from(["write", "write", "forget", "sync"]),
    st.sampled_from(IDS),
    st.integers(0, 2),  # which content
    st.integers(0, 90_000),  # ms the acting instance's clock moves first
)


def normalized(client: InProcessClient) -> tuple[dict[str, Any], set[str]]:
    records: dict[str, Any] = {}
    tombstones: set[str] = set()
    for line in map(json.loads, client.export_lines(SCOPE)):
        if line["kind"] == "record":
            record = dict(line["record"])
            record["meta"] = {k: v for k, v in record["meta"].items() if k != SYNC_META_KEY}
            records[record["id"]] = {**record, "state": line["state"]}
        elif line["kind"] == "tombstone":
            tombstones.add(line["id"])
    return records, tombstones


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(op, max_size=30))
def test_two_instances_syncing_both_ways_converge(
    instances: dict[str, Any], ops: list[tuple[str, str, str, int, int]]
) -> None:
    tenant = f"t{next(_tenants)}"  # a fresh tenant per example on the same two instances
    clients = {n: InProcessClient(c, tenant=tenant) for n, (c, _) in instances.items()}
    clocks: dict[str, FixedClock] = {n: clock for n, (_, clock) in instances.items()}
    other = {"a": "b", "b": "a"}
    cursors: dict[str, str | None] = {"a": None, "b": None}  # per direction, by source
    forgotten: set[str] = set()

    def sync(source: str) -> None:
        target = other[source]
        replicator = Replicator(
            clients[source], clients[target], SCOPE, source_name=source, target_name=target
        )
        replicator.batch = 3  # small batches: resuming from saved cursors is exercised
        report = replicator.run(cursors[source])
        cursors[source] = report.cursor

    for side, action, memory_id, variant, ms in ops:
        clocks[side].advance(ms / 1000)
        client = clients[side]
        if action == "write":
            record = MemoryIn(
                content=f"{memory_id} says {variant} on {side}",
                type="fact",
                scope=SCOPE,
                source_agent=f"agent-{side}",
                tags=[f"v{variant}"],
            )
            with contextlib.suppress(GoneError):  # forgotten here: ids are never reused
                client.upsert(memory_id, record, wait=True)
        elif action == "forget":
            try:
                client.delete(memory_id, wait=True)
                forgotten.add(memory_id)
            except NotFoundError:
                pass
        else:
            sync(side)

    sync("a")
    sync("b")
    a, b = normalized(clients["a"]), normalized(clients["b"])
    assert a == b
    assert forgotten <= a[1]  # a forget wins over every concurrent write
    assert not forgotten & set(a[0])
