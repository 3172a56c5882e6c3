"""CPU per projected event of the projector workers, for any git revision of this repo.

    deploy/local/servers.sh start kafka cassandra && deploy/local/servers.sh wait all
    python -m loadtest.bench_projector --rev A --rev B --events 20000 --repeat 2 --json out.json

Compares implementations of ``ai-memory project`` (the Kafka projector worker) on the same
log. Each ``--rev`` (a commit, branch or tag; ``worktree``, the default, is the working
tree as it is, uncommitted changes included) has its ``services/`` and ``schemas/``
materialised into a temporary folder (``git archive <rev> services schemas``) and
byte-compiled before anything is timed, so no run pays for compiling.

**The log.** A fresh topic (``--partitions``, default 4) is filled once with ``--events``
memories of one tenant (content 200–400 characters assembled from ``loadtest.corpus``
sentences, ``--scopes`` scopes chosen so that every partition holds as many) through the
product's own write path in this process: the composition root's container on the Kafka
log, written with the in-process SDK client's ``write_many`` (``POST /v1/memories:batch``,
500 a request, 4 at once; ``--single-writes``: one ``PUT`` each from 16 threads, so the log
holds a transaction and its commit marker per one or two events, as single PUTs leave it).
Encryption is on, as by default: the workers open sealed
content with the data keys the writes stored in the vault, which lives in the record
store's keyspace. A second, tiny topic (``--startup-events``, spread over 32 scopes) is
filled the same way for measuring start-up.

**A run.** One worker process, ``python -m ai_memory.entrypoints.cli project --projection
records|index`` with ``PYTHONPATH=<rev>/services``, against a fresh view: a new Cassandra
keyspace cloned from the keyspace the writes left behind (schema, migration ledger and
vault; no record, no checkpoint — what a deployment's store holds before its first
projection) and, for ``index``, a new Qdrant Edge folder (``AIMEM_INDEX``). So the worker
replays the whole topic from offset 0. Its CPU (user + system of all its threads, from
``/proc/<pid>/stat``) is read from its start until it is **caught up**: its metrics
endpoint (``AIMEM_METRICS_PORT``, scraped every 0.2 s) reports, for every partition
holding events, an applied position (``aimem_projection_position``) at or past the log's
last event there (commit markers skipped). Scraping costs the worker a little CPU of its
own; a final flush the sink may do once idle is not counted. Peak RSS is ``VmHWM`` of
``/proc/<pid>/status`` then. Afterwards the worker is stopped (SIGTERM), and for
``records`` the view is checked through the record store (every partition's checkpoint at
the head, every memory there); ``aimem_projection_events`` must equal the events on the
log and nothing may be dead-lettered, or the run is reported as incomplete.

**Start-up CPU** is measured separately, by the same run on the tiny topic: the CPU until
caught up there is process start, imports, connecting to the stores, joining the consumer
group, the first fetch and applying those few events. "net of start-up" in the table is
(CPU of a full run - median start-up CPU) / events. Events/s wall is counted from the
first scrape that shows an applied position to caught up.

Implementations alternate (A, B, A, B … for each of ``--repeat`` rounds) on the same
topics; the table gives medians over the rounds. Everything made is removed at the end:
workers stopped, keyspaces dropped, topics deleted, folders deleted (the workers'
consumer groups are left empty; the broker expires them). ``--py-spy DIR`` records each
full run's worker with py-spy (if installed) and adds a summary of where its CPU went.
Servers on other ports: ``AIMEM_KAFKA_PORT`` / ``AIMEM_CASSANDRA_PORT``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.partitioner import murmur2
from cassandra.cluster import Cluster as CqlCluster
from cassandra.concurrent import execute_concurrent_with_args
from pydantic import SecretStr

from ai_memory.core.positions import offset_of
from loadtest.bench_distributed import spy_summary
from loadtest.bench_distributed import start_py_spy as _start_py_spy
from loadtest.bench_distributed import stop_py_spy as _stop_py_spy
from loadtest.cluster import free_port
from loadtest.corpus import TYPES, sentence
from loadtest.proc_cpu import proc_cpu_s, server_pids

ROOT = Path(__file__).resolve().parents[1]
WORKTREE = "worktree"
PROJECTIONS = ("records", "index")
TENANT = "default"
BATCH = 500  # memories a write_many request carries
WRITERS = 4  # concurrent write_many requests while filling
SINGLE_WRITERS = 16  # concurrent single writes while filling with ``--single-writes``
POLL_S = 0.2
STARTUP_SCOPES = 32


# ------------------------------------------------------------------------ implementations


@dataclass
class Impl:
    """One implementation under test: the ``services`` folder a worker is started from."""

    name: str
    commit: str
    services: Path


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def materialise(rev: str, dest: Path) -> Impl:
    """``rev``'s ``services/`` and ``schemas/`` under ``dest``, byte-compiled."""
    dest.mkdir(parents=True)
    if rev == WORKTREE:
        for folder in ("services", "schemas"):
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
        commit = git("rev-parse", "--short=9", "HEAD")
        if git("status", "--porcelain", "--", "services", "schemas"):
            commit += "+changes"
    else:
        commit = git("rev-parse", "--short=9", f"{rev}^{{commit}}")
        folders = ["services"]
        has_schemas = subprocess.run(
            ["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}:schemas"], capture_output=True
        )
        if has_schemas.returncode == 0:
            folders.append("schemas")
        archive = subprocess.Popen(
            ["git", "-C", str(ROOT), "archive", commit, *folders], stdout=subprocess.PIPE
        )
        subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=True)
        assert archive.stdout is not None
        archive.stdout.close()
        if archive.wait() != 0:
            raise RuntimeError(f"git archive {rev} failed")
    # Compiled now, so the first run of a revision does not pay for it.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(dest / "services")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return Impl(rev, commit, dest / "services")


