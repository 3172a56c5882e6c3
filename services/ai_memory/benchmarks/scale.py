"""The scale profile: one live embedded server grown step by step, measured at each size.

For each size the runner imports only the memories the step adds (over HTTP, as a user
would), waits for them to be projected and for the index to stop compacting, times
searches while single writes keep arriving, reads the server's memory and disk use,
restarts it (time to healthy, to the first answered search) and, optionally, replays
the index from the log with the server stopped. Nothing is optimized offline between
steps: the figures are those of a server in use.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from ai_memory.benchmarks.corpus import Corpus, SyntheticCorpus
from ai_memory.benchmarks.layout import BIG_SCOPE, SMALL_SCOPES, small_scope
from ai_memory.benchmarks.load import Latency, Writer, import_records, time_searches
from ai_memory.benchmarks.probes import (
    disk_usage,
    memory_of,
    resident_split,
    wait_index_idle,
    wait_projected,
)
from ai_memory.benchmarks.server import BenchError, ServerProcess, log_tail, replay_index

DEFAULT_STEPS = (10_000, 100_000, 1_000_000)
# Kinds of search, each timed over the same number of queries: a filter that keeps most of
# the index, one that keeps a sliver of it, and no filter.
SEARCH_KINDS: dict[str, tuple[str | None, ...]] = {
    "big scope": (BIG_SCOPE,),
    "small scope": tuple(small_scope(k) for k in range(SMALL_SCOPES)),
    "tenant-wide": (None,),
}
_REPLAY_LINE = re.compile(
    r"index: (\d+) events in ([\d.]+)s \(([\d,]+) events/s, ([\d.]+) ms of CPU per event"
)
FIRST_SEARCH_TIMEOUT = 300.0

Say = Callable[[str], None]


@dataclass(frozen=True)
class ScaleOptions:
    sizes: tuple[int, ...]
    write_rate: float = 100.0
    queries: int = 500
    out: Path = Path("bench-scale")
    data_dir: Path | None = None
    keep: bool = False
    replay: bool = True
    corpus: Corpus = field(default_factory=SyntheticCorpus)


@dataclass
class StepResult:
    """One size's figures; None where the server or the platform could not say."""

    size: int  # memories of the corpus imported so far
    stored: int  # plus those written during the search phases, to this one's end
    import_acked_per_s: float
    import_projected_per_s: float
    index_idle_wait_s: float | None
    search: dict[str, Latency]
    writes_target_per_s: float
    writes_achieved_per_s: float
    writes_failed: int
    write_latency: Latency | None
    rss_bytes: int | None
    peak_rss_bytes: int | None
    disk_bytes: int
    stop_s: float
    restart_healthy_s: float
    restart_first_search_s: float
    empty_rss_bytes: int | None = None  # the server with nothing stored, after one search
    replay_events: int | None = None
    replay_events_per_s: float | None = None
    replay_cpu_ms_per_event: float | None = None
    # ``rss_bytes`` split: the process's own memory and the file pages it maps.
    rss_anon_bytes: int | None = None
    rss_file_bytes: int | None = None

    @property
    def rss_per_memory(self) -> float | None:
        """Resident bytes each stored memory adds: the empty server's RSS (the runtime, the
        embedder's weights) taken out, or it would dominate every small size."""
        if self.rss_bytes is None or self.empty_rss_bytes is None:
            return None
        return (self.rss_bytes - self.empty_rss_bytes) / self.stored


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"10k,100k,1M"`` or ``"10000,100000"`` → increasing sizes."""
    sizes: list[int] = []
    for part in text.replace("_", "").split(","):
        word = part.strip().lower()
        scale = {"k": 1_000, "m": 1_000_000}.get(word[-1:], 1)
        try:
            size = int(float(word[:-1] if scale > 1 else word) * scale)
        except ValueError:
            raise BenchError(f"not a size: {part!r} (e.g. 10000, 10k, 1M)") from None
        if size <= 0:
            raise BenchError(f"sizes are positive: {part!r}")
        sizes.append(size)
    if sizes != sorted(set(sizes)):
        raise BenchError(f"sizes must increase: {text!r}")
    return tuple(sizes)


def default_sizes(memories: int) -> tuple[int, ...]:
    """10k, 100k and 1M below ``memories``, then ``memories`` itself."""
    if memories <= 0:
        raise BenchError("--memories must be positive")
    return (*(s for s in DEFAULT_STEPS if s < memories), memories)


def run(options: ScaleOptions, say: Say) -> list[StepResult]:
    options.out.mkdir(parents=True, exist_ok=True)
    temporary = options.data_dir is None
    data_dir = options.data_dir or Path(tempfile.mkdtemp(prefix="aimem-bench-"))
    if not temporary and data_dir.exists() and any(data_dir.iterdir()):
        raise BenchError(f"{data_dir} is not empty: the profile starts from a fresh data dir")
    log = options.out / "server.log"
    log.unlink(missing_ok=True)
    server = ServerProcess(data_dir, log)
    try:
        say(f"starting ai-memory serve on {server.url} (data: {data_dir}, log: {log})")
        server.start()
        _first_search(server, options.corpus.queries[0])  # loads what every search needs
        empty = memory_of(server.pid)
        return _steps(server, options, say, None if empty is None else empty[0])
    except httpx.HTTPError as e:
        raise BenchError(
            f"a request to the server failed ({type(e).__name__}: {e}); the end of its log "
            f"({log}):\n{log_tail(log)}"
        ) from None
    finally:
        server.stop()
        if temporary and not options.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            say(f"data kept in {data_dir}")


def _steps(
    server: ServerProcess, options: ScaleOptions, say: Say, empty_rss: int | None
) -> list[StepResult]:
    results: list[StepResult] = []
    have = writes = written = 0
    for number, size in enumerate(options.sizes):
        last = number == len(options.sizes) - 1
        with httpx.Client(base_url=server.url, timeout=600.0) as http:
            say(f"{size:,}: importing {size - have:,} memories ({options.corpus.name})")
            acked, projected = _grow(http, server, options.corpus, have, size)
            have = size
            say(f"{size:,}: waiting for the index to stop compacting")
            idle = wait_index_idle(http, server.check_alive)
            say(
                f"{size:,}: {options.queries} searches of each kind, writes at "
                f"{options.write_rate:g}/s beside them"
            )
            search, writer = _search_under_writes(http, server, options, writes)
            writes = writer.next_id
            written += writer.done
            memory = memory_of(server.pid)
            split = resident_split(server.pid)
        say(f"{size:,}: restarting the server")
        stop_s = server.stop()
        disk = disk_usage(server.data_dir)  # stopped: no write-ahead log in flux
        healthy_s = server.start()
        first_search_s = _first_search(server, options.corpus.queries[0])
        result = StepResult(
            size=size,
            stored=size + written,
            import_acked_per_s=acked,
            import_projected_per_s=projected,
            index_idle_wait_s=idle,
            search=search,
            writes_target_per_s=options.write_rate,
            writes_achieved_per_s=writer.achieved,
            writes_failed=writer.failed,
            write_latency=writer.latency(),
            rss_bytes=None if memory is None else memory[0],
            peak_rss_bytes=None if memory is None else memory[1],
            disk_bytes=disk,
            stop_s=stop_s,
            restart_healthy_s=healthy_s,
            restart_first_search_s=first_search_s,
            empty_rss_bytes=empty_rss,
            rss_anon_bytes=None if split is None else split[0],
            rss_file_bytes=None if split is None else split[1],
        )
        if options.replay:
            server.stop()
            say(f"{size:,}: replaying the index from the log (server stopped)")
            _replay(server.data_dir, result, say)
            if not last:
                server.start()
        results.append(result)
    return results


def _search_under_writes(
    http: httpx.Client, server: ServerProcess, options: ScaleOptions, first_write: int
) -> tuple[dict[str, Latency], Writer]:
    """Each kind of search timed while the writer adds memories beside them."""
    writer = Writer(server.url, options.write_rate, first_write)
    writer.start()
    try:
        search = {
            kind: time_searches(http, options.corpus.queries, scopes, options.queries)
            for kind, scopes in SEARCH_KINDS.items()
        }
    finally:
        writer.finish()
    return search, writer


def _grow(
    http: httpx.Client, server: ServerProcess, corpus: Corpus, have: int, size: int
) -> tuple[float, float]:
    """Import memories ``have`` .. ``size - 1``; (acknowledged, projected) memories/s."""
    began = time.perf_counter()
    written = import_records(http, corpus.records(have, size))
    acked = time.perf_counter() - began
    if written != size - have:
        raise BenchError(f"the server wrote {written} of {size - have} imported memories")
    wait_projected(http, server.check_alive)
    projected = time.perf_counter() - began
    return written / acked, written / projected


def _first_search(server: ServerProcess, query: str) -> float:
    """Seconds from the restarted process's start to its first answered search."""
    with httpx.Client(base_url=server.url, timeout=FIRST_SEARCH_TIMEOUT) as http:
        while time.perf_counter() - server.started_at < FIRST_SEARCH_TIMEOUT:
            server.check_alive()
            answer = http.post("/v1/memories/search", json={"query": query, "scope": BIG_SCOPE})
            if answer.status_code == 200:
                return time.perf_counter() - server.started_at
            time.sleep(0.02)
    raise BenchError("the restarted server answered no search in time")


def _replay(data_dir: Path, result: StepResult, say: Say) -> None:
    began = time.perf_counter()
    output = replay_index(data_dir)
    match = _REPLAY_LINE.search(output)
    if match is None:
        # The summary line changed: keep the run, measure from outside (start-up included).
        say("the replay's summary line was not recognised; timing the whole command")
        result.replay_events_per_s = result.stored / (time.perf_counter() - began)
        return
    result.replay_events = int(match.group(1))
    result.replay_events_per_s = float(match.group(3).replace(",", ""))
    result.replay_cpu_ms_per_event = float(match.group(4))
