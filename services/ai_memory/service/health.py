"""What ``GET /healthz`` says: ``ok``, or ``degraded`` and why.

``degraded`` means the server answers but a projection needs an operator: one is stuck (it
cannot apply the event at ``position`` of ``partition`` and keeps retrying — a store is
down, or a batch is being retried before its poison is isolated), or events were
dead-lettered and are not resolved yet (``ai-memory dead-letters list``). A degraded
server still answers HTTP 200 on purpose: ``/healthz`` doubles as the liveness probe, and
restarting a server whose projection is stuck on a down store, or that holds dead letters,
fixes neither and would only turn "degraded" into a restart loop. Alert on the body (or on
``aimem_projection_stuck`` / ``aimem_dead_letters``), not on the status code.

Stuck state is known for projections driven in this process; projector workers report
theirs on their own ``/metrics``. Dead-letter counts come from the shared store, so they
cover every driver; they are cached briefly because on Kafka counting folds the topic.

``HealthService`` is what the entry points see (``/healthz``, ``/metrics``): plain
snapshots of the projections, handed in by the composition root.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ai_memory.core.access import AccessPrincipal
from ai_memory.core.access.keys import DEPLOYMENT_WIDE
from ai_memory.core.ports import DeadLetters

from . import access
from .access import Who

log = logging.getLogger(__name__)

COUNTS_TTL_SECONDS = 5.0
FIRST_COUNT_WAIT_SECONDS = 1.0


class _Counts:
    """The latest dead-letter counts of one store, refreshed off the request thread.

    Counting may be slow or hang when the store is unreachable (a Kafka topic is folded),
    and a health check must answer at once: a check returns what is known and starts one
    refresh in the background when that is older than ``COUNTS_TTL_SECONDS``. Only the
    very first check waits a little for a value."""

    def __init__(self, store: DeadLetters) -> None:
        self.store = store
        self.lock = threading.Lock()
        self.counts: dict[str, int] | None = None
        self.error: str | None = None
        self.at = float("-inf")
        self.refreshing: threading.Thread | None = None

    def get(self) -> tuple[dict[str, int], str | None]:
        with self.lock:
            if self.refreshing is None and time.monotonic() - self.at >= COUNTS_TTL_SECONDS:
                self.refreshing = threading.Thread(
                    target=self._refresh, name="dead-letter-counts", daemon=True
                )
                self.refreshing.start()
            pending = self.refreshing if self.counts is None and self.error is None else None
        if pending is not None:
            pending.join(FIRST_COUNT_WAIT_SECONDS)
        with self.lock:
            if self.counts is None and self.error is None:
                return {}, "dead letters not counted yet"
            return dict(self.counts or {}), self.error

    def _refresh(self) -> None:
        try:
            counts: dict[str, int] | None = self.store.counts()
            error = None
        except Exception as e:
            log.warning("cannot count dead letters: %s", e)
            counts, error = None, f"{type(e).__name__}: {e}"
        with self.lock:
            if counts is not None:
                self.counts = counts
            self.error = error
            self.at = time.monotonic()
            self.refreshing = None


_cache_lock = threading.Lock()
_cache: dict[int, _Counts] = {}


def dead_letter_counts(store: DeadLetters | None) -> tuple[dict[str, int], str | None]:
    """Unresolved dead letters per projection (as of at most a few seconds ago), and the
    error when they cannot be counted."""
    if store is None:
        return {}, None
    with _cache_lock:
        counts = _cache.get(id(store))
        if counts is None or counts.store is not store:
            counts = _cache[id(store)] = _Counts(store)
    return counts.get()


def forget_cached_counts() -> None:
    """Count again on the next check (after the CLI or a test resolved entries)."""
    with _cache_lock:
        _cache.clear()


class ProjectionPosition(Protocol):
    """How far one projection of one partition is (a driver's status)."""

    @property
    def projection(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def position(self) -> int: ...
    @property
    def head(self) -> int: ...
    @property
    def lag(self) -> int: ...
    @property
    def in_process(self) -> bool: ...


@dataclass(frozen=True)
class DriverState:
    """One projection driver running in this process (one partition of one view)."""

    name: str
    projection: str
    partition: int
    failures: int
    stuck: Mapping[str, Any] | None  # where, since when and why it cannot move
    dead_lettered_by_reason: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class HealthService:
    """Projection positions, stuck drivers and dead letters, read at call time."""

    statuses: Callable[[], Sequence[ProjectionPosition]]
    drivers: Callable[[], Sequence[DriverState]]
    dead_letters: DeadLetters | None
    embedder: str
    # The partition writers of this process (distributed log only; see docs/design/WRITE_PATH.md)
    writers: Callable[[], Mapping[str, Any]] = dict
    # What an operator must hear while it lasts (e.g. open mode beyond loopback): each
    # returns its warning, or None once it no longer holds.
    notices: list[Callable[[], str | None]] = field(default_factory=list)

    def dead_letter_counts(self) -> tuple[dict[str, int], str | None]:
        return dead_letter_counts(self.dead_letters)

    def may_read_metrics(self, who: Who) -> None:
        """``Forbidden`` unless ``who`` may read this process's metrics, which count
        every tenant: a deployment-wide operator key, or the deployment itself (no key
        in force)."""
        access.require_deployment_wide(access.caller_of(who), "the metrics")

    def may_read_details(self, who: Who) -> bool:
        """Whether ``who`` may see more than the status: the deployment, an operator key,
        or an admin key — whoever runs something; a probe without a key and a reader or
        writer key learn only whether the server is healthy."""
        caller = access.caller_of(who)
        return not isinstance(caller, AccessPrincipal) or caller.role in ("admin", "operator")

    def report(self, version: str) -> dict[str, Any]:
        return report(self, version)

    def shown(self, who: Who, body: dict[str, Any]) -> dict[str, Any]:
        """What ``who`` (``may_read_details``) sees of a report. Positions, heads, lag,
        dead letters and writers count every tenant's events: only the deployment and a
        deployment-wide (``*``) operator see them; a tenant's admin or operator sees the
        status, the version, the embedder and which projections are stuck."""
        caller = access.caller_of(who)
        if not isinstance(caller, AccessPrincipal) or caller.tenant == DEPLOYMENT_WIDE:
            return body
        shown: dict[str, Any] = {k: body[k] for k in ("status", "version", "embedder") if k in body}
        shown["stuck"] = [{"projection": s["projection"]} for s in body.get("stuck", ())]
        return shown


def report(health: HealthService, version: str) -> dict[str, Any]:
    statuses = health.statuses()
    lag: dict[str, int] = {}
    for st in statuses:
        lag[st.projection] = lag.get(st.projection, 0) + st.lag
    stuck = [
        {"projection": d.projection, **d.stuck} for d in health.drivers() if d.stuck is not None
    ]
    dead_letters, dead_letters_error = health.dead_letter_counts()
    writers = dict(health.writers())
    # A partition this gateway owns but cannot write (its take-over keeps failing) is an
    # operator's problem like a stuck projection: appends to it wait and then fail.
    failing = [
        w
        for w in writers.get("partitions", ())
        if w.get("state") == "taking_over" and w.get("last_error")
    ]
    body: dict[str, Any] = {
        "status": "degraded" if stuck or dead_letters or failing else "ok",
        "version": version,
        "projections": [
            {
                "projection": st.projection,
                "partition": st.partition,
                "position": st.position,
                "head": st.head,
                "lag": st.lag,
                "in_process": st.in_process,
            }
            for st in statuses
        ],
        "lag": lag,
        "embedder": health.embedder,
        "stuck": stuck,
        "dead_letters": dead_letters,
    }
    if dead_letters_error is not None:
        body["dead_letters_error"] = dead_letters_error
    if writers:
        body["writers"] = writers
    warnings = [w for notice in health.notices if (w := notice()) is not None]
    if warnings:
        body["warnings"] = warnings
    return body
