"""Connecting to Cassandra from a URL, and translating driver errors at the boundary.

URL format::

    cassandra://[user:password@]host1[:9042][,host2[:9042]...]/<keyspace>[?param=value&...]

Parameters (all optional):

``replication_factor``  (default 1) used when the keyspace is created by the migrations:
                        SimpleStrategy, or NetworkTopologyStrategy in ``datacenter``.
``datacenter``          local data centre: DC-aware routing + LOCAL_* consistency.
``consistency``         (default LOCAL_QUORUM) for reads and writes. Read counts are
                        read-then-written (see record_store.py), so reads must see
                        previous writes: keep R + W > RF (QUORUM-class, or ONE at RF 1).
``serial_consistency``  (default LOCAL_SERIAL) for lightweight transactions.
``connect_timeout``     seconds (default 5).
``request_timeout``     seconds per request (default 10).
``speculative_delay``   seconds (default 0.5; 0 = off) after which an idempotent request
                        still unanswered is sent once more, to the next replica.

**Speculative execution.** A node that dies or freezes (kill -9, SIGSTOP, a long GC)
leaves the requests already sent to it unanswered until ``request_timeout``, and the
driver keeps choosing it until it is marked down: in the fault suite four of a gateway's
request threads each waited 10 s in a key read and then 5 s more in a KEK read while one
Cassandra node of three was killed (their clients timed out at 15 s). So every statement
that may safely run twice — every read, and every write that is not conditional and not a
counter, all of which here are position- or client-timestamped, so a second copy writes
the same cells at the same timestamp — is marked idempotent, and the driver's
``ConstantSpeculativeExecutionPolicy`` sends it to the next host of the query plan when
the first has not answered within ``speculative_delay``; the first answer wins. Lightweight
transactions and counters are never sent twice. That picks another *coordinator*; which
*replicas* a coordinator waits for is Cassandra's own ``speculative_retry``, capped at 50 ms
on every table (``migrations/0009_speculative_retry.cql``): without it a live coordinator
kept waiting on a frozen replica, and so did the second one.

Everything the rest of the code sees is an ``ai_memory.core.errors`` exception: timeouts,
unavailable replicas and unreachable hosts become ``Unavailable`` (retry later); a
request Cassandra rejects (invalid query, schema mismatch, permissions) becomes a
``PermanentError`` because sending it again cannot succeed.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import namedtuple
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import cassandra
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import (
    EXEC_PROFILE_DEFAULT,
    Cluster,
    ExecutionProfile,
    NoHostAvailable,
)
from cassandra.concurrent import execute_concurrent
from cassandra.connection import (
    ConnectionException,
    DefaultEndPoint,
)
from cassandra.policies import (
    ConstantSpeculativeExecutionPolicy,
    DCAwareRoundRobinPolicy,
    ExponentialReconnectionPolicy,
    RoundRobinPolicy,
    TokenAwarePolicy,
)
from cassandra.protocol import ErrorMessage
from cassandra.query import BatchStatement, BatchType, named_tuple_factory

from ai_memory.core.errors import AiMemoryError, InvalidInput, PermanentError, Unavailable


@functools.lru_cache(maxsize=1024)
def _row_type(colnames: tuple[str, ...]) -> Any:
    return namedtuple("Row", colnames)


def was_applied(result: Any) -> bool:
    """Whether a lightweight transaction applied: ``ResultSet.was_applied`` for the rows
    of ``named_rows`` (the driver's accepts only its own row factories). Its first column
    is ``[applied]``."""
    rows = result.current_rows
    if len(rows) != 1:
        raise RuntimeError(f"a lightweight transaction's result has {len(rows)} rows, not 1")
    return bool(rows[0][0])


def named_rows(colnames: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Any]:
    """The driver's default rows (named tuples), with one tuple class per column list.

    The driver's ``named_tuple_factory`` builds a new class for every result set — the
    ``namedtuple`` call costs more than a one-row result's decoding, and showed as a few
    percent of every projector's CPU. Column names that are not identifiers (the
    ``[applied]`` of a lightweight transaction) go to the driver's factory, which renames
    them (``applied``) as before."""
    try:
        row = _row_type(tuple(colnames))
    except ValueError:
        rows_: list[Any] = named_tuple_factory(colnames, rows)
        return rows_
    return [row(*r) for r in rows]


DEFAULT_PORT = 9042
_KEYSPACE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,47}$")
_PARAMS = {
    "replication_factor",
    "datacenter",
    "consistency",
    "serial_consistency",
    "connect_timeout",
    "request_timeout",
    "speculative_delay",
}
# A conditional statement (a lightweight transaction) or a counter update: running it twice
# is not the same as running it once, so it is never retried elsewhere or sent twice.
_NOT_IDEMPOTENT = re.compile(r"\bIF\b|=\s*\w+\s*[-+]\s*\?", re.IGNORECASE)


@dataclass(frozen=True)
class CassandraSettings:
    hosts: tuple[tuple[str, int], ...]
    keyspace: str
    replication_factor: int = 1
    datacenter: str | None = None
    consistency: str = "LOCAL_QUORUM"
    serial_consistency: str = "LOCAL_SERIAL"
    connect_timeout: float = 5.0
    request_timeout: float = 10.0
    speculative_delay: float = 0.5
    username: str | None = None
    password: str | None = None

    def replication(self) -> str:
        """The CQL replication map for ``CREATE KEYSPACE``."""
        rf = self.replication_factor
        if self.datacenter:
            return f"{{'class': 'NetworkTopologyStrategy', '{self.datacenter}': {rf}}}"
        return f"{{'class': 'SimpleStrategy', 'replication_factor': {rf}}}"


def is_idempotent(cql: str) -> bool:
    """Whether running ``cql`` twice leaves what running it once does (module docstring,
    "Speculative execution")."""
    return _NOT_IDEMPOTENT.search(cql) is None


def _bad(message: str) -> InvalidInput:
    return InvalidInput("cassandra_url", "url_format", message, code="invalid_cassandra_url")


def parse_url(url: str) -> CassandraSettings:
    """Parse a ``cassandra://`` URL (format in the module docstring)."""
    parts = urlsplit(url)
    if parts.scheme != "cassandra":
        raise _bad(f"expected a cassandra:// URL, got {url!r}")
    netloc = parts.netloc
    username = password = None
    if "@" in netloc:
        auth, netloc = netloc.rsplit("@", 1)
        user, _, pwd = auth.partition(":")
        username, password = unquote(user), unquote(pwd)
    hosts: list[tuple[str, int]] = []
    for item in netloc.split(","):
        host, _, port = item.strip().partition(":")
        if not host:
            raise _bad(f"empty host in {url!r}")
        if port and not port.isdigit():
            raise _bad(f"port must be a number in {item!r}")
        hosts.append((host, int(port) if port else DEFAULT_PORT))
    keyspace = parts.path.strip("/")
    if not _KEYSPACE.match(keyspace):
        raise _bad("the path must name the keyspace: a letter then ≤47 letters, digits or _")
    query = {k: v[-1] for k, v in parse_qs(parts.query, strict_parsing=False).items()}
    unknown = sorted(set(query) - _PARAMS)
    if unknown:
        raise _bad(
            f"unknown parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(_PARAMS))}"
        )
    try:
        settings = CassandraSettings(
            hosts=tuple(hosts),
            keyspace=keyspace,
            replication_factor=int(query.get("replication_factor", 1)),
            datacenter=query.get("datacenter") or None,
            consistency=query.get("consistency", "LOCAL_QUORUM").upper(),
            serial_consistency=query.get("serial_consistency", "LOCAL_SERIAL").upper(),
            connect_timeout=float(query.get("connect_timeout", 5.0)),
            request_timeout=float(query.get("request_timeout", 10.0)),
            speculative_delay=float(query.get("speculative_delay", 0.5)),
            username=username,
            password=password,
        )
    except ValueError as e:
        raise _bad(f"bad parameter value in {url!r}: {e}") from e
    if settings.replication_factor < 1:
        raise _bad("replication_factor must be ≥ 1")
    if not 0 <= settings.speculative_delay < settings.request_timeout:
        raise _bad("speculative_delay must be ≥ 0 and below request_timeout")
    for name in (settings.consistency, settings.serial_consistency):
        if name not in cassandra.ConsistencyLevel.name_to_value:
            raise _bad(f"unknown consistency level {name!r}")
    return settings


