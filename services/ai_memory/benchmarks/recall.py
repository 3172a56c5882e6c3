"""The recall profile: LoCoMo's questions asked of a live server, as an agent asks them.

A fresh embedded server (a child process, ``ServerProcess``) imports every dialog turn of
the data set over HTTP as an ``interaction`` — one user scope per conversation, the
turn's session as ``meta.session_id``, the session's date plus the turn's index in seconds
as ``created_at`` — waits until the projections hold them, then sends every question to
``POST /v1/memories/search`` in its conversation's scope (``top_k`` 20) and scores the
answers with recall@1/5/10/20 of the evidence turns (``locomo_qa``). It reports every
category, the tuning half (conversations 1–5) and the held-out half, the search latency
as the client measured it, and the configuration (the server's embedder, context on or
off). The embedder is the server's own setting (``AIMEM_EMBEDDER``, or ``--embedder``).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ai_memory.benchmarks.load import Latency, import_records, latency
from ai_memory.benchmarks.locomo_qa import KS, Conversation, RecallTable, load
from ai_memory.benchmarks.probes import wait_projected
from ai_memory.benchmarks.server import BenchError, ServerProcess, log_tail

TOP_K = max(KS)
TUNING_HALF = 5  # conversations 1–5 of the file tune, the rest are held out
SOURCE_AGENT = "locomo"


@dataclass(frozen=True)
class RecallOptions:
    data: Path
    out: Path
    context: bool = True
    embedder: str | None = None  # None: the server's default (or AIMEM_EMBEDDER)
    data_dir: Path | None = None
    keep: bool = False
    dates: bool = True  # periods the questions name (``core.query_dates``)


@dataclass
class RecallResult:
    embedder: str
    context: bool
    turns: int
    questions: int
    import_seconds: float
    search: Latency
    # (group, questions, recall at each k in ``KS``, percent)
    groups: list[tuple[str, int, list[float]]] = field(default_factory=list)
    dates: bool = True

    @property
    def label(self) -> str:
        return f"{self.embedder}, context {'on' if self.context else 'off'}" + (
            "" if self.dates else ", dates off"
        )

    def recall_at(self, k: int, group: str = "all") -> float:
        for name, _, values in self.groups:
            if name == group:
                return values[KS.index(k)]
        raise KeyError(group)


def memory_id(conv: Conversation, dia_id: str) -> str:
    """Turn ids (``D1:3``) repeat across conversations: prefixed by the conversation."""
    return f"{conv.sample_id}-{dia_id}"


def records(conversations: Sequence[Conversation]) -> Iterator[dict[str, Any]]:
    for conv in conversations:
        for turn in conv.turns:
            yield {
                "id": memory_id(conv, turn.dia_id),
                "type": "interaction",
                "content": turn.content,
                "scope": conv.scope,
                "source_agent": SOURCE_AGENT,
                "created_at": turn.created_at.isoformat(),
                "meta": {"session_id": turn.session},
            }


def read_data(path: Path) -> list[Conversation]:
    try:
        conversations = load(path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BenchError(f"cannot read {path} as LoCoMo ({type(e).__name__}: {e})") from None
    if not conversations or not any(c.questions for c in conversations):
        raise BenchError(f"{path} holds no LoCoMo conversation with scored questions")
    return conversations


def run(options: RecallOptions, say: Callable[[str], None]) -> RecallResult:
    conversations = read_data(options.data)
    options.out.mkdir(parents=True, exist_ok=True)
    temporary = options.data_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="aimem-locomo-")) if temporary else options.data_dir
    assert data_dir is not None
    env = {} if options.embedder is None else {"AIMEM_EMBEDDER": options.embedder}
    server = ServerProcess(data_dir, options.out / "bench-locomo-server.log", env=env)
    try:
        say(f"starting the server on {data_dir}")
        server.start()
        with httpx.Client(base_url=server.url, timeout=600.0) as http:
            embedder = str(http.get("/healthz").json().get("embedder", "unknown"))
            turns = sum(len(c.turns) for c in conversations)
            say(f"importing {turns:,} turns (embedder {embedder})")
            began = time.perf_counter()
            import_records(http, records(conversations))
            wait_projected(http, server.check_alive)
            imported = time.perf_counter() - began
            say(f"asking {sum(len(c.questions) for c in conversations):,} questions")
            result = _ask(http, conversations, options, server.check_alive)
        result.embedder, result.turns, result.import_seconds = embedder, turns, imported
        return result
    except httpx.HTTPError as e:
        raise BenchError(
            f"the server stopped answering ({e}); the end of its log:\n{log_tail(server.log_path)}"
        ) from None
    finally:
        server.stop()
        if temporary and not options.keep:
            shutil.rmtree(data_dir, ignore_errors=True)


def _ask(
    http: httpx.Client,
    conversations: Sequence[Conversation],
    options: RecallOptions,
    alive: Callable[[], None],
) -> RecallResult:
    table = RecallTable()
    halves = (RecallTable(), RecallTable())
    took: list[float] = []
    for number, conv in enumerate(conversations):
        half = halves[0 if number < TUNING_HALF else 1]
        prefix = f"{conv.sample_id}-"
        for question in conv.questions:
            body = {"query": question.text, "scope": conv.scope, "top_k": TOP_K}
            body["context"] = options.context
            body["dates"] = options.dates
            began = time.perf_counter()
            answer = http.post("/v1/memories/search", json=body)
            took.append((time.perf_counter() - began) * 1000)
            if answer.status_code != 200:
                alive()
                raise BenchError(f"a search was refused: {answer.status_code} {answer.text[:300]}")
            ranked = [h["record"]["id"].removeprefix(prefix) for h in answer.json()["results"]]
            table.add(question.category, ranked, question.evidence)
            half.add(question.category, ranked, question.evidence)
    groups = [(name, n, list(values)) for name, n, values in table.groups()]
    names = (f"tuning half (conversations 1–{TUNING_HALF})", "held-out half")
    for name, half in zip(names, halves, strict=True):
        n, values = half.mean()
        groups.append((name, n, list(values)))
    return RecallResult(
        "", options.context, 0, len(table.rows), 0.0, latency(took), groups, options.dates
    )


def markdown(result: RecallResult) -> str:
    head = "| questions | n | " + " | ".join(f"R@{k}" for k in KS) + " |"
    lines = [
        f"embedder {result.embedder}, context {'on' if result.context else 'off'}, "
        f"dates {'on' if result.dates else 'off'}, "
        f"{result.turns:,} turns imported and projected in {result.import_seconds:.1f} s, "
        f"{result.questions:,} questions; search over HTTP p50 {result.search.p50_ms:.1f} ms, "
        f"p95 {result.search.p95_ms:.1f} ms, p99 {result.search.p99_ms:.1f} ms (top_k {TOP_K})",
        "",
        head,
        "|---|---|" + "---|" * len(KS),
    ]
    for name, n, values in result.groups:
        lines.append(f"| {name} | {n} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
    return "\n".join(lines)


def file_name(result: RecallResult) -> str:
    """One JSON file per configuration, so runs into one directory add up for the plot."""
    dates = "" if result.dates else "-dates-off"
    return f"bench-locomo-{result.embedder}-context-{'on' if result.context else 'off'}{dates}.json"


def write_json(path: Path, result: RecallResult) -> None:
    path.write_text(json.dumps(asdict(result), indent=2) + "\n", encoding="utf-8")


def read_results(directory: Path) -> list[RecallResult]:
    """Every configuration's result written into ``directory`` (for the plot)."""
    out: list[RecallResult] = []
    for path in sorted(directory.glob("bench-locomo-*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["search"] = Latency(**raw["search"])
        raw["groups"] = [(g[0], g[1], list(g[2])) for g in raw["groups"]]
        out.append(RecallResult(**raw))
    return out
