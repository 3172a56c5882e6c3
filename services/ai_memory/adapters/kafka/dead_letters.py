"""KafkaDeadLetters: the ``DeadLetters`` port on the ``<topic>.dlq`` topic.

Why the topic and not a Cassandra table: the topic already is where a Kafka deployment
parks poison (one partition, kept forever, the format of ``dead_letter``), it holds the
original bytes next to the log they came from, and it needs no second store for a
distributed deployment that keeps its records elsewhere. Listing and resolving from a
topic is practical because dead letters are rare: the topic is read once from the start
and then only from where the previous read stopped, folding records by key — the latest
record of ``<projection>:<position>`` is the entry's state, and a ``resolved`` marker
record closes it. Attempts and the first failure time are carried forward by ``put``
(which folds before it writes), so the topic itself stays append-only.

Clients start on first use, on a private background loop (the port is synchronous).
Several processes may write: each folds everything on the topic before it answers.
"""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka import errors as ke
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from ai_memory.core.ports import DeadLetter

from .config import KafkaLogConfig
from .dead_letter import (
    AT_MS,
    ATTEMPTS,
    ERROR,
    FIRST_AT_MS,
    POSITION,
    PROJECTION,
    REASON,
    RESOLVED,
    SOURCE_PARTITION,
    Headers,
    dead_letter_record,
    header_dict,
    resolved_record,
)
from .errors import translate_errors
from .loop import BackgroundLoop
from .reader import new_consumer
from .topics import _create, _wait_ready, topic_configs

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PARTITION = 0  # the dead-letter topic has one partition (see ``topics``)