# ------------------------------------------------------------------------------ the log


def content(rng: random.Random, n: int) -> str:
    """200–400 characters of corpus sentences."""
    text = ""
    while len(text) < 200:
        text = f"{text} {sentence(rng, rng.choice(TYPES), n)}".strip()
    if len(text) > 400:
        text = text[: text.rindex(" ", 0, 399)] + "."
    return text


def balanced_scopes(count: int, partitions: int, prefix: str) -> list[str]:
    """``count`` scope names spread evenly over the partitions: the log's record key is
    ``tenant/scope``, partitioned as Kafka's default partitioner does (murmur2)."""
    per = -(-count // partitions)
    taken: dict[int, int] = {}
    out: list[str] = []
    n = 0
    while len(out) < count:
        scope = f"user:{prefix}{n}"
        p = (murmur2(f"{TENANT}/{scope}".encode()) & 0x7FFFFFFF) % partitions
        if taken.get(p, 0) < per:
            taken[p] = taken.get(p, 0) + 1
            out.append(scope)
        n += 1
    return out


def items(count: int, scopes: list[str], prefix: str) -> Iterator[dict[str, Any]]:
    rng = random.Random(11)
    for n in range(count):
        kind = TYPES[n % len(TYPES)]
        yield {
            "id": f"{prefix}-{n}",
            "type": kind,
            "content": content(rng, n),
            "scope": scopes[n % len(scopes)],
            "source_agent": f"agent-{n % 3}",
            "tags": [kind, f"tag{n % 11}"],
            "created_at": 1_700_000_000 + n * 37,
        }


@dataclass
class Topic:
    """A filled topic and the keyspace its writes left behind (the vault of its keys)."""

    name: str
    log_url: str
    keyspace: str
    memories: int
    scopes: int
    fill_s: float = 0.0
    events: dict[int, int] = field(default_factory=dict)  # per partition, on the log
    heads: dict[int, int] = field(default_factory=dict)  # position of the last event

    @property
    def total(self) -> int:
        return sum(self.events.values())


def fill(
    topic: Topic, env: Env, scopes: list[str], prefix: str, data_dir: Path, *, single: bool = False
) -> None:
    """Write ``topic.memories`` memories through the product's batch write path, in this
    process (nothing is projected here: the container's projections are never started).
    ``single``: one ``PUT`` each from ``SINGLE_WRITERS`` threads instead, so the log holds
    what single writes leave, a transaction (and its commit marker) per one or two events."""
    from ai_memory.bootstrap import build
    from ai_memory.sdk.in_process import InProcessClient
    from ai_memory.settings import Settings

    settings = Settings(
        event_log_url=topic.log_url,
        record_store_url=env.store_url(topic.keyspace),
        index_url="memory://",
        root_key=SecretStr(env.root_key),
        data_dir=data_dir,
    )
    batch: list[dict[str, Any]] = []
    batches: list[list[dict[str, Any]]] = []
    for item in items(topic.memories, scopes, prefix):
        batch.append(item)
        if len(batch) == BATCH:
            batches.append(batch)
            batch = []
    if batch:
        batches.append(batch)
    container = build(settings)
    try:
        with InProcessClient(container) as client:

            def write(chunk: list[dict[str, Any]]) -> int:
                if single:
                    for item in chunk:
                        client.write(item.pop("content"), **item)
                    return len(chunk)
                report = client.write_many(chunk)
                assert report.written == len(chunk), str(report)[:600]
                return report.written

            if single:
                batches = [[item] for chunk in batches for item in chunk]
            t = time.perf_counter()
            with ThreadPoolExecutor(SINGLE_WRITERS if single else WRITERS) as pool:
                written = sum(pool.map(write, batches))
            topic.fill_s = time.perf_counter() - t
    finally:
        container.close()
    assert written == topic.memories, (written, topic.memories)


def census(log_url: str, bootstrap: str, topic: str) -> tuple[dict[int, int], dict[int, int]]:
    """(events, position of the last event) per partition. The last event is the log's own
    answer (``EventLog.last_position``: transaction markers are not events); the events
    up to it are counted by a ``read_committed`` consumer."""
    from ai_memory.adapters.kafka.event_log import KafkaEventLog
    from ai_memory.serialization import AvroEventSerializer

    log = KafkaEventLog.from_url(log_url, AvroEventSerializer())
    try:
        heads = {p: log.last_position(p) for p in log.partitions()}
    finally:
        log.close()

    async def scan() -> dict[int, int]:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            enable_auto_commit=False,
            isolation_level="read_committed",
            auto_offset_reset="earliest",  # not "latest", which may land after a seek
            max_partition_fetch_bytes=4 << 20,
        )
        await consumer.start()
        try:
            todo = {TopicPartition(topic, p): offset_of(h) for p, h in heads.items() if h}
            consumer.assign(list(todo))
            for tp in todo:
                consumer.seek(tp, 0)
            counts = dict.fromkeys(heads, 0)
            deadline = time.monotonic() + 300
            while todo:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{topic}: events up to the head not read: {todo}")
                batch = await consumer.getmany(timeout_ms=500, max_records=5000)
                for tp, records in batch.items():
                    counts[tp.partition] += sum(1 for r in records if r.offset <= heads_at(tp))
                    if records and records[-1].offset >= todo.get(tp, -1):
                        todo.pop(tp, None)
            return counts
        finally:
            await consumer.stop()

    def heads_at(tp: TopicPartition) -> int:
        return offset_of(heads[tp.partition])

    return asyncio.run(scan()), heads