def translate(error: BaseException) -> AiMemoryError | None:
    """The ``ai_memory`` error for a driver error, or None when it is not one."""
    if isinstance(error, AiMemoryError):
        return error
    if isinstance(error, cassandra.Timeout | cassandra.OperationTimedOut):
        return Unavailable(f"cassandra timed out: {error}", retry_after=1.0, code="store_timeout")
    if isinstance(error, cassandra.Unavailable):
        return Unavailable(f"cassandra replicas unavailable: {error}", retry_after=2.0)
    if isinstance(error, NoHostAvailable | ConnectionException):
        return Unavailable(f"cassandra unreachable: {error}", retry_after=5.0)
    if isinstance(error, cassandra.RequestValidationException | cassandra.AuthenticationFailed):
        # Invalid query, unknown table (migrations not run), missing permission: a retry
        # sends the same request and fails the same way.
        return PermanentError(f"cassandra rejected the request: {error}", code="store_rejected")
    if isinstance(error, cassandra.DriverException | ErrorMessage):
        # Overloaded, bootstrapping, coordination failures, server errors.
        return Unavailable(f"cassandra error: {error}", retry_after=5.0)
    return None


@contextmanager
def translate_errors() -> Iterator[None]:
    try:
        yield
    except Exception as e:
        mapped = translate(e)
        if mapped is None or mapped is e:
            raise
        raise mapped from e


