"""Recorded decisions: the output of a non-deterministic judge, kept for replay.

An LLM or NLI model judging a conflict, or an LLM extracting memories, is not a pure
function. Its answer is captured once as a ``RecordedDecision`` (model name, inputs,
output) and stored in the event (``MemoryStateChanged.decision_json``); a replay rebuilds
the outcome from the record and never calls the model again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RecordedDecision:
    kind: str  # e.g. "conflict.llm_judge", "extraction.llm"
    model: str  # the exact model (and version) that decided
    inputs: Mapping[str, Any] = field(default_factory=dict)
    output: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, UTF-8 kept) — stable across replays."""
        return json.dumps(
            {
                "kind": self.kind,
                "model": self.model,
                "inputs": dict(self.inputs),
                "output": dict(self.output),
            },
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> RecordedDecision:
        data = json.loads(text)
        if not isinstance(data, dict) or not {"kind", "model"} <= data.keys():
            raise ValueError("a recorded decision needs at least 'kind' and 'model'")
        inputs = data.get("inputs") or {}
        output = data.get("output") or {}
        if not isinstance(inputs, dict) or not isinstance(output, dict):
            raise ValueError("'inputs' and 'output' of a recorded decision must be objects")
        return cls(kind=str(data["kind"]), model=str(data["model"]), inputs=inputs, output=output)


#: The name the design uses for it.
Decision = RecordedDecision