# ------------------------------------------------------------------------------ servers


@dataclass
class Env:
    """The servers, the deployment's root key, and what this run made on them."""

    kafka: str
    cassandra: str
    root_key: str
    suffix: str
    topics: list[str] = field(default_factory=list)
    keyspaces: list[str] = field(default_factory=list)
    _cql: Any = None
    _session: Any = None

    def store_url(self, keyspace: str) -> str:
        return f"cassandra://{self.cassandra}/{keyspace}"

    def session(self) -> Any:
        if self._session is None:
            host, _, port = self.cassandra.partition(":")
            self._cql = CqlCluster([host], port=int(port or 9042))
            self._session = self._cql.connect()
        return self._session

    def clone_keyspace(self, source: str, target: str) -> None:
        """``target`` made like ``source``: types, tables and indexes, and their rows."""
        session = self.session()
        self._cql.refresh_schema_metadata()
        meta = self._cql.metadata.keyspaces[source]

        def renamed(cql: str) -> str:
            return cql.replace(source, target)  # the names carry a unique suffix

        self.keyspaces.append(target)
        session.execute(renamed(meta.as_cql_query()))
        for kind in (meta.user_types, meta.tables):
            for item in kind.values():
                session.execute(renamed(item.as_cql_query()), timeout=60)
        for table in meta.tables.values():
            for index in table.indexes.values():
                session.execute(renamed(index.as_cql_query()), timeout=60)
        for name in meta.tables:
            rows = [r[0] for r in session.execute(f"SELECT JSON * FROM {source}.{name}")]
            if rows:
                insert = session.prepare(f"INSERT INTO {target}.{name} JSON ?")
                execute_concurrent_with_args(
                    session, insert, [(r,) for r in rows], concurrency=64, raise_on_first_error=True
                )

    def drop_keyspace(self, keyspace: str) -> None:
        self.session().execute(f"DROP KEYSPACE IF EXISTS {keyspace}", timeout=120)
        if keyspace in self.keyspaces:
            self.keyspaces.remove(keyspace)

    def clean_up(self) -> list[str]:
        """Drop every keyspace and delete every topic this run made; what failed, said."""
        problems: list[str] = []
        for keyspace in list(self.keyspaces):
            try:
                self.drop_keyspace(keyspace)
            except Exception as e:  # cleaning up goes on
                problems.append(f"keyspace {keyspace}: {e!r}")
        if self._cql is not None:
            self._cql.shutdown()
            self._cql = self._session = None
        try:
            asyncio.run(self._delete_topics())
        except Exception as e:  # cleaning up goes on
            problems.append(f"topics {self.topics}: {e!r}")
        return problems

    async def _delete_topics(self) -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.kafka)
        await admin.start()
        try:
            for _ in range(5):
                # The log's own topics: the events, <topic>.dlq, <topic>.heads, …
                ours = [
                    t
                    for t in await admin.list_topics()
                    if any(t == name or t.startswith(f"{name}.") for name in self.topics)
                ]
                if not ours:
                    return
                await admin.delete_topics(ours)
                await asyncio.sleep(2)
            raise RuntimeError(f"not deleted: {ours}")
        finally:
            await admin.close()


