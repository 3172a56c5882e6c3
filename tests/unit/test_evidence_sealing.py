"""Decision evidence: its personal parts are sealed under the keys of every memory it
quotes; the rule, ids, scores and thresholds stay clear (docs/design/FORGETTING.md)."""

from __future__ import annotations

import json

from ai_memory.adapters.memory.data_key_vault import VaultBacking, memory_vault
from ai_memory.core.data_keys import memory_key_id
from ai_memory.core.events import MemoryStateChanged
from ai_memory.core.evidence_sealing import FORGOTTEN_KEY, SEALED_KEY, split_evidence
from ai_memory.core.record import MemoryState
from ai_memory.serialization import AvroEventSerializer
from ai_memory.serialization.sealer import Sealer
from tests.factories import header

ROOT = bytes(range(32))
CANARY = "CANARY-evidence-7d1"
DECISION = {
    "cause": "conflict.theta.archive",
    "theta": 0.1,
    "margin": 0.3,
    "new_score": {"memory_id": "new", "total": 0.8},
    "old_score": {"memory_id": "old", "total": 0.5},
    "detector": "dictionary",
    "reason": f"residence: auckland ↔ {CANARY}",
    "decision": {"model": "judge", "inputs": [f"I moved to {CANARY}"], "output": 0.93},
    "superseded_by": "new",
}


def changed(decision: dict[str, object]) -> MemoryStateChanged:
    text = json.dumps(decision, sort_keys=True, separators=(",", ":"))
    return MemoryStateChanged(
        header(), "old", "user:alice", MemoryState.ACTIVE, MemoryState.ARCHIVED, "c", text
    )


def test_only_the_listed_keys_stay_clear() -> None:
    clear, personal = split_evidence({**DECISION, "something_new": "x"})
    assert set(personal) == {"reason", "decision", "something_new"}
    assert clear["superseded_by"] == "new" and clear["theta"] == 0.1


def test_the_personal_parts_reach_the_log_sealed_and_open_while_both_keys_live() -> None:
    sealer = Sealer(memory_vault(ROOT, VaultBacking()))
    s = AvroEventSerializer(sealer=sealer)
    frame = s.encode(changed(DECISION))
    assert CANARY.encode() not in frame
    decoded = s.decode(frame)
    assert isinstance(decoded, MemoryStateChanged) and decoded.decision_json is not None
    stored = json.loads(decoded.decision_json)  # projections keep it sealed
    assert CANARY not in decoded.decision_json
    assert stored[SEALED_KEY]["key_ids"] == [memory_key_id("old"), memory_key_id("new")]
    assert {k: stored[k] for k in ("cause", "theta", "margin", "superseded_by")} == {
        k: DECISION[k] for k in ("cause", "theta", "margin", "superseded_by")
    }
    assert sealer.open_evidence("default", "old", stored) == DECISION
    # Moved onto another memory, it does not open.
    assert FORGOTTEN_KEY in sealer.open_evidence("default", "other", stored)


def test_destroying_either_quoted_key_forgets_the_evidence() -> None:
    for gone in ("old", "new"):
        sealer = Sealer(memory_vault(ROOT, VaultBacking()))
        s = AvroEventSerializer(sealer=sealer)
        decoded = s.decode(s.encode(changed(DECISION)))
        assert isinstance(decoded, MemoryStateChanged) and decoded.decision_json is not None
        sealer.forget(header().tenant, memory_key_id(gone))
        opened = sealer.open_evidence(header().tenant, "old", json.loads(decoded.decision_json))
        assert opened[FORGOTTEN_KEY] is True and "reason" not in opened
        assert opened["superseded_by"] == "new"


def test_a_decision_quoting_a_forgotten_memory_is_written_without_its_personal_parts() -> None:
    sealer = Sealer(memory_vault(ROOT, VaultBacking()))
    sealer.forget(header().tenant, memory_key_id("new"))
    s = AvroEventSerializer(sealer=sealer)
    frame = s.encode(changed(DECISION))
    assert CANARY.encode() not in frame
    decoded = s.decode(frame)
    assert isinstance(decoded, MemoryStateChanged) and decoded.decision_json is not None
    assert json.loads(decoded.decision_json)[FORGOTTEN_KEY] is True


def test_evidence_with_nothing_personal_is_left_as_it_is() -> None:
    sealer = Sealer(memory_vault(ROOT, VaultBacking()))
    s = AvroEventSerializer(sealer=sealer)
    plain = {"cause": "ttl.expired", "expires_at": "2026-01-01T00:00:00+00:00"}
    decoded = s.decode(s.encode(changed(plain)))
    assert isinstance(decoded, MemoryStateChanged)
    assert json.loads(decoded.decision_json or "") == plain