class CassandraSession:
    """One driver ``Cluster`` + ``Session`` shared by the Cassandra adapters.

    Statements are prepared once and cached by text. The session is bound to the
    keyspace after ``use_keyspace`` (the migrations create the keyspace first)."""

    def __init__(self, settings: CassandraSettings) -> None:
        self.settings = settings
        levels = cassandra.ConsistencyLevel.name_to_value
        if settings.datacenter:
            routing: Any = DCAwareRoundRobinPolicy(local_dc=settings.datacenter)
        else:
            routing = RoundRobinPolicy()
        speculative = None
        if settings.speculative_delay > 0:
            speculative = ConstantSpeculativeExecutionPolicy(
                settings.speculative_delay, max_attempts=1
            )
        profile = ExecutionProfile(
            load_balancing_policy=TokenAwarePolicy(routing),
            consistency_level=levels[settings.consistency],
            serial_consistency_level=levels[settings.serial_consistency],
            request_timeout=settings.request_timeout,
            speculative_execution_policy=speculative,
            row_factory=named_rows,
        )
        auth = None
        if settings.username is not None:
            auth = PlainTextAuthProvider(settings.username, settings.password or "")
        self._cluster = Cluster(
            contact_points=[DefaultEndPoint(h, p) for h, p in settings.hosts],
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=settings.connect_timeout,
            auth_provider=auth,
            # The driver's default backs off to 10 minutes between attempts: a node back
            # after a restart stayed unused for a minute. Cap it at a few seconds.
            reconnection_policy=ExponentialReconnectionPolicy(0.5, 4.0),
        )
        with translate_errors():
            self.session: Any = self._cluster.connect()
        self._prepared: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str) -> CassandraSession:
        return cls(parse_url(url))

    @property
    def keyspace(self) -> str:
        return self.settings.keyspace

    def use_keyspace(self) -> None:
        with translate_errors():
            self.session.set_keyspace(self.settings.keyspace)

    def prepare(self, cql: str) -> Any:
        stmt = self._prepared.get(cql)
        if stmt is None:
            with self._lock, translate_errors():
                stmt = self._prepared.get(cql)
                if stmt is None:
                    stmt = self.session.prepare(cql)
                    # Bound statements inherit it: see "Speculative execution" above.
                    stmt.is_idempotent = is_idempotent(cql)
                    self._prepared[cql] = stmt
        return stmt

    def execute(
        self,
        statement: Any,
        params: Sequence[Any] | None = None,
        *,
        serial: bool = False,
        timeout: float | None = None,
    ) -> Any:
        """Run one statement. ``serial`` reads at the serial consistency level, which
        also completes any lightweight transaction in flight on that partition;
        ``timeout`` replaces ``request_timeout`` for this statement."""
        with translate_errors():
            if serial:
                statement = statement.bind(params)
                statement.consistency_level = cassandra.ConsistencyLevel.name_to_value[
                    self.settings.serial_consistency
                ]
                params = None
            if timeout is not None:
                return self.session.execute(statement, params, timeout=timeout)
            return self.session.execute(statement, params)

    def execute_many(
        self, items: Sequence[tuple[Any, Sequence[Any] | None]], *, concurrency: int = 64
    ) -> list[Any]:
        """Run statements concurrently; return their result sets in order."""
        if not items:
            return []
        with translate_errors():
            results = execute_concurrent(
                self.session, items, concurrency=concurrency, raise_on_first_error=True
            )
        return [result for _, result in results]

    def write_grouped(self, items: Sequence[tuple[Any, Sequence[Any]]]) -> None:
        """Apply plain (unconditional, non-counter) writes, grouped into unlogged batches
        by the replicas that own their partitions, and the batches run concurrently.

        A batch whose partitions all live on the same replicas is coordinated by one of
        them (the token-aware policy routes it by its first statement), so grouping adds
        no hop, and one request carries many mutations: on the local node a batch of 50
        costs Cassandra ≈ 0.1–0.2 ms of CPU per mutation against ≈ 0.4 ms one by one, and
        the driver ≈ 15× less (``loadtest/RESULTS.md``). This is what the Spark Cassandra
        connector does (``spark.cassandra.output.batch.grouping.key = replica_set``). An
        unlogged batch is no more atomic than its statements sent apart, which is all the
        callers assume: every write here is idempotent (``USING TIMESTAMP``). Batches stay
        under ``MAX_BATCH_BYTES`` of bound values, below Cassandra's default
        ``batch_size_fail_threshold`` (50 KiB).

        Within a group, the statements go in the order of their partition keys, so that
        the rows of one partition share a batch: Cassandra applies a batch's rows of one
        partition key as one mutation (one commit-log entry, one memtable update per
        table), where rows of one partition spread over several batches are as many. A
        projection batch writes many rows into a few partitions (the scan indexes'
        buckets; a memory's record and lineage rows share its key). The order of plain
        writes with their own timestamps changes nothing they leave (the batches already
        run concurrently)."""
        if not items:
            return
        groups: dict[tuple[str, ...], list[tuple[bytes, Any, int]]] = {}
        metadata = self._cluster.metadata
        with translate_errors():
            for stmt, params in items:
                bound = stmt.bind(params)
                keyspace = bound.keyspace or self.settings.keyspace
                key = bound.routing_key
                replicas = metadata.get_replicas(keyspace, key)
                group = tuple(sorted(str(h.endpoint) for h in replicas))
                groups.setdefault(group, []).append((key or b"", bound, _bound_bytes(params)))
        batches: list[tuple[Any, None]] = []
        for members in groups.values():
            members.sort(key=_partition_key)  # stable: a partition's rows keep their order
            batch, count, size = _batch(), 0, 0
            for _, bound, nbytes in members:
                if nbytes > MAX_BATCH_BYTES:  # alone over the threshold: sent on its own
                    batches.append((bound, None))
                    continue
                if count and (size + nbytes > MAX_BATCH_BYTES or count >= MAX_BATCH_STATEMENTS):
                    batches.append((batch, None))
                    batch, count, size = _batch(), 0, 0
                batch.add(bound)
                count, size = count + 1, size + nbytes
            if count:
                batches.append((batch, None))
        self.execute_many(batches, concurrency=16)

    def close(self) -> None:
        self._cluster.shutdown()


def _partition_key(member: tuple[bytes, Any, int]) -> bytes:
    return member[0]


def _batch() -> Any:
    # Its members are plain writes (the caller's contract), so the batch may run twice.
    batch = BatchStatement(batch_type=BatchType.UNLOGGED)
    batch.is_idempotent = True
    return batch


MAX_BATCH_BYTES = 24 * 1024
MAX_BATCH_STATEMENTS = 100


def _bound_bytes(params: Sequence[Any]) -> int:
    """About the bytes a statement's values take in a batch (strings and blobs by their
    encoded length, collections at most 4 bytes a character, everything else a few
    bytes): an upper bound that keeps a batch below the threshold."""
    total = 64  # the statement id, the timestamp, the framing
    for value in params:
        if isinstance(value, str):
            total += len(value) if value.isascii() else len(value.encode("utf-8"))
        elif isinstance(value, bytes | bytearray | memoryview):
            total += len(value)
        elif isinstance(value, list | tuple | set | frozenset):
            total += sum(4 * len(v) if isinstance(v, str) else 16 for v in value)
        elif isinstance(value, dict):
            total += sum(4 * (len(str(k)) + len(str(v))) for k, v in value.items())
        else:
            total += 16
    return total
