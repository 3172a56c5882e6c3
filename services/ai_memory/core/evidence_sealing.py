"""Which parts of a decision's evidence are personal (pure rules, ``docs/design/FORGETTING.md``).

A ``MemoryStateChanged.decision_json`` explains a state change: the rule, the scores, the
threshold, the ids involved — and, for a conflict, the detector's reason and a judge's
recorded inputs and output, which quote the slot values of both memories ("auckland ↔
sydney"). Lineage must stay explainable after a forget, so the first kind stays clear;
the second is personal and is sealed under the data keys of every memory the decision
quotes (the judged memory and the one that superseded it), nested, so destroying either
key makes it unreadable.

Only listed keys stay clear: a field a detector adds later is sealed until someone
decides it says nothing about a person.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: Evidence keys that carry rules, ids, scores and thresholds — never content.
CLEAR_KEYS = frozenset(
    {
        "cause",
        "theta",
        "margin",
        "new_score",
        "old_score",
        "archive_margin",
        "detector",
        "superseded_by",
        "kept",
        "by",
        "tau_forget",
        "score",
        "expires_at",
    }
)
#: Where the ciphertext of the personal parts sits in a sealed decision.
SEALED_KEY = "sealed"
#: What a decision says in place of its personal parts once a key they were sealed
#: under is gone.
FORGOTTEN_KEY = "evidence_forgotten"


def split_evidence(decision: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(clear, personal) parts of a decision."""
    clear = {k: v for k, v in decision.items() if k in CLEAR_KEYS}
    personal = {k: v for k, v in decision.items() if k not in CLEAR_KEYS}
    return clear, personal


def quoted_memories(memory_id: str, decision: Mapping[str, Any]) -> list[str]:
    """The memories whose keys seal a decision's personal parts: the judged one, and the
    one that superseded it (the conflict quotes its value too)."""
    ids = [memory_id]
    by = decision.get("superseded_by")
    if isinstance(by, str) and by not in ids:
        ids.append(by)
    return ids


def canonical(obj: Any) -> str:
    """The JSON text a decision is stored as: sorted keys, no whitespace."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
