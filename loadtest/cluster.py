"""Process orchestration for distributed-mode tests and benchmarks.

A ``Cluster`` runs the gateway (``ai-memory serve`` on a Kafka log and a Cassandra record
store, with a co-located Qdrant Edge index projected in-process) and Kafka projector
workers for the records projection, each as a real OS process, against Kafka and
Cassandra servers that are already running (``deploy/local/servers.sh``).
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from ai_memory.core.access import generate_token
from loadtest.positions import log_positions

CLI = [sys.executable, "-m", "ai_memory.entrypoints.cli"]

#: Run in a server's process before the CLI: names each OS thread after its Python
#: thread the first time it runs Python code, then removes itself, so ``/proc`` tells the
#: threads apart (``proc_cpu.thread_cpu``). Native threads (the engine's search pool)
#: keep the names they gave themselves.
NAMING = """
import ctypes, sys, threading
libc = ctypes.CDLL(None)
def name(frame, event, arg):
    libc.prctl(15, threading.current_thread().name[:15].encode(), 0, 0, 0)
    sys.setprofile(None)
threading.setprofile(name)
from ai_memory.entrypoints.cli.launcher import main
sys.argv = ["ai-memory", *ARGS]
main(prog_name="ai-memory")
"""


def named_cli(args: list[str]) -> list[str]:
    """The command line of ``ai-memory <args>`` with its threads named (``NAMING``)."""
    return [sys.executable, "-c", NAMING.replace("ARGS", repr(args))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def operator_key(env: Mapping[str, str]) -> dict[str, str]:
    """The headers of an operator key of every tenant (``--tenant '*'``) of the deployment
    ``env`` configures, made as an operator makes one: ``ai-memory keys create`` on its
    key store, before its server serves. Only such a key (or open mode) sees ``/healthz``
    in full — positions, heads, lag, writers; a tenant's admin key sees the status."""
    made = subprocess.run(
        [*CLI, "keys", "create", "--tenant", "*", "--role", "operator", "--name", "harness"],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if made.returncode != 0:
        raise AssertionError(f"keys create failed ({made.returncode}): {made.stderr}")
    return {"Authorization": f"Bearer {made.stdout.strip()}"}


class Proc:
    def __init__(
        self, args: list[str], env: dict[str, str], log: Path, *, named_threads: bool = False
    ) -> None:
        self.args = args
        self.env = env
        self.metrics_port = 0
        self.log_path = log
        self._log = log.open("ab")
        command = named_cli(args) if named_threads else [*CLI, *args]
        self.proc = subprocess.Popen(command, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


class Cluster:
    def __init__(
        self, tmp: Path, kafka: str, cassandra: str, *, replication: int = 1, keyed: bool = False
    ) -> None:
        """``kafka``/``cassandra``: comma-separated ``host:port`` lists; ``replication``
        is the topic's and the keyspace's replication factor (3 on the local cluster).
        ``keyed``: keys in force, as in production — the gateway adopts an admin key of
        the default tenant and clients send it (``headers``); an operator key of every
        tenant (``operator_headers``) reads the projections' positions off ``/healthz``,
        which a tenant's admin is not shown (without keys, open mode shows them)."""
        suffix = uuid.uuid4().hex[:10]
        tmp.mkdir(parents=True, exist_ok=True)
        self.servers = (kafka, cassandra)
        self.tmp = tmp
        self.log_url = f"kafka://{kafka}/aimem.e2e.{suffix}?partitions=4"
        self.store_url = f"cassandra://{cassandra}/aimem_e2e_{suffix}"
        if replication > 1:
            self.log_url += f"&replication_factor={replication}"
            self.store_url += f"?replication_factor={replication}"
        self.index_dir = tmp / "gateway-index"
        self.worker_index_dir = tmp / "worker-index"
        self.named_threads = False  # start the gateway with its threads named (NAMING)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "AIMEM_EVENT_LOG": self.log_url,
            "AIMEM_RECORD_STORE": self.store_url,
            "AIMEM_INDEX": f"qdrant-edge:///{self.index_dir}",
            "AIMEM_DATA_DIR": str(tmp / "gateway-data"),
            "AIMEM_PORT": str(self.port),
            "AIMEM_WAIT_TIMEOUT": "60",
            # Every process of one deployment shares the root key of its vault.
            "AIMEM_ROOT_KEY": os.environ.get("AIMEM_ROOT_KEY")
            or base64.urlsafe_b64encode(os.urandom(32)).decode("ascii"),
        }
        self.headers: dict[str, str] = {}
        self.operator_headers: dict[str, str] = {}
        self.keyed = keyed
        if keyed:
            token = generate_token()
            self.env["AIMEM_ADMIN_KEY"] = token
            self.headers = {"Authorization": f"Bearer {token}"}
        self.gateway: Proc | None = None
        self.workers: list[Proc] = []
        self._vaults: list[Any] = []

    def another_gateway(self, tmp: Path) -> Cluster:
        """A second gateway of this deployment: same log, store and vault root key; its
        own HTTP port, data and index folders."""
        other = Cluster(tmp, *self.servers)
        other.log_url, other.store_url = self.log_url, self.store_url
        for name in ("AIMEM_EVENT_LOG", "AIMEM_RECORD_STORE", "AIMEM_ROOT_KEY"):
            other.env[name] = self.env[name]
        return other

    def log_positions(self, tenant: str | None = None) -> Callable[[int], int]:
        """The log position of a token a gateway of this deployment showed ``tenant`` (by
        default its clients' tenant) for a write: decoded with the deployment's secret."""
        return log_positions(self.env, tenant)

    def create_operator_key(self) -> None:
        """An operator key of every tenant for this deployment (``operator_key``)."""
        self.operator_headers = operator_key(self.env)

    def serializer(self) -> Any:
        """The deployment's codec with its vault and root key: for checks that read
        content off the log (sealed fields open only with the keys the gateway made)."""
        from ai_memory.adapters.cassandra.data_key_vault import cassandra_vault_from_url
        from ai_memory.adapters.key_wrapping import parse_root_key
        from ai_memory.serialization import AvroEventSerializer
        from ai_memory.serialization.sealer import Sealer

        root = parse_root_key(self.env["AIMEM_ROOT_KEY"])
        vault = cassandra_vault_from_url(self.store_url, root)
        self._vaults.append(vault)
        return AvroEventSerializer(sealer=Sealer(vault))

    def start_gateway(self) -> None:
        if self.keyed and not self.operator_headers:
            self.create_operator_key()
        self.gateway = Proc(
            ["serve"], self.env, self.tmp / "gateway.log", named_threads=self.named_threads
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert self.gateway.proc.poll() is None, self.gateway.log_path.read_text()
            time.sleep(0.2)
        raise AssertionError("gateway did not start:\n" + self.gateway.log_path.read_text())

    def start_worker(self, n: int, projection: str = "records") -> Proc:
        """A projector worker. An index worker owns its own Qdrant Edge index
        (``worker_index_dir``): Edge opens in one process only and no Qdrant server runs
        here, so the gateway keeps searching its co-located index."""
        env = {**self.env, "AIMEM_METRICS_PORT": str(free_port())}
        if projection == "index":
            env["AIMEM_INDEX"] = f"qdrant-edge:///{self.worker_index_dir}"
        log = self.tmp / f"worker-{projection}-{n}.log"
        worker = Proc(["project", "--projection", projection], env, log)
        worker.metrics_port = int(env["AIMEM_METRICS_PORT"])
        self.workers.append(worker)
        return worker

    def wait_caught_up(self, timeout: float = 240) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                health = httpx.get(
                    f"{self.url}/healthz", timeout=10, headers=self.operator_headers
                ).json()
            except httpx.TransportError:  # a loaded box: ask again
                time.sleep(0.5)
                continue
            if all(v == 0 for v in health["lag"].values()):
                return health
            time.sleep(0.5)
        logs = "\n".join(w.log_path.read_text()[-3000:] for w in self.workers)
        raise AssertionError(f"projections did not catch up: {health}\n{logs}")

    def stop(self) -> None:
        for w in self.workers:
            w.stop()
        if self.gateway:
            self.gateway.stop()
        for vault in self._vaults:
            vault.close()
        self._vaults.clear()

    def drain_and_stop(self, timeout: float = 120) -> None:
        """Stop the gateway first (it appends its last batched read events on the way out),
        let the workers apply everything on the log, then stop them."""
        from ai_memory.adapters.cassandra.record_store import CassandraRecordStore
        from ai_memory.adapters.kafka.event_log import KafkaEventLog
        from ai_memory.serialization import AvroEventSerializer

        if self.gateway:
            self.gateway.stop()
        log = KafkaEventLog.from_url(self.log_url, AvroEventSerializer())
        store = CassandraRecordStore.from_url(self.store_url)
        try:
            deadline = time.monotonic() + timeout
            while any(store.checkpoint(p) < log.last_position(p) for p in log.partitions()):
                if time.monotonic() > deadline:
                    raise AssertionError("records workers did not drain the log")
                time.sleep(0.2)
        finally:
            log.close()
            store.close()
        for w in self.workers:
            w.stop()
