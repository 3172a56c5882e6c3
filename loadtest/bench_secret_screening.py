"""False positives and cost of secret screening on ordinary memories: the plain detector
alone against plain + disguise (``core.secret_disguise``).

    python -m loadtest.bench_secret_screening [--locomo PATH]

Corpora (every text is ordinary: whatever is flagged is a false positive):

* **LoCoMo turns** — every turn of the 10 LoCoMo conversations (``AIMEM_LOCOMO_DATA``);
* **code** — the package's own source (``services/``), in chunks of 10 lines (the
  detector's own modules left out: they spell the prefixes out);
* **UUIDs**, **hex hashes** (SHA-1, SHA-256), **base64 hashes** (SHA-256) and **integrity
  strings** (``sha384-…``, ``sha512-…``), each in a sentence, 5,000 of each.

Reported per corpus: texts, flagged by the plain detector, flagged by plain + disguise
(and the kinds), the rate; then the cost per KB of both on the LoCoMo turns and the code.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ai_memory.core.secrets import find_plain, find_secrets
from loadtest.locomo import data_path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {"secrets.py", "secret_disguise.py", "secret_policy.py"}


def locomo_turns(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        samples = json.load(f)
    turns = []
    for sample in samples:
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [t["text"] for t in session if t.get("text")]
    return turns


def code_chunks() -> list[str]:
    chunks = []
    for path in sorted((ROOT / "services").rglob("*.py")):
        if path.name in SKIP:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        chunks += ["\n".join(lines[i : i + 10]) for i in range(0, len(lines), 10)]
    return chunks


def generated(n: int = 5000) -> dict[str, list[str]]:
    seeds = [os.urandom(32) for _ in range(n)]
    return {
        "UUIDs": [f"the run {uuid.uuid4()} finished; retry {uuid.uuid4()}" for _ in seeds],
        "hex hashes": [
            f"commit {hashlib.sha1(s).hexdigest()} has digest {hashlib.sha256(s).hexdigest()}"
            for s in seeds
        ],
        "base64 hashes": [
            f"etag {base64.b64encode(hashlib.sha256(s).digest()).decode()} cached" for s in seeds
        ],
        "integrity strings": [
            f'<script integrity="sha384-{base64.b64encode(hashlib.sha384(s).digest()).decode()}"'
            f' data-x="sha512-{base64.b64encode(hashlib.sha512(s).digest()).decode()}">'
            for s in seeds
        ],
    }


def flagged(
    texts: Sequence[str], find: Callable[[str], list[Any]]
) -> tuple[int, Counter[str], list[str]]:
    kinds: Counter[str] = Counter()
    examples: list[str] = []
    count = 0
    for text in texts:
        found = find(text)
        if found:
            count += 1
            kinds.update(f.kind for f in found)
            if len(examples) < 3:
                f = found[0]
                examples.append(f"{f.kind}: …{text[max(0, f.start - 20) : f.end + 20]!r}…")
    return count, kinds, examples


def cost_per_kb(texts: Sequence[str], find: Callable[[str], list]) -> float:  # type: ignore[type-arg]
    total = sum(len(t.encode()) for t in texts) / 1024
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for t in texts:
            find(t)
        best = min(best, time.perf_counter() - began)
    return best * 1000 / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", default=None)
    args = parser.parse_args()
    corpora = {"LoCoMo turns": locomo_turns(data_path(args.locomo)), "code": code_chunks()}
    corpora |= generated()
    print("| corpus | texts | flagged, plain | flagged, plain + disguise | rate | kinds |")
    print("|---|---:|---:|---:|---:|---|")
    notes = []
    for name, texts in corpora.items():
        plain, _, _ = flagged(texts, find_plain)
        both, kinds, examples = flagged(texts, find_secrets)
        rate = 100 * both / len(texts)
        shown = ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "—"
        print(f"| {name} | {len(texts):,} | {plain} | {both} | {rate:.3f} % | {shown} |")
        notes += [f"- {name}: {e}" for e in examples]
    print()
    print("\n".join(notes) or "(nothing flagged)")
    print()
    print("| cost per KB | plain | plain + disguise |")
    print("|---|---:|---:|")
    for name in ("LoCoMo turns", "code"):
        texts = corpora[name]
        print(
            f"| {name} | {cost_per_kb(texts, find_plain):.3f} ms "
            f"| {cost_per_kb(texts, find_secrets):.3f} ms |"
        )


if __name__ == "__main__":
    main()
