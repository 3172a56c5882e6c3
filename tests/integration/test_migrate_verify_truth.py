"""Verification tells the truth: a memory the target holds in another scope fails every
probe that meets it, and the failure quotes what contradicts the expectation (where the
memory is, and the import's own rejection of its line)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ai_memory.migration.migrate import migrate

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "migration" / "mem0_real" / "artefacts"


def test_memories_held_in_a_wrong_scope_fail_with_the_contradicting_evidence(
    tmp_path: Path,
) -> None:
    data = str(tmp_path / "data")
    history = tmp_path / "history.db"
    shutil.copy(REAL / "history.db", history)
    # The user (wrongly) names one owner for the whole history: every memory lands there.
    first = migrate(history, to=data, scope_map={"mem0:unknown-owner": "user:default"})
    assert first.ok
    report = migrate(REAL / "get_all_alice.json", to=data).to_json()
    assert not report["ok"]
    assert report["import"]["rejected"] == 17  # the scope of a memory never changes
    checks = {c["check"]: c for c in report["checks"]}
    failures = checks["preferences"]["failures"] + checks["history"]["failures"]
    assert failures
    for failure in checks["preferences"]["failures"]:
        assert failure["problem"] == "in scope 'user:default', expected 'user:alice'"
        assert failure["target_scope"] == "user:default"
        assert failure["import_rejection"]["code"] == "scope_immutable"
    assert checks["preferences"]["failed"] == checks["preferences"]["checked"]
