"""The model cache: location from the environment, build-once, atomic publication."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ai_memory.adapters.embedders.cache import ENV_VAR, materialise, model_cache_dir


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "models"))
    assert model_cache_dir() == tmp_path / "models"
    monkeypatch.setenv(ENV_VAR, "")
    assert model_cache_dir() == Path("~/.cache/ai-memory/models").expanduser()


def test_builds_once_and_reuses(tmp_path: Path) -> None:
    calls: list[Path] = []

    def write(target: Path) -> None:
        calls.append(target)
        (target / "data").write_text("v1")

    first = materialise(tmp_path, "artefact-v1", write)
    second = materialise(tmp_path, "artefact-v1", write)
    assert first == second == tmp_path / "artefact-v1"
    assert (first / "data").read_text() == "v1"
    assert len(calls) == 1 and calls[0] != first  # written elsewhere, then renamed


def test_concurrent_callers_wait_for_one_build(tmp_path: Path) -> None:
    builds: list[int] = []
    results: list[Path] = []

    def write(target: Path) -> None:
        builds.append(1)
        time.sleep(0.2)
        (target / "data").write_text("done")

    def call() -> None:
        results.append(materialise(tmp_path, "shared-v1", write))

    threads = [threading.Thread(target=call) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1
    assert results == [tmp_path / "shared-v1"] * 6
    assert (tmp_path / "shared-v1" / "data").read_text() == "done"


def test_failed_build_publishes_nothing(tmp_path: Path) -> None:
    def write(target: Path) -> None:
        (target / "half").write_text("partial")
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        materialise(tmp_path, "broken-v1", write)
    assert not (tmp_path / "broken-v1").exists()
    assert not list(tmp_path.glob(".broken-v1.*.tmp"))


def test_leftovers_of_a_killed_build_are_removed(tmp_path: Path) -> None:
    stale = tmp_path / ".art-v1.abc123.tmp"
    stale.mkdir()
    (stale / "half").write_text("partial")

    def write(target: Path) -> None:
        (target / "data").write_text("ok")

    materialise(tmp_path, "art-v1", write)
    assert not stale.exists()
    assert (tmp_path / "art-v1" / "data").read_text() == "ok"
