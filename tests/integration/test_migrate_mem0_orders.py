"""Mem0's artefacts migrated in any order, together or one by one: the same final state
or a clear refusal, never a memory in a wrong scope (artefacts written by the real
mem0ai 2.2.1, see ``tests/fixtures/migration/mem0_real/README.md``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ai_memory.bootstrap import build
from ai_memory.core.timeparse import format_timestamp, parse_timestamp
from ai_memory.migration.migrate import MigrationError, migrate
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.settings import Settings

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "migration" / "mem0_real"
TRUTH: dict[str, dict[str, Any]] = json.loads((REAL / "truth.json").read_text("utf-8"))
USERS = ("alice", "bob", "chen")


Tombstones = dict[str, tuple[str, str, str]]


def _state(data: Path) -> tuple[dict[str, tuple[str, str, str]], Tombstones]:
    """Records id → (scope, content, created_at) and tombstones id → (scope, deleted_at,
    reason) of a data dir."""
    container = build(Settings(data_dir=data))
    container.start()
    try:
        lines = [json.loads(x) for x in InProcessClient(container).export_lines(None)]
    finally:
        container.close()
    records = {
        x["record"]["id"]: (x["record"]["scope"], x["record"]["content"], x["record"]["created_at"])
        for x in lines
        if x["kind"] == "record"
    }
    tombstones = {
        x["id"]: (x["scope"], x["deleted_at"], x["reason"])
        for x in lines
        if x["kind"] == "tombstone"
    }
    return records, tombstones


def _utc(value: str) -> str:
    return format_timestamp(parse_timestamp(value))


def _source(tmp: Path, name: str, *files: str) -> Path:
    folder = tmp / name
    folder.mkdir()
    for file in files:
        shutil.copy(REAL / "artefacts" / file, folder / file)
    return folder if len(files) > 1 else folder / files[0]


def _migrate_all(tmp: Path, steps: list[tuple[str, ...]]) -> list[str]:
    """Run each step as one migration into one data dir; the refusals' messages."""
    refusals: list[str] = []
    for index, files in enumerate(steps):
        try:
            migrate(_source(tmp, f"step{index}", *files), to=str(tmp / "data"))
        except MigrationError as e:
            refusals.append(str(e))
    return refusals


def _assert_in_the_right_scopes(records: dict[str, tuple[str, str, str]]) -> None:
    for memory_id, (scope, content, _) in records.items():
        truth = TRUTH[memory_id]
        assert not truth["deleted"]
        assert scope == f"user:{truth['user_id']}", memory_id
        assert content == truth["memory"]


GET_ALL = tuple(f"get_all_{u}.json" for u in USERS)
EVERYTHING = ("history.db", *GET_ALL)
SURVIVORS = {m for m, t in TRUTH.items() if not t["deleted"]}
DELETED = {m for m, t in TRUTH.items() if t["deleted"]}


@pytest.fixture(scope="module")
def together(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("together")
    assert _migrate_all(tmp, [EVERYTHING]) == []
    return _state(tmp / "data")


def test_together_is_exact(together: Any) -> None:
    records, tombstones = together
    assert set(records) == SURVIVORS and set(tombstones) == DELETED
    _assert_in_the_right_scopes(records)
    for memory_id, (_, _, created_at) in records.items():
        assert created_at == _utc(TRUTH[memory_id]["history"][0]["created_at"])
    for memory_id, (scope, deleted_at, reason) in tombstones.items():
        # Mem0's own deletion time (the DELETE row's updated_at) and reason, kept; the
        # owner of a deleted memory is in no artefact, and the scope says so
        assert deleted_at == _utc(TRUTH[memory_id]["history"][-1]["updated_at"])
        assert (scope, reason) == ("mem0:unknown-owner", "imported:mem0_delete")


@pytest.mark.parametrize(
    "steps",
    [
        [(g,) for g in reversed(GET_ALL)] + [EVERYTHING],  # get_all files first, then all
        [
            ("history.db", "get_all_alice.json"),
            ("get_all_bob.json",),
            ("get_all_chen.json",),
            ("history.db", "get_all_bob.json", "get_all_chen.json"),
        ],
        [EVERYTHING, ("get_all_chen.json",), EVERYTHING],  # re-runs change nothing
    ],
    ids=["get_all-then-together", "history-with-one-user-then-the-rest", "reruns"],
)
def test_any_order_of_complete_steps_ends_in_the_same_state(
    tmp_path: Path, together: Any, steps: list[tuple[str, ...]]
) -> None:
    _migrate_all(tmp_path, steps)
    assert _state(tmp_path / "data") == together


@pytest.mark.parametrize(
    "steps",
    [
        [("history.db",), *[(g,) for g in GET_ALL]],  # the history alone, first
        [*[(g,) for g in GET_ALL], ("history.db",)],  # the history alone, last
    ],
    ids=["history-first", "history-last"],
)
def test_the_history_alone_is_refused_and_nothing_lands_in_a_wrong_scope(
    tmp_path: Path, together: Any, steps: list[tuple[str, ...]]
) -> None:
    refusals = _migrate_all(tmp_path, steps)
    assert len(refusals) == 1 and "get_all JSON files" in refusals[0]
    records, tombstones = _state(tmp_path / "data")
    assert records == together[0] and tombstones == {}
    _assert_in_the_right_scopes(records)