# ---------------------------------------------------------------------------- measuring


@dataclass
class Run:
    implementation: str
    commit: str
    projection: str
    kind: str  # "full" (the filled topic) or "startup" (the tiny one)
    round: int
    events: int
    cpu_s: float = 0.0  # of the worker, from its start until caught up
    wall_s: float = 0.0
    first_applied_wall_s: float | None = None  # first scrape showing an applied position
    first_applied_cpu_s: float | None = None
    peak_rss_mib: float = 0.0
    applied: int | None = None  # aimem_projection_events
    dead_lettered: int = 0
    cassandra_cpu_s: float = 0.0  # the shared Cassandra node meanwhile (others use it too)
    checked: str = ""  # what the check of the view found ("ok", or what is wrong)
    profile: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        return self.checked == "ok"

    @property
    def cpu_ms_per_event(self) -> float:
        return self.cpu_s * 1000 / self.events

    @property
    def events_per_s(self) -> float | None:
        if self.first_applied_wall_s is None or self.wall_s <= self.first_applied_wall_s:
            return None
        return self.events / (self.wall_s - self.first_applied_wall_s)


def scrape(port: int) -> tuple[dict[int, int], int | None, int]:
    """(applied position per partition, events applied, events dead-lettered) from a
    worker's metrics endpoint."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    positions: dict[int, int] = {}
    for m in re.finditer(r"^aimem_projection_position\{([^}]*)\} (\S+)$", text, re.M):
        partition = re.search(r'partition="(\d+)"', m.group(1))
        if partition:
            positions[int(partition.group(1))] = int(float(m.group(2)))

    def total(name: str) -> int | None:
        found = re.findall(rf"^{name}_total(?:\{{[^}}]*\}})? (\S+)$", text, re.M)
        return round(sum(float(v) for v in found)) if found else None

    return positions, total("aimem_projection_events"), total("aimem_dead_lettered_events") or 0


def peak_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


class WorkerFailed(RuntimeError):
    pass


@dataclass
class Bench:
    env: Env
    tmp: Path
    timeout: float = 1800.0
    py_spy: Path | None = None
    runs: int = 0

    def worker_env(self, impl: Impl, topic: Topic, keyspace: str, run_dir: Path) -> dict[str, str]:
        keep = ("AIMEM_MODEL_DIR", "AIMEM_EMBEDDER")  # where the model is, which model
        env = {k: v for k, v in os.environ.items() if not k.startswith("AIMEM_") or k in keep}
        return env | {
            "PYTHONPATH": str(impl.services),
            "AIMEM_EVENT_LOG": topic.log_url,
            "AIMEM_RECORD_STORE": self.env.store_url(keyspace),
            "AIMEM_INDEX": f"qdrant-edge:///{run_dir / 'index'}",
            "AIMEM_DATA_DIR": str(run_dir / "data"),
            "AIMEM_ROOT_KEY": self.env.root_key,
            "AIMEM_METRICS_PORT": str(free_port()),
        }

    def measure(self, impl: Impl, projection: str, topic: Topic, kind: str, rnd: int) -> Run:
        self.runs += 1
        run_dir = self.tmp / f"run-{self.runs}-{impl.commit}-{projection}-{kind}"
        run_dir.mkdir()
        keyspace = f"{topic.keyspace}_r{self.runs}"
        self.env.clone_keyspace(topic.keyspace, keyspace)
        env = self.worker_env(impl, topic, keyspace, run_dir)
        port = int(env["AIMEM_METRICS_PORT"])
        run = Run(impl.name, impl.commit, projection, kind, rnd, topic.total)
        cassandra = server_pids().get("cassandra")
        cassandra_before = proc_cpu_s(cassandra) if cassandra else 0.0
        log_path = run_dir / "worker.log"
        command = [sys.executable, "-m", "ai_memory.entrypoints.cli", "project"]
        with log_path.open("wb") as log:
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [*command, "--projection", projection],
                env=env,
                cwd=run_dir,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        spy = None
        try:
            if self.py_spy is not None and kind == "full":
                spy = _start_py_spy(self.py_spy / f"{run_dir.name}.txt", proc.pid)
            applied: int | None = None
            while True:
                time.sleep(POLL_S)
                if proc.poll() is not None:
                    tail = log_path.read_text(errors="replace")[-4000:]
                    raise WorkerFailed(f"the worker exited with {proc.returncode}:\n{tail}")
                if time.perf_counter() - t0 > self.timeout:
                    raise WorkerFailed(f"not caught up after {self.timeout:.0f} s")
                try:
                    positions, applied, run.dead_lettered = scrape(port)
                except httpx.HTTPError:
                    continue  # not serving metrics yet
                # Read right after the scrape: all the work the scrape shows is counted.
                cpu, now = proc_cpu_s(proc.pid), time.perf_counter() - t0
                if run.first_applied_wall_s is None and any(positions.values()):
                    run.first_applied_wall_s, run.first_applied_cpu_s = now, cpu
                if all(positions.get(p, 0) >= head for p, head in topic.heads.items()):
                    run.cpu_s, run.wall_s = cpu, now
                    break
            run.peak_rss_mib = peak_rss_mib(proc.pid)
            run.applied = applied
            if cassandra:
                run.cassandra_cpu_s = proc_cpu_s(cassandra) - cassandra_before
        finally:
            _stop_py_spy(spy)
            stop(proc)
        if spy is not None and self.py_spy is not None:
            out = self.py_spy / f"{run_dir.name}.txt"
            run.profile = spy_summary(out) if out.exists() else None
        run.checked = self.check(run, projection, topic, keyspace)
        self.env.drop_keyspace(keyspace)
        shutil.rmtree(run_dir, ignore_errors=True)
        return run

    def check(self, run: Run, projection: str, topic: Topic, keyspace: str) -> str:
        """Says "ok", or what is wrong with the run's view."""
        wrong: list[str] = []
        if run.applied is not None and run.applied != topic.total:
            wrong.append(f"applied {run.applied} of {topic.total} events")
        if run.dead_lettered:
            wrong.append(f"{run.dead_lettered} dead-lettered")
        if projection == "records":
            from ai_memory.adapters.cassandra.record_store import CassandraRecordStore

            try:
                store = CassandraRecordStore.from_url(self.env.store_url(keyspace))
                try:
                    behind = {
                        p: store.checkpoint(p)
                        for p, head in topic.heads.items()
                        if store.checkpoint(p) < head
                    }
                    held = store.count(TENANT)
                finally:
                    store.close()
            except Exception as e:  # another revision's schema, say: said, not fatal
                return f"unchecked ({e!r})"
            if behind:
                wrong.append(f"checkpoints behind the head: {behind}")
            if held != topic.memories:
                wrong.append(f"{held} of {topic.memories} memories in the view")
        return "; ".join(wrong) or "ok"


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------------------ running


