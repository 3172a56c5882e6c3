"""Prometheus metrics: request latency per route, and log/projection positions read
at scrape time (so lag is always current, never a stale gauge)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable

from fastapi import FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from ai_memory.bootstrap import Container

from .health import dead_letter_counts


class _ProjectionCollector(Collector):
    def __init__(self, container: Container) -> None:
        self.container = container

    def collect(self) -> Iterable[GaugeMetricFamily | CounterMetricFamily]:
        statuses = self.container.status()
        labels = ["projection", "partition"]
        head = GaugeMetricFamily("aimem_log_position", "Newest log position", labels=["partition"])
        position = GaugeMetricFamily(
            "aimem_projection_position", "Last applied log position", labels=labels
        )
        lag = GaugeMetricFamily(
            "aimem_projection_lag_events", "Events not yet applied", labels=labels
        )
        seen: set[int] = set()
        for st in statuses:
            if st.partition not in seen:
                seen.add(st.partition)
                head.add_metric([str(st.partition)], st.head)
            position.add_metric([st.projection, str(st.partition)], st.position)
            lag.add_metric([st.projection, str(st.partition)], st.lag)
        failures = GaugeMetricFamily(
            "aimem_projection_failures",
            "Failed batches (retried) of in-process projections",
            labels=["projection"],
        )
        # The same names and labels as the projector workers' (projector/faust_app.py).
        stuck = GaugeMetricFamily(
            "aimem_projection_stuck",
            "1 while the projection cannot advance on this partition (retrying)",
            labels=labels,
        )
        parked = CounterMetricFamily(
            "aimem_dead_lettered_events",
            "Events sent to the dead-letter store by in-process projections",
            labels=["projection", "reason"],
        )
        by_reason: dict[tuple[str, str], int] = {}
        for tailer in self.container.projections.tailers:
            failures.add_metric([tailer.name], tailer.failures)
            flag = tailer.policy.stuck is not None
            stuck.add_metric([tailer.sink.name, str(tailer.partition)], 1.0 if flag else 0.0)
            for reason, n in tailer.policy.dead_lettered_by_reason.items():
                key = (tailer.sink.name, reason)
                by_reason[key] = by_reason.get(key, 0) + n
        for (name, reason), n in sorted(by_reason.items()):
            parked.add_metric([name, reason], n)
        unresolved = GaugeMetricFamily(
            "aimem_dead_letters",
            "Dead-lettered events not re-driven or discarded yet",
            labels=["projection"],
        )
        counts, _ = dead_letter_counts(self.container.dead_letters)
        for name in sorted(set(counts) | {t.sink.name for t in self.container.projections.tailers}):
            unresolved.add_metric([name], counts.get(name, 0))
        yield head
        yield position
        yield lag
        yield failures
        yield stuck
        yield parked
        yield unresolved


def install(app: FastAPI, container: Container) -> None:
    registry = CollectorRegistry()
    requests = Counter(
        "aimem_http_requests", "HTTP requests", ["method", "route", "status"], registry=registry
    )
    latency = Histogram(
        "aimem_http_request_seconds",
        "HTTP request latency",
        ["method", "route"],
        buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10),
        registry=registry,
    )
    registry.register(_ProjectionCollector(container))

    @app.middleware("http")
    async def _observe(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        start = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        path = getattr(route, "path", "unmatched")
        latency.labels(request.method, path).observe(time.perf_counter() - start)
        requests.labels(request.method, path, str(response.status_code)).inc()
        return response

    @app.get("/metrics", include_in_schema=False)
    def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
