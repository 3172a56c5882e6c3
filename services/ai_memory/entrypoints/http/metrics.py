"""Prometheus metrics: request latency per route, and log/projection positions read
at scrape time (so lag is always current, never a stale gauge)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable

from fastapi import FastAPI, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from ai_memory import metrics_catalog as mc
from ai_memory.service.health import HealthService


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
        # The projector workers (projector/kafka_worker.py) expose the same catalog entries.
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


def install(app: FastAPI, health: HealthService) -> None:
    registry = CollectorRegistry()
    requests = mc.counter(mc.HTTP_REQUESTS, registry)
    latency = mc.histogram(mc.HTTP_REQUEST_SECONDS, registry)
    registry.register(_ProjectionCollector(health))

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
