"""LoCoMo dialog turns as the scale corpus, its questions as the queries.

The data set (``locomo10.json``, CC BY-NC 4.0) is read from a path the user gives; none
of it ships with ai-memory. Only what a load profile needs is read: each turn becomes
``"{speaker}: {text}"`` and each question's ``question`` is a query. LoCoMo has about
5,900 turns, so larger sizes cycle through them; every lap after the first adds a suffix
naming it, so no two memories have the same content (identical texts would all tie in
search and measure something no real tenant holds).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai_memory.benchmarks.layout import scope_of

_SESSION = re.compile(r"^session_\d+$")


class LocomoError(ValueError):
    """The file is not a LoCoMo data set (or holds no turns or questions)."""


@dataclass(frozen=True)
class LocomoCorpus:
    turns: Sequence[str]
    queries: Sequence[str]
    name: str = "locomo"

    def records(self, start: int, stop: int) -> Iterator[dict[str, Any]]:
        count = len(self.turns)
        for n in range(start, stop):
            lap, turn = divmod(n, count)
            content = self.turns[turn] if lap == 0 else f"{self.turns[turn]} (retold, lap {lap})"
            yield {
                "id": f"locomo-{n}",
                "type": "interaction",
                "content": content,
                "scope": scope_of(n),
                "source_agent": "locomo",
                "tags": ["locomo"],
                "created_at": 1_700_000_000 + n * 37,
            }


def _turns(sample: Mapping[str, Any]) -> list[str]:
    conversation = sample["conversation"]
    sessions = sorted(
        (int(key.rsplit("_", 1)[1]), key) for key in conversation if _SESSION.match(key)
    )
    return [f"{t['speaker']}: {t['text']}" for _, key in sessions for t in conversation[key]]


def load(path: Path) -> LocomoCorpus:
    try:
        with open(path, encoding="utf-8") as f:
            samples = json.load(f)
        turns = [text for sample in samples for text in _turns(sample)]
        queries = [str(q["question"]) for sample in samples for q in sample["qa"]]
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        raise LocomoError(f"cannot read {path} as LoCoMo ({type(e).__name__}: {e})") from None
    if not turns or not queries:
        raise LocomoError(f"{path} holds no dialog turns or no questions")
    return LocomoCorpus(turns, queries)
