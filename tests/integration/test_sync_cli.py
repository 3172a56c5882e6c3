"""``ai-memory sync`` between two real servers (uvicorn over loopback): writes, updates,
forgets and states travel; a second run resumes from the state file and writes nothing;
a state file of another sync is refused; ``--follow`` (the replicator following the
source's feed) brings a later write across."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ai_memory.bootstrap import build
from ai_memory.entrypoints.cli.main import app
from ai_memory.sdk import GoneError, MemoryClient, MemoryIn
from ai_memory.sdk.replication import Replicator
from ai_memory.settings import Settings
from tests.isolation_probe import LiveServer

SCOPE = "team:ops"


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[LiveServer, LiveServer]]:
    containers = [build(Settings(data_dir=tmp_path / name)) for name in ("a", "b")]
    for c in containers:
        c.start()
    servers = [LiveServer(c) for c in containers]
    yield servers[0], servers[1]
    for s in servers:
        s.stop()
    for c in containers:
        c.close()


def put(client: MemoryClient, memory_id: str, content: str) -> None:
    record = MemoryIn(content=content, type="fact", scope=SCOPE, source_agent="ops")
    client.upsert(memory_id, record, wait=True)


def sync(a: str, b: str, state: Path, *extra: str) -> dict[str, Any]:
    args = ["sync", "--from", a, "--to", b, "--scope", SCOPE, "--state", str(state), *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


def test_sync_carries_writes_and_forgets_and_resumes(
    pair: tuple[LiveServer, LiveServer], tmp_path: Path
) -> None:
    a, b = pair
    state = tmp_path / "a-to-b.json"
    with MemoryClient(a.url) as ca, MemoryClient(b.url) as cb:
        put(ca, "m1", "the deploy window is Tuesday")
        put(ca, "m2", "the on-call rota rotates weekly")
        put(ca, "m1", "the deploy window is Thursday")
        ca.delete("m2", wait=True)
        report = sync(a.url, b.url, state)
        assert (report["to_target"], report["tombstones"]) == (1, 1)
        assert cb.get("m1").content == "the deploy window is Thursday"
        with pytest.raises(GoneError):
            cb.get("m2")
        assert json.loads(state.read_text())["cursor"] == report["cursor"]

        again = sync(a.url, b.url, state)  # resumes after the cursor: nothing to do
        assert again["entries"] == 0 and again["to_target"] == 0

        # Concurrent edits: a's is older than b's, so b's wins on both instances, even
        # in a pass from a to b (the pass settles every memory it reads both ways).
        put(ca, "m1", "the deploy window is Saturday")
        time.sleep(0.01)
        put(cb, "m1", "the deploy window is Friday")
        put(ca, "m3", "backups run nightly")
        report = sync(a.url, b.url, state)
        assert (report["to_target"], report["to_source"]) == (1, 1)
        assert ca.get("m1").content == cb.get("m1").content == "the deploy window is Friday"
        assert cb.get("m3").content == "backups run nightly"
        # The reverse pass finds both sides equal: nothing written.
        back = sync(b.url, a.url, tmp_path / "b-to-a.json")
        assert (back["to_target"], back["to_source"]) == (0, 0)

        wrong = CliRunner().invoke(
            app, ["sync", "--from", b.url, "--to", a.url, "--scope", SCOPE, "--state", str(state)]
        )
        assert wrong.exit_code != 0 and "another sync" in wrong.output


def test_follow_brings_a_later_write_across(pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    stop = threading.Event()
    failures: list[BaseException] = []

    def follow() -> None:
        with MemoryClient(a.url) as ca, MemoryClient(b.url) as cb:
            replicator = Replicator(ca, cb, SCOPE, source_name="a", target_name="b")
            try:
                replicator.run("now", follow=True, stop=stop.is_set, poll_timeout=2)
            except Exception as e:  # the servers stop under a long-poll at the end
                if not stop.is_set():
                    failures.append(e)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    time.sleep(0.5)
    with MemoryClient(a.url) as ca, MemoryClient(b.url) as cb:
        put(ca, "late", "a write after the sync started")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if cb.get("late").content == "a write after the sync started":
                    break
            except Exception:
                time.sleep(0.05)
        else:
            pytest.fail("the write never reached b")
    stop.set()
    assert not failures