class KafkaDeadLetters:
    def __init__(self, config: KafkaLogConfig, *, client_id: str = "ai-memory-dlq") -> None:
        self.config = config
        self._client_id = client_id
        self._lock = threading.Lock()  # one fold/write at a time in this process
        self._loop: BackgroundLoop | None = None
        self._producer: Any = None
        self._reader: Any = None  # a group-less consumer assigned to the one partition
        self._next_offset = 0
        self._entries: dict[tuple[str, int], DeadLetter] = {}

    @property
    def _timeout(self) -> float:
        return self.config.request_timeout + 5.0

    # --- the port ---------------------------------------------------------------------

    def put(self, letter: DeadLetter) -> DeadLetter:
        with self._lock:
            self._fold()
            previous = self._entries.get((letter.projection, letter.position))
            stored = letter
            if previous is not None:
                stored = DeadLetter(
                    projection=letter.projection,
                    position=letter.position,
                    partition=letter.partition,
                    reason=letter.reason,
                    error=letter.error,
                    raw=letter.raw or previous.raw,
                    attempts=previous.attempts + letter.attempts,
                    first_failed_at=previous.first_failed_at,
                    last_failed_at=letter.last_failed_at,
                )
            self._send(
                *dead_letter_record(
                    stored.raw,
                    stored.reason,
                    stored.position,
                    self.config.topic,
                    projection=stored.projection,
                    partition=stored.partition,
                    error=stored.error,
                    attempts=stored.attempts,
                    at_ms=_millis(stored.last_failed_at),
                    first_at_ms=_millis(stored.first_failed_at),
                )
            )
            self._fold()
            return self._entries.get((stored.projection, stored.position), stored)

    def get(self, projection: str, position: int) -> DeadLetter | None:
        with self._lock:
            self._fold()
            return self._entries.get((projection, position))

    def entries(self, projection: str | None = None, *, limit: int = 1000) -> list[DeadLetter]:
        with self._lock:
            self._fold()
            keys = sorted(k for k in self._entries if projection is None or k[0] == projection)
            return [self._entries[k] for k in keys[:limit]]

    def counts(self) -> dict[str, int]:
        with self._lock:
            self._fold()
            counts: dict[str, int] = {}
            for name, _ in sorted(self._entries):
                counts[name] = counts.get(name, 0) + 1
            return counts

    def resolve(self, projection: str, position: int) -> bool:
        with self._lock:
            self._fold()
            if (projection, position) not in self._entries:
                return False
            self._send(*resolved_record(projection, position))
            self._fold()
            return True

    def close(self) -> None:
        with self._lock:
            if self._loop is not None:
                self._loop.close(self._shutdown)
                self._loop = None

    # --- the topic --------------------------------------------------------------------

    def _started(self) -> BackgroundLoop:
        if self._loop is None:
            loop = BackgroundLoop(f"kafka-dead-letters:{self.config.dead_letter_topic}")
            try:
                with translate_errors():
                    loop.run(self._start(), self._timeout * 2)
            except BaseException:
                loop.close(self._shutdown)
                raise
            self._loop = loop
        return self._loop

    async def _start(self) -> None:
        timeout_ms = int(self.config.request_timeout * 1000)
        admin = AIOKafkaAdminClient(
            bootstrap_servers=self.config.bootstrap,
            client_id=self._client_id,
            request_timeout_ms=timeout_ms,
        )
        await admin.start()
        try:
            await _ensure_dead_letter_topic(admin, self.config)
        finally:
            await admin.close()
        self._producer = AIOKafkaProducer(
            bootstrap_servers=self.config.bootstrap,
            client_id=self._client_id,
            acks="all",
            enable_idempotence=True,
            request_timeout_ms=timeout_ms,
        )
        await self._producer.start()
        self._reader = new_consumer(
            self.config.bootstrap, self._client_id, self.config.request_timeout
        )
        await self._reader.start()
        tp = TopicPartition(self.config.dead_letter_topic, _PARTITION)
        self._reader.assign([tp])
        # Read only when asked (``_fetch_new``): an assigned consumer otherwise fetches in
        # the background forever, twenty requests a second for a topic that is mostly
        # empty.
        self._reader.pause(tp)

    async def _shutdown(self) -> None:
        for client in (self._reader, self._producer):
            if client is not None:
                await client.stop()
        self._reader = self._producer = None

    def _send(self, key: bytes, value: bytes, headers: Headers) -> None:
        async def send() -> None:
            await self._producer.send_and_wait(
                self.config.dead_letter_topic,
                value=value,
                key=key,
                headers=headers,
                partition=_PARTITION,
            )

        loop = self._started()
        with translate_errors():
            loop.run(send(), self._timeout * 2)

    def _fold(self) -> None:
        """Read what was appended since the last fold and apply it to the entries."""
        loop = self._started()
        with translate_errors():
            records = loop.run(self._fetch_new(), self._timeout * 2)
        for offset, headers in records:
            self._apply(headers)
            self._next_offset = offset + 1

    async def _fetch_new(self) -> list[tuple[int, dict[str, Any]]]:
        """(offset, {"headers", "value"}) of every record from the next offset to the end."""
        tp = TopicPartition(self.config.dead_letter_topic, _PARTITION)
        end = int((await self._reader.end_offsets([tp]))[tp])
        start = self._next_offset
        if start >= end:
            return []
        self._reader.seek(tp, start)
        self._reader.resume(tp)
        out: list[tuple[int, dict[str, Any]]] = []
        deadline = asyncio.get_running_loop().time() + self.config.request_timeout
        try:
            while await self._reader.position(tp) < end:
                batch = await self._reader.getmany(tp, timeout_ms=200, max_records=1000)
                for r in batch.get(tp, ()):
                    value = {"headers": header_dict(list(r.headers)), "value": r.value or b""}
                    out.append((r.offset, value))
                if asyncio.get_running_loop().time() > deadline:
                    raise ke.KafkaTimeoutError(f"reading {self.config.dead_letter_topic}")
        finally:
            self._reader.pause(tp)
        return out

    def _apply(self, record: dict[str, Any]) -> None:
        headers: dict[str, str] = record["headers"]
        if PROJECTION not in headers or POSITION not in headers:
            return  # a record of an older writer that named no projection: not listable
        key = (headers[PROJECTION], int(headers[POSITION]))
        if headers.get(RESOLVED) == "1":
            self._entries.pop(key, None)
            return
        at_ms = int(headers.get(AT_MS, "0"))
        self._entries[key] = DeadLetter(
            projection=key[0],
            position=key[1],
            partition=int(headers.get(SOURCE_PARTITION, "0")),
            reason=headers.get(REASON, ""),
            error=headers.get(ERROR, ""),
            raw=record["value"],
            attempts=int(headers.get(ATTEMPTS, "1")),
            first_failed_at=_at(int(headers.get(FIRST_AT_MS, str(at_ms)))),
            last_failed_at=_at(at_ms),
        )


async def _ensure_dead_letter_topic(admin: AIOKafkaAdminClient, config: KafkaLogConfig) -> None:
    """Create the dead-letter topic as the log would (``topics.ensure_topics``), without
    checking the event topic: listing dead letters must not depend on its layout."""
    topic = config.dead_letter_topic
    if topic not in set(await admin.list_topics()):
        new = NewTopic(topic, 1, config.replication_factor, topic_configs=topic_configs(config))
        await _create(admin, [new], config)
    await _wait_ready(admin, topic, time.monotonic() + config.request_timeout)


def _millis(at: datetime) -> int:
    return (at - _EPOCH) // timedelta(milliseconds=1)


def _at(millis: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=millis)


__all__ = ["KafkaDeadLetters"]