@dataclass
class Options:
    revs: tuple[str, ...] = (WORKTREE,)
    projections: tuple[str, ...] = PROJECTIONS
    events: int = 20_000
    startup_events: int = 64
    scopes: int = 8
    partitions: int = 4
    repeat: int = 2
    timeout: float = 1800.0
    py_spy: Path | None = None
    single_writes: bool = False  # the full topic filled by single writes (``--single-writes``)


def run(opt: Options) -> dict[str, Any]:
    kafka = f"127.0.0.1:{os.environ.get('AIMEM_KAFKA_PORT', '9092')}"
    cassandra = f"127.0.0.1:{os.environ.get('AIMEM_CASSANDRA_PORT', '9042')}"
    suffix = uuid.uuid4().hex[:10]
    env = Env(
        kafka,
        cassandra,
        root_key=base64.urlsafe_b64encode(os.urandom(32)).decode("ascii"),
        suffix=suffix,
    )
    tmp = Path(tempfile.mkdtemp(prefix="aimem-bench-projector-"))
    bench = Bench(env, tmp, timeout=opt.timeout, py_spy=opt.py_spy)
    if opt.py_spy is not None:
        opt.py_spy.mkdir(parents=True, exist_ok=True)
    options = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(opt).items()}
    out: dict[str, Any] = {"options": options}
    out["load_before"] = os.getloadavg()
    try:
        impls = [materialise(rev, tmp / f"impl-{n}") for n, rev in enumerate(opt.revs)]
        out["implementations"] = [{"name": i.name, "commit": i.commit} for i in impls]
        topics = []
        for name, count, scopes in (
            ("full", opt.events, balanced_scopes(opt.scopes, opt.partitions, "u")),
            ("startup", opt.startup_events, balanced_scopes(STARTUP_SCOPES, opt.partitions, "s")),
        ):
            topic_name = f"aimem.bench.proj.{suffix}.{name}"
            topic = Topic(
                topic_name,
                f"kafka://{kafka}/{topic_name}?partitions={opt.partitions}",
                f"aimem_bench_proj_{suffix}_{name}",
                count,
                len(scopes),
            )
            env.topics.append(topic_name)
            env.keyspaces.append(topic.keyspace)
            fill(
                topic,
                env,
                scopes,
                f"bench-{name}",
                tmp / f"fill-{name}",
                single=opt.single_writes and name == "full",
            )
            topic.events, topic.heads = census(topic.log_url, kafka, topic_name)
            empty = [p for p in range(opt.partitions) if not topic.events.get(p)]
            assert not empty, f"{name}: partitions {empty} hold no event"
            topics.append(topic)
            print(
                f"filled {topic_name}: {topic.total:,} events {topic.events} "
                f"in {topic.fill_s:.1f} s",
                flush=True,
            )
        out["topics"] = [
            {k: v for k, v in asdict(t).items() if k != "heads"} | {"total": t.total}
            for t in topics
        ]
        full, startup = topics
        runs: list[Run] = []
        for rnd in range(opt.repeat):
            for projection in opt.projections:
                for topic, kind in ((full, "full"), (startup, "startup")):
                    for impl in impls:
                        r = bench.measure(impl, projection, topic, kind, rnd)
                        runs.append(r)
                        print(
                            f"round {rnd + 1} {impl.name} {projection} {kind}: "
                            f"{r.cpu_s:.2f} s CPU, {r.wall_s:.1f} s wall, "
                            f"{r.peak_rss_mib:.0f} MiB, {r.checked}",
                            flush=True,
                        )
        out["runs"] = [asdict(r) | {"cpu_ms_per_event": r.cpu_ms_per_event} for r in runs]
        out["summary"] = summarise(impls, opt.projections, runs)
    finally:
        problems = env.clean_up()
        shutil.rmtree(tmp, ignore_errors=True)
        if problems:
            print("clean-up problems:", *problems, sep="\n  ", file=sys.stderr)
    out["load_after"] = os.getloadavg()
    return out


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarise(impls: list[Impl], projections: tuple[str, ...], runs: list[Run]) -> list[Any]:
    rows = []
    for impl in impls:
        for projection in projections:

            def of(kind: str, impl: Impl = impl, projection: str = projection) -> list[Run]:
                return [
                    r
                    for r in runs
                    if r.implementation == impl.name
                    and r.projection == projection
                    and r.kind == kind
                ]

            full, startup = of("full"), of("startup")
            startup_cpu = median([r.cpu_s for r in startup])
            net = [
                (r.cpu_s - startup_cpu) * 1000 / r.events for r in full if startup_cpu is not None
            ]
            rows.append(
                {
                    "implementation": impl.name,
                    "commit": impl.commit,
                    "projection": projection,
                    "runs": len(full),
                    "events": full[0].events if full else 0,
                    "cpu_ms_per_event": median([r.cpu_ms_per_event for r in full]),
                    "cpu_ms_per_event_all": [round(r.cpu_ms_per_event, 3) for r in full],
                    "cpu_ms_per_event_net": median(net),
                    "events_per_s": median([e for r in full if (e := r.events_per_s)]),
                    "startup_cpu_s": startup_cpu,
                    "startup_wall_s": median([r.wall_s for r in startup]),
                    "peak_rss_mib": median([r.peak_rss_mib for r in full]),
                    "startup_peak_rss_mib": median([r.peak_rss_mib for r in startup]),
                    "incomplete": [f"{r.kind} {r.round + 1}: {r.checked}" for r in full + startup]
                    if any(not r.complete for r in full + startup)
                    else [],
                }
            )
    return rows


