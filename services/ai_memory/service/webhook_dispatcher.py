"""``WebhookDispatcher``: follows every subscription's change feed and delivers it.

It runs on the gateway's event loop, started and stopped with the app. One task per
subscription, each with **one delivery in flight**, in feed order: a batch is built
from the next page of the tenant's change feed (the scopes and kinds subscribed; ids,
versions, scopes — never content), signed, and posted until the receiver answers 2xx;
only then does the subscription's cursor move past it, and it is saved. So:

* **at least once**: a crash between the receiver's 2xx and the save sends the batch
  again after the restart (the same event ids and delivery id), never skips it;
* **in order per memory**: a memory's changes are in feed order, and no batch starts
  before the previous one was acknowledged;
* **retries** back off exponentially with jitter (``core.webhooks.retries``); after
  too many consecutive failures, or too long failing, the subscription is **paused**
  (visible on ``GET /v1/webhooks/{id}``) until an admin resumes it.

**One deliverer.** On a distributed deployment every gateway runs a dispatcher, but
only the holder of the ``webhook-dispatcher`` lease in the webhook store delivers
(renewed every ``refresh`` seconds, for ``lease_ttl``; released on a clean stop): one
gateway delivers for every tenant, and another takes over within ``lease_ttl`` after it
dies. A gateway that stalls past its lease while a delivery is in flight can send that
batch once more — allowed by at least once, and de-duplicated by event id. An embedded
server needs no lease (``leased=False``): its data directory's lock already makes it
the only process.

**What it tells metrics.** Observers (``observe``) hear every attempt's outcome
(``delivered``, ``failed``, ``refused_destination``) and duration; ``paused_count`` and
``backlog_seconds`` answer for the subscriptions this process delivers (``None`` while
another gateway holds the lease). None of it names a tenant or a URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ai_memory.core.ports import Clock, WebhookSender, WebhookStore
from ai_memory.core.webhooks.model import DeliveryState, Subscription
from ai_memory.core.webhooks.payload import body_of
from ai_memory.core.webhooks.retries import RetryPolicy
from ai_memory.core.webhooks.signing import SIGNATURE_HEADER, signature_header

from .changes import Change, ChangeFeed

log = logging.getLogger(__name__)

LEASE = "webhook-dispatcher"
EVENT_ID_HEADER = "X-AIMemory-Event-Id"
WEBHOOK_ID_HEADER = "X-AIMemory-Webhook-Id"
#: An attempt's outcome, as observers hear it.
DELIVERED, FAILED, REFUSED_DESTINATION = "delivered", "failed", "refused_destination"
#: Told each attempt's outcome and its duration in seconds (the metrics; must not raise).
AttemptObserver = Callable[[str, float], None]


@dataclass(frozen=True)
class DispatchTiming:
    refresh: float = 2.0  # seconds between looks at the subscription list (and the lease)
    lease_ttl: float = 15.0
    idle_wait: float = 5.0  # a follower with nothing to send re-reads its subscription


class WebhookDispatcher:
    def __init__(
        self,
        store: WebhookStore,
        feed: ChangeFeed,
        sender: WebhookSender,
        clock: Clock,
        retry: RetryPolicy,
        *,
        batch: int = 100,
        timing: DispatchTiming | None = None,
        leased: bool = True,
    ) -> None:
        self._store = store
        self._feed = feed
        self._sender = sender
        self._clock = clock
        self._retry = retry
        self._batch = batch
        self._timing = timing or DispatchTiming()
        self._leased = leased
        self.owner = uuid.uuid4().hex  # this process, for the lease
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._nudges: dict[str, asyncio.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._supervisor: asyncio.Task[None] | None = None
        self._observers: list[AttemptObserver] = []
        # Read by the metrics scrape, which may run on another thread (serve --metrics-port).
        self._gauges = threading.Lock()
        self._oldest_pending: dict[str, datetime] = {}  # webhook id -> its oldest unacked change
        self._paused: int | None = None  # None: not the deliverer

    def observe(self, observer: AttemptObserver) -> None:
        """Call ``observer(outcome, seconds)`` after every delivery attempt."""
        self._observers.append(observer)

    def paused_count(self) -> int | None:
        """Paused subscriptions (every tenant) at the last look at the list; ``None``
        when this process does not deliver (another gateway holds the lease)."""
        with self._gauges:
            return self._paused

    def backlog_seconds(self) -> float | None:
        """How long ago the oldest change still waiting for its receiver's 2xx happened
        (the batch in flight, retried, or stopped by a pause; 0 when every receiver is
        caught up); ``None`` when this process does not deliver."""
        with self._gauges:
            if self._paused is None:
                return None
            oldest = min(self._oldest_pending.values(), default=None)
        if oldest is None:
            return 0.0
        return max(0.0, (self._clock.now() - oldest).total_seconds())

    def _pending(self, webhook_id: str, since: datetime | None) -> None:
        with self._gauges:
            if since is None:
                self._oldest_pending.pop(webhook_id, None)
            else:
                self._oldest_pending[webhook_id] = since

    def _attempted(self, outcome: str, seconds: float) -> None:
        for observer in self._observers:
            try:
                observer(outcome, seconds)
            except Exception:  # a metric must never stop a delivery
                log.exception("webhook metrics observer failed")

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._supervisor = asyncio.create_task(self._supervise(), name="webhook-dispatcher")

    async def stop(self) -> None:
        tasks = [*self._tasks.values(), *([self._supervisor] if self._supervisor else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._supervisor = None
        await self._sender.aclose()
        if self._leased:  # a lease of no time is a released one: another takes over now
            with contextlib.suppress(Exception):
                await asyncio.to_thread(
                    self._store.claim, LEASE, self.owner, 0.0, self._clock.now()
                )

    def poke(self, webhook_id: str | None = None) -> None:
        """From any thread: the subscription list changed (``None``) or one
        subscription did (deleted, resumed) — look again now rather than at the next
        refresh."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._poked, webhook_id)

    def _poked(self, webhook_id: str | None) -> None:
        if self._wake is not None:
            self._wake.set()
        if webhook_id is not None and webhook_id in self._nudges:
            self._nudges[webhook_id].set()

    async def _supervise(self) -> None:
        assert self._wake is not None
        while True:
            try:
                await self._reconcile()
            except Exception:
                log.exception("webhook dispatcher: reading the subscriptions failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._timing.refresh)

    async def _reconcile(self) -> None:
        """Follow every subscription while holding the lease, none otherwise."""
        held = not self._leased or await asyncio.to_thread(
            self._store.claim, LEASE, self.owner, self._timing.lease_ttl, self._clock.now()
        )
        subscriptions = await asyncio.to_thread(self._store.list_all) if held else []
        wanted = {s.id: s for s in subscriptions}
        with self._gauges:
            paused = sum(1 for s in subscriptions if s.state.status == "paused")
            self._paused = paused if held else None
            for webhook_id in [i for i in self._oldest_pending if i not in wanted]:
                del self._oldest_pending[webhook_id]
        for webhook_id in [i for i in self._tasks if i not in wanted]:
            self._tasks.pop(webhook_id).cancel()
            self._nudges.pop(webhook_id, None)
        for webhook_id, subscription in wanted.items():
            task = self._tasks.get(webhook_id)
            if task is None or task.done():
                self._nudges.setdefault(webhook_id, asyncio.Event())
                self._tasks[webhook_id] = asyncio.create_task(
                    self._follow(subscription.tenant, webhook_id), name=f"webhook-{webhook_id}"
                )

    async def _follow(self, tenant: str, webhook_id: str) -> None:
        failures = 0
        while True:
            try:
                if not await self._step(tenant, webhook_id):
                    return
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception:
                # A store or log outage: not the receiver's fault, never a pause.
                failures += 1
                log.exception("webhook %s: following the change feed failed", webhook_id)
                await self._rest(webhook_id, self._retry.delay(failures))

    async def _step(self, tenant: str, webhook_id: str) -> bool:
        """One look at the subscription: deliver the next batch, or wait for one. False
        once the subscription is gone."""
        subscription = await asyncio.to_thread(self._store.get, tenant, webhook_id)
        if subscription is None:
            return False
        state = subscription.state
        if state.status == "paused":
            await self._rest(webhook_id, self._timing.refresh)
            return True
        # A subscription saved before cursors were sealed resumes where it was.
        resumed = self._feed.stored_cursor(tenant, state.cursor) if state.cursor else ""
        if resumed != state.cursor:
            state = replace(state, cursor=resumed)
            subscription = replace(subscription, state=state)
        page = await asyncio.to_thread(
            self._feed.page, tenant, subscription.scopes, since=state.cursor, limit=self._batch
        )
        entries = [c for c in page.changes if c.kind in subscription.kinds]
        if entries:
            await self._deliver(subscription, entries, page.next)
            return True
        if page.next != state.cursor:  # past entries of other kinds, or of other tenants
            await asyncio.to_thread(
                self._store.save_state, tenant, webhook_id, replace(state, cursor=page.next)
            )
        if not page.more:
            await self._idle(tenant, webhook_id, page.next)
        return True

    async def _deliver(self, subscription: Subscription, entries: list[Change], after: str) -> None:
        """Post one batch until it is acknowledged, the subscription is paused or gone,
        or someone else moved its cursor."""
        delivery, body = body_of(subscription.id, subscription.tenant, entries, after)
        state = subscription.state
        self._pending(subscription.id, _oldest(entries))
        while True:
            timestamp = int(self._clock.now().timestamp())
            headers = {
                SIGNATURE_HEADER: signature_header(subscription.secret, timestamp, body),
                EVENT_ID_HEADER: delivery,
                WEBHOOK_ID_HEADER: subscription.id,
            }
            started = time.perf_counter()
            attempt = await self._sender.send(subscription.url, body, headers)
            elapsed = time.perf_counter() - started
            if attempt.ok:
                outcome = DELIVERED
            else:
                outcome = REFUSED_DESTINATION if attempt.refused_destination else FAILED
            self._attempted(outcome, elapsed)
            now = self._clock.now()
            if attempt.ok:
                self._pending(subscription.id, None)
                await self._save(
                    subscription,
                    replace(
                        state,
                        cursor=after,
                        failures=0,
                        failing_since=None,
                        last_attempt_at=now,
                        last_success_at=now,
                        last_status=attempt.status,
                        last_error=None,
                        delivered=state.delivered + len(entries),
                    ),
                )
                return
            failures = state.failures + 1
            failing_since = state.failing_since or now
            paused = self._retry.pause_reason(failures, failing_since, now)
            state = replace(
                state,
                status="paused" if paused else "active",
                paused_reason=paused,
                failures=failures,
                failing_since=failing_since,
                last_attempt_at=now,
                last_status=attempt.status,
                last_error=attempt.error,
            )
            if not await self._save(subscription, state) or paused:
                if paused:
                    log.warning("webhook %s paused: %s", subscription.id, paused)
                return
            await self._rest(subscription.id, self._retry.delay(failures))
            current = await asyncio.to_thread(self._store.get, subscription.tenant, subscription.id)
            if current is None or current.state.status == "paused":
                return
            if current.state.cursor != subscription.state.cursor:
                self._pending(subscription.id, None)
                return  # moved by another deliverer: read the feed again from there
            state = current.state  # a resume meanwhile reset the failures

    async def _save(self, subscription: Subscription, state: DeliveryState) -> bool:
        return await asyncio.to_thread(
            self._store.save_state, subscription.tenant, subscription.id, state
        )

    async def _rest(self, webhook_id: str, seconds: float) -> None:
        """Sleep ``seconds``, or less if the subscription is nudged."""
        nudge = self._nudges.setdefault(webhook_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(nudge.wait(), seconds)
        nudge.clear()

    async def _idle(self, tenant: str, webhook_id: str, cursor: str) -> None:
        """Until the log advances past ``cursor``, a nudge, or ``idle_wait``."""
        nudge = self._nudges.setdefault(webhook_id, asyncio.Event())
        waits = [
            asyncio.create_task(self._feed.wait(tenant, cursor, self._timing.idle_wait)),
            asyncio.create_task(nudge.wait()),
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
        nudge.clear()


def _oldest(entries: list[Change]) -> datetime | None:
    """When the oldest of ``entries`` happened (entries of several partitions are merged
    by time, so the first is not always the oldest)."""
    times = []
    for entry in entries:
        try:
            at = datetime.fromisoformat(entry.at)
        except ValueError:
            continue
        times.append(at if at.tzinfo is not None else at.replace(tzinfo=UTC))
    return min(times, default=None)
