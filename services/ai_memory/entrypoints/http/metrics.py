"""Prometheus metrics: request latency per route, log/projection positions and each
tenant's usage read at scrape time (so lag and usage are always current, never a stale
gauge)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from fastapi import FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    start_http_server,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ai_memory import metrics_catalog as mc
from ai_memory.core.errors import AiMemoryError
from ai_memory.service.health import HealthService
from ai_memory.service.search_row_cache import SearchRowCache
from ai_memory.service.usage import UsageService
from ai_memory.service.webhook_dispatcher import (
    DELIVERED,
    FAILED,
    REFUSED_DESTINATION,
    WebhookDispatcher,
)
from ai_memory.telemetry import gc_pauses

from . import auth

log = logging.getLogger(__name__)


class _ProjectionCollector(Collector):
    def __init__(self, health: HealthService) -> None:
        self.health = health

    def collect(self) -> Iterable[GaugeMetricFamily | CounterMetricFamily]:
        statuses = self.health.statuses()
        head = mc.gauge_family(mc.LOG_POSITION)
        position = mc.gauge_family(mc.PROJECTION_POSITION)
        lag = mc.gauge_family(mc.PROJECTION_LAG)
        seen: set[int] = set()
        for st in statuses:
            if st.partition not in seen:
                seen.add(st.partition)
                head.add_metric([str(st.partition)], st.head)
            position.add_metric([st.projection, str(st.partition)], st.position)
            lag.add_metric([st.projection, str(st.partition)], st.lag)
        failures = mc.gauge_family(mc.PROJECTION_FAILURES)
        # The projector workers (projector/worker.py) expose the same catalog entries.
        stuck = mc.gauge_family(mc.PROJECTION_STUCK)
        parked = mc.counter_family(mc.DEAD_LETTERED)
        by_reason: dict[tuple[str, str], int] = {}
        drivers = self.health.drivers()
        for driver in drivers:
            failures.add_metric([driver.name], driver.failures)
            flag = driver.stuck is not None
            stuck.add_metric([driver.projection, str(driver.partition)], 1.0 if flag else 0.0)
            for reason, n in driver.dead_lettered_by_reason.items():
                key = (driver.projection, reason)
                by_reason[key] = by_reason.get(key, 0) + n
        for (name, reason), n in sorted(by_reason.items()):
            parked.add_metric([name, reason], n)
        unresolved = mc.gauge_family(mc.DEAD_LETTERS)
        counts, _ = self.health.dead_letter_counts()
        for name in sorted(set(counts) | {d.projection for d in drivers}):
            unresolved.add_metric([name], counts.get(name, 0))
        yield head
        yield position
        yield lag
        yield failures
        yield stuck
        yield parked
        yield unresolved


class _UsageCollector(Collector):
    """Each tenant's memories and bytes, for every tenant the usage source lists (on the
    embedded store: every tenant that holds or held memories; computing them is one pass
    over the stored memories, about a microsecond each)."""

    def __init__(self, usage: UsageService) -> None:
        self.usage = usage

    def collect(self) -> Iterable[GaugeMetricFamily]:
        memories = mc.gauge_family(mc.TENANT_MEMORIES)
        size = mc.gauge_family(mc.TENANT_BYTES)
        try:
            reports = self.usage.every_tenant()
        except AiMemoryError as e:
            # A store that cannot answer now must not take the positions and lags of the
            # same scrape with it: the gauges go without samples until it answers.
            log.warning("usage not counted for /metrics: %s", e)
            reports = []
        for report in reports:
            memories.add_metric([report.tenant], report.memories)
            size.add_metric([report.tenant], report.bytes)
        yield memories
        yield size


class _CompactionCollector(Collector):
    """The embedded index's background compaction (adapters/edge_compaction.py); an index
    that compacts itself (a Qdrant server) reports nothing and the families stay empty."""

    def __init__(self, status: Callable[[], dict[str, float]]) -> None:
        self.status = status

    def collect(self) -> Iterable[GaugeMetricFamily | CounterMetricFamily]:
        status = self.status()
        running = mc.gauge_family(mc.INDEX_COMPACTION_RUNNING)
        warming = mc.gauge_family(mc.INDEX_CONTEXT_WARMING)
        outcomes = mc.counter_family(mc.INDEX_COMPACTIONS)
        since = mc.gauge_family(mc.INDEX_POINTS_SINCE_COMPACTION)
        forgotten = mc.gauge_family(mc.INDEX_FORGOTTEN_PENDING)
        last = mc.gauge_family(mc.INDEX_LAST_COMPACTION_SECONDS)
        restarts = mc.counter_family(mc.INDEX_PROCESS_RESTARTS)
        if "process_restarts" in status:  # only an index in a process of its own has one
            restarts.add_metric([], status["process_restarts"])
        if "context_warming" in status:
            warming.add_metric([], status["context_warming"])
        if "running" in status:
            running.add_metric([], status["running"])
            since.add_metric([], status["points_since"])
            forgotten.add_metric([], status["forgotten_pending"])
            last.add_metric([], status["last_seconds"])
            for key, value in sorted(status.items()):
                if key.startswith("outcome_"):
                    outcomes.add_metric([key.removeprefix("outcome_")], value)
        yield running
        yield warming
        yield outcomes
        yield since
        yield forgotten
        yield last
        yield restarts


class _WebhookCollector(Collector):
    """Paused subscriptions and the oldest unacknowledged change, as the dispatcher last
    saw them; nothing from a gateway that does not deliver (so a sum over gateways counts
    each subscription once)."""

    def __init__(self, dispatcher: WebhookDispatcher) -> None:
        self.dispatcher = dispatcher

    def collect(self) -> Iterable[GaugeMetricFamily]:
        paused = mc.gauge_family(mc.WEBHOOKS_PAUSED)
        backlog = mc.gauge_family(mc.WEBHOOK_BACKLOG_SECONDS)
        count = self.dispatcher.paused_count()
        behind = self.dispatcher.backlog_seconds()
        if count is not None:
            paused.add_metric([], count)
        if behind is not None:
            backlog.add_metric([], behind)
        yield paused
        yield backlog


class _RowCacheCollector(Collector):
    """The search row cache's lookups (``service/search_row_cache.py``); none counted
    while the cache is off."""

    def __init__(self, cache: SearchRowCache | None) -> None:
        self.cache = cache

    def collect(self) -> Iterable[CounterMetricFamily]:
        lookups = mc.counter_family(mc.SEARCH_ROW_CACHE_LOOKUPS)
        if self.cache is not None:
            lookups.add_metric(["hit"], self.cache.hits)
            lookups.add_metric(["miss"], self.cache.misses)
        yield lookups


def observe_webhooks(dispatcher: WebhookDispatcher, registry: CollectorRegistry) -> None:
    deliveries = mc.counter(mc.WEBHOOK_DELIVERIES, registry)
    latency = mc.histogram(mc.WEBHOOK_DELIVERY_SECONDS, registry)
    for outcome in (DELIVERED, FAILED, REFUSED_DESTINATION):
        deliveries.labels(outcome)  # every outcome exposed from the start, at 0

    def attempted(outcome: str, seconds: float) -> None:
        deliveries.labels(outcome).inc()
        latency.observe(seconds)

    dispatcher.observe(attempted)
    registry.register(_WebhookCollector(dispatcher))


class RequestMetrics:
    """Latency to the response's status line and a count per method, route and status.

    Plain ASGI on purpose: Starlette's ``BaseHTTPMiddleware`` (``@app.middleware``) runs
    every request in a task group and relays the request and the response body through
    memory streams, which cost more than the rest of the edge together on a small
    request. Nothing is recorded for a request that fails before its status line (the
    exception goes on to the outer layers), as before.
    """

    def __init__(self, app: ASGIApp, requests: Counter, latency: Histogram) -> None:
        self.app = app
        self.requests = requests
        self.latency = latency
        # Each label set's child, found once: ``labels()`` checks and looks the values up
        # under a lock on every call. Routes, methods and statuses are few (the path is
        # the route's template, never the request's), so the dicts stay small.
        self._latency_of: dict[tuple[str, str], Histogram] = {}
        self._count_of: dict[tuple[str, str, int], Counter] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                # The router has put the matched route into the scope by now.
                path = getattr(scope.get("route"), "path", "unmatched")
                method = scope["method"]
                status = message["status"]
                timer = self._latency_of.get((method, path))
                if timer is None:
                    timer = self._latency_of[(method, path)] = self.latency.labels(method, path)
                timer.observe(time.perf_counter() - start)
                count = self._count_of.get((method, path, status))
                if count is None:
                    count = self._count_of[(method, path, status)] = self.requests.labels(
                        method, path, str(status)
                    )
                count.inc()
            await send(message)

        await self.app(scope, receive, observed_send)


def install(
    app: FastAPI,
    health: HealthService,
    usage: UsageService | None = None,
    compaction: Callable[[], dict[str, float]] | None = None,
    webhooks: WebhookDispatcher | None = None,
    row_cache: SearchRowCache | None = None,
) -> None:
    registry = CollectorRegistry()
    requests = mc.counter(mc.HTTP_REQUESTS, registry)
    latency = mc.histogram(mc.HTTP_REQUEST_SECONDS, registry)
    registry.register(_ProjectionCollector(health))
    if usage is not None:
        registry.register(_UsageCollector(usage))
    registry.register(_CompactionCollector(compaction or dict))
    registry.register(_RowCacheCollector(row_cache))
    registry.register(mc.GcCollector(gc_pauses.watch()))
    if webhooks is not None:
        observe_webhooks(webhooks, registry)
    app.add_middleware(RequestMetrics, requests=requests, latency=latency)

    # Also served on a port of its own (``serve --metrics-port``) for Prometheus, which
    # then needs no API key; on the API port ``/metrics`` needs an operator key, as the
    # health service decides.
    app.state.metrics_registry = registry

    @app.get("/metrics", include_in_schema=False)
    def metrics(request: Request) -> Response:
        health.may_read_metrics(auth.caller_of(request))
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


def serve_on_port(app: FastAPI, port: int, host: str) -> None:
    """The app's metrics on ``host:port`` (a background thread of prometheus_client):
    counters and gauges only — no memory content; tenant names only as the label of the
    usage gauges — for a scraper on the internal network."""
    registry: CollectorRegistry = app.state.metrics_registry
    start_http_server(port, addr=host, registry=registry)