def table(out: dict[str, Any]) -> str:
    def num(v: float | None, fmt: str) -> str:
        return "–" if v is None else format(v, fmt)

    lines = [
        "| implementation | projection | runs | CPU ms/event (median) | net of start-up "
        "| events/s wall | start-up CPU s | start-up wall s | peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in out["summary"]:
        name = row["implementation"]
        if row["commit"] != name:
            name += f" ({row['commit']})"
        lines.append(
            f"| {name} | {row['projection']} | {row['runs']} "
            f"| {num(row['cpu_ms_per_event'], '.3f')} "
            f"({', '.join(format(v, '.3f') for v in row['cpu_ms_per_event_all'])}) "
            f"| {num(row['cpu_ms_per_event_net'], '.3f')} "
            f"| {num(row['events_per_s'], ',.0f')} | {num(row['startup_cpu_s'], '.2f')} "
            f"| {num(row['startup_wall_s'], '.1f')} | {num(row['peak_rss_mib'], '.0f')} |"
        )
    for row in out["summary"]:
        if row["incomplete"]:
            what = "; ".join(row["incomplete"])
            lines.append(f"\nINCOMPLETE {row['implementation']} {row['projection']}: {what}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rev",
        action="append",
        dest="revs",
        help=f"a git revision to measure (repeatable; default: {WORKTREE}, the working tree)",
    )
    parser.add_argument("--projection", action="append", dest="projections", choices=PROJECTIONS)
    parser.add_argument("--events", type=int, default=20_000, help="memories on the topic")
    parser.add_argument("--startup-events", type=int, default=64)
    parser.add_argument("--scopes", type=int, default=8)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of alternating runs")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--py-spy", type=Path, help="folder for py-spy profiles of full runs")
    parser.add_argument(
        "--single-writes",
        action="store_true",
        help="fill the topic with single writes (a log transaction per one or two events, "
        "as single PUTs leave it) instead of batches of 500",
    )
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    out = run(
        Options(
            revs=tuple(args.revs or (WORKTREE,)),
            projections=tuple(args.projections or PROJECTIONS),
            events=args.events,
            startup_events=args.startup_events,
            scopes=args.scopes,
            partitions=args.partitions,
            repeat=args.repeat,
            timeout=args.timeout,
            py_spy=args.py_spy,
            single_writes=args.single_writes,
        )
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    print(table(out))


if __name__ == "__main__":
    main()
