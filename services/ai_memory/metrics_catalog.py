"""Every Prometheus metric the services expose: name, kind, help and label names.

The gateway (``entrypoints/http/metrics.py``) and the projector workers
(``projector/worker.py``) build their instruments from these entries only, and the
deployment checks (``tests/deployment``) read the alert rules and the dashboard against
this catalog, so the names in code, alerts and dashboards cannot drift apart. A metric
exposed by both processes is one entry: same name, same labels, same meaning.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from ai_memory.telemetry import gc_pauses

Kind = Literal["counter", "gauge", "histogram"]
Process = Literal["gateway", "worker"]


@dataclass(frozen=True)
class Metric:
    name: str  # as declared; a counter is exposed as ``<name>_total``
    kind: Kind
    help: str
    labels: tuple[str, ...]
    exposed_by: tuple[Process, ...]
    buckets: tuple[float, ...] = ()  # histograms only

    def series(self) -> dict[str, frozenset[str]]:
        """The series Prometheus scrapes for this metric, with their label names."""
        labels = frozenset(self.labels)
        if self.kind == "counter":
            return {f"{self.name}_total": labels, f"{self.name}_created": labels}
        if self.kind == "histogram":
            out = {f"{self.name}_bucket": labels | {"le"}}
            return out | {f"{self.name}_{s}": labels for s in ("sum", "count", "created")}
        return {self.name: labels}


HTTP_REQUESTS = Metric(
    "aimem_http_requests", "counter", "HTTP requests", ("method", "route", "status"), ("gateway",)
)
HTTP_REQUEST_SECONDS = Metric(
    "aimem_http_request_seconds",
    "histogram",
    "HTTP request latency",
    ("method", "route"),
    ("gateway",),
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10),
)
LOG_POSITION = Metric(
    "aimem_log_position", "gauge", "Newest log position", ("partition",), ("gateway",)
)
PROJECTION_POSITION = Metric(
    "aimem_projection_position",
    "gauge",
    "Last applied log position",
    ("projection", "partition"),
    ("gateway", "worker"),
)
PROJECTION_LAG = Metric(
    "aimem_projection_lag_events",
    "gauge",
    "Events not yet applied",
    ("projection", "partition"),
    ("gateway", "worker"),
)
PROJECTION_EVENTS = Metric(
    "aimem_projection_events", "counter", "Events applied", ("projection",), ("worker",)
)
PROJECTION_FAILURES = Metric(
    "aimem_projection_failures",
    "gauge",
    "Failed batches (retried) of the projection",
    ("projection",),
    ("gateway", "worker"),
)
PROJECTION_STUCK = Metric(
    "aimem_projection_stuck",
    "gauge",
    "1 while the projection cannot advance on this partition (retrying)",
    ("projection", "partition"),
    ("gateway", "worker"),
)
DEAD_LETTERED = Metric(
    "aimem_dead_lettered_events",
    "counter",
    "Events the projection sent to the dead-letter store",
    ("projection", "reason"),
    ("gateway", "worker"),
)
DEAD_LETTERS = Metric(
    "aimem_dead_letters",
    "gauge",
    "Dead-lettered events not re-driven or discarded yet",
    ("projection",),
    ("gateway",),
)
TENANT_MEMORIES = Metric(
    "aimem_tenant_memories",
    "gauge",
    "Memories the tenant stores (what its memory quota counts)",
    ("tenant",),
    ("gateway",),
)
TENANT_BYTES = Metric(
    "aimem_tenant_bytes",
    "gauge",
    "UTF-8 bytes of the content of the memories the tenant stores",
    ("tenant",),
    ("gateway",),
)
INDEX_COMPACTION_RUNNING = Metric(
    "aimem_index_compaction_running",
    "gauge",
    "1 while a compaction of the embedded index runs or is due, or waits to retry one a "
    "bulk load outran (a child process builds the next generation)",
    (),
    ("gateway",),
)
INDEX_CONTEXT_WARMING = Metric(
    "aimem_index_context_warming",
    "gauge",
    "1 while the embedded index reads its points into conversation context's timelines "
    "after it opened (until then searches look neighbours up in the engine)",
    (),
    ("gateway",),
)
INDEX_COMPACTIONS = Metric(
    "aimem_index_compactions",
    "counter",
    "Compactions of the embedded index by outcome (done, abandoned, failed, cancelled)",
    ("outcome",),
    ("gateway",),
)
SEARCH_ROW_CACHE_LOOKUPS = Metric(
    "aimem_search_row_cache_lookups",
    "counter",
    "Record rows searches looked for in the serving process's cache, by result (hit: the "
    "cached row was the version the index holds, and the record store was not read)",
    ("result",),
    ("gateway",),
)
INDEX_PROCESS_RESTARTS = Metric(
    "aimem_index_process_restarts",
    "counter",
    "Times the embedded index's own process died and was started again (its projection "
    "then re-reads the log from where the new one reopened)",
    (),
    ("gateway",),
)
INDEX_POINTS_SINCE_COMPACTION = Metric(
    "aimem_index_points_since_compaction",
    "gauge",
    "Points written to the embedded index since its last compaction began (searched by "
    "brute force until the next one)",
    (),
    ("gateway",),
)
INDEX_FORGOTTEN_PENDING = Metric(
    "aimem_index_forgotten_pending",
    "gauge",
    "Forgotten points whose vectors stay in the embedded index's files until the next compaction",
    (),
    ("gateway",),
)
INDEX_LAST_COMPACTION_SECONDS = Metric(
    "aimem_index_last_compaction_seconds",
    "gauge",
    "Duration of the last finished compaction of the embedded index",
    (),
    ("gateway",),
)
# Webhooks: by outcome and in total only — never a tenant or a URL label (a series must not
# tell one tenant's receiver, or its address, to whoever reads the metrics).
WEBHOOK_DELIVERIES = Metric(
    "aimem_webhook_deliveries",
    "counter",
    "Webhook delivery attempts by outcome (delivered: a 2xx; failed: no answer, a timeout "
    "or another status; refused_destination: the address policy refused where the name "
    "now resolves)",
    ("outcome",),
    ("gateway",),
)
WEBHOOK_DELIVERY_SECONDS = Metric(
    "aimem_webhook_delivery_seconds",
    "histogram",
    "Duration of a webhook delivery attempt (resolution, connection and the receiver's answer)",
    (),
    ("gateway",),
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
WEBHOOKS_PAUSED = Metric(
    "aimem_webhooks_paused",
    "gauge",
    "Paused webhook subscriptions, every tenant (exposed by the gateway that delivers)",
    (),
    ("gateway",),
)
GC_PAUSE_SECONDS = Metric(
    "aimem_gc_pause_seconds",
    "histogram",
    "Garbage collections of the process by generation (2: full) and how long each held "
    "the interpreter, and with it every request or event it was handling",
    ("generation",),
    ("gateway", "worker"),
    buckets=gc_pauses.BUCKETS,
)
HEAP_FROZEN_OBJECTS = Metric(
    "aimem_heap_frozen_objects",
    "gauge",
    "Objects of the process frozen out of the garbage collector's full collections (0 "
    "until it is ready: a gateway's index warm; docs/design/HEAP.md)",
    (),
    ("gateway", "worker"),
)
WEBHOOK_BACKLOG_SECONDS = Metric(
    "aimem_webhook_backlog_seconds",
    "gauge",
    "Age of the oldest change a webhook receiver has not acknowledged yet (0: every "
    "receiver caught up; exposed by the gateway that delivers)",
    (),
    ("gateway",),
)

CATALOG: tuple[Metric, ...] = (
    HTTP_REQUESTS,
    HTTP_REQUEST_SECONDS,
    LOG_POSITION,
    PROJECTION_POSITION,
    PROJECTION_LAG,
    PROJECTION_EVENTS,
    PROJECTION_FAILURES,
    PROJECTION_STUCK,
    DEAD_LETTERED,
    DEAD_LETTERS,
    TENANT_MEMORIES,
    TENANT_BYTES,
    INDEX_COMPACTION_RUNNING,
    INDEX_CONTEXT_WARMING,
    INDEX_COMPACTIONS,
    INDEX_PROCESS_RESTARTS,
    SEARCH_ROW_CACHE_LOOKUPS,
    INDEX_POINTS_SINCE_COMPACTION,
    INDEX_FORGOTTEN_PENDING,
    INDEX_LAST_COMPACTION_SECONDS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_DELIVERY_SECONDS,
    WEBHOOKS_PAUSED,
    WEBHOOK_BACKLOG_SECONDS,
    GC_PAUSE_SECONDS,
    HEAP_FROZEN_OBJECTS,
)


def exposed_series() -> dict[str, frozenset[str]]:
    """Every series name any process exposes, with its label names."""
    out: dict[str, frozenset[str]] = {}
    for metric in CATALOG:
        for name, labels in metric.series().items():
            out[name] = out.get(name, frozenset()) | labels
    return out


# --- instruments (updated as things happen) -------------------------------------------
def _check(metric: Metric, kind: Kind) -> None:
    if metric.kind != kind:
        raise TypeError(f"{metric.name} is a {metric.kind}, not a {kind}")


def counter(metric: Metric, registry: CollectorRegistry) -> Counter:
    _check(metric, "counter")
    return Counter(metric.name, metric.help, metric.labels, registry=registry)


def gauge(metric: Metric, registry: CollectorRegistry) -> Gauge:
    _check(metric, "gauge")
    return Gauge(metric.name, metric.help, metric.labels, registry=registry)


def histogram(metric: Metric, registry: CollectorRegistry) -> Histogram:
    _check(metric, "histogram")
    return Histogram(
        metric.name, metric.help, metric.labels, buckets=metric.buckets, registry=registry
    )


# --- families (read at scrape time by collectors) -------------------------------------
def gauge_family(metric: Metric) -> GaugeMetricFamily:
    _check(metric, "gauge")
    return GaugeMetricFamily(metric.name, metric.help, labels=metric.labels)


def histogram_family(metric: Metric) -> HistogramMetricFamily:
    _check(metric, "histogram")
    return HistogramMetricFamily(metric.name, metric.help, labels=metric.labels)


def counter_family(metric: Metric) -> CounterMetricFamily:
    _check(metric, "counter")
    return CounterMetricFamily(metric.name, metric.help, labels=metric.labels)


class GcCollector(Collector):
    """The process's collection pauses (``telemetry/gc_pauses.py``) and frozen heap
    (``entrypoints/heap_freeze.py``), read at scrape time: the gateway and the workers."""

    def __init__(self, pauses: gc_pauses.GcPauses) -> None:
        self.pauses = pauses

    def collect(self) -> Iterable[HistogramMetricFamily | GaugeMetricFamily]:
        family = histogram_family(GC_PAUSE_SECONDS)
        for generation, pauses in sorted(self.pauses.snapshot().items()):
            family.add_metric([str(generation)], pauses.cumulative(), pauses.total)
        yield family
        frozen = gauge_family(HEAP_FROZEN_OBJECTS)
        frozen.add_metric([], gc.get_freeze_count())
        yield frozen
