"""Creating and checking the event topic and its dead-letter topic at start-up.

The topics are created explicitly, never by a broker's ``auto.create.topics.enable``: an
auto-created topic gets the broker's default partition count and retention (7 days by
default), and an event store that silently deletes week-old events is not one. So:

* ``retention.ms=-1`` and ``retention.bytes=-1``: keep every event forever (the log is the
  system of record; forgetting is done by crypto-shredding, not by deleting records);
* ``cleanup.policy=delete``: never compact (compaction would keep one event per key, and
  the key is a whole scope);
* ``min.insync.replicas`` from ``KafkaLogConfig.min_insync``, so ``acks=all`` means
  "on enough replicas to survive a broker loss".

The partition count of an existing topic must equal the configured one: the producer maps
a key to ``murmur2(key) % partitions`` and every checkpoint is per partition, so a log that
was silently re-partitioned would scatter a scope's events over two partitions and break
per-memory ordering. Start-up refuses the mismatch with ``TopicMismatch``.

Existence is checked with a full topic listing, never with a metadata request naming the
topic, because such a request makes a broker with auto-creation enabled create it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from aiokafka import errors as ke
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from ai_memory.core.errors import PermanentError

from .config import KafkaLogConfig

log = logging.getLogger(__name__)

_TOPIC_ALREADY_EXISTS = 36
_READY_POLL_SECONDS = 0.1


class TopicMismatch(PermanentError):
    """An existing topic disagrees with the configuration in a way that loses data."""

    code = "event_log_topic_mismatch"


def topic_configs(config: KafkaLogConfig) -> dict[str, str]:
    """The topic-level settings both topics are created with."""
    return {
        "retention.ms": "-1",
        "retention.bytes": "-1",
        "cleanup.policy": "delete",
        "min.insync.replicas": str(config.min_insync),
    }


async def ensure_topics(admin: AIOKafkaAdminClient, config: KafkaLogConfig) -> list[int]:
    """Create what is missing, wait until every partition has a leader, check the event
    topic's partition count; return its partition numbers."""
    existing = set(await admin.list_topics())
    wanted = {
        config.topic: config.partitions,
        # Dead letters are rare and read by people in order: one partition is enough.
        config.dead_letter_topic: 1,
    }
    missing = [
        NewTopic(name, count, config.replication_factor, topic_configs=topic_configs(config))
        for name, count in wanted.items()
        if name not in existing
    ]
    if config.heads_topic not in existing:
        # One head per memory is all a writer restores, so this one is compacted; its
        # partitions mirror the event topic's (partition p's heads live in partition p).
        heads_configs = {**topic_configs(config), "cleanup.policy": "compact"}
        missing.append(
            NewTopic(
                config.heads_topic,
                config.partitions,
                config.replication_factor,
                topic_configs=heads_configs,
            )
        )
    if missing:
        await _create(admin, missing, config)
    deadline = time.monotonic() + config.request_timeout
    partitions = await _wait_ready(admin, config.topic, deadline)
    if len(partitions) != config.partitions:
        raise TopicMismatch(
            f"topic {config.topic!r} has {len(partitions)} partitions but the configuration "
            f"says {config.partitions}; the partition of a key depends on the count, so a log "
            "cannot be re-partitioned in place. Use the existing count (partitions="
            f"{len(partitions)}) or replay into a new topic."
        )
    await _wait_ready(admin, config.dead_letter_topic, deadline)
    heads = await _wait_ready(admin, config.heads_topic, deadline)
    if len(heads) != len(partitions):
        raise TopicMismatch(
            f"topic {config.heads_topic!r} has {len(heads)} partitions, the event topic "
            f"{len(partitions)}; delete it (it is rebuilt from the event topic) and restart"
        )
    if config.topic in existing:
        await _warn_on_retention(admin, config.topic)
    return partitions


async def _create(
    admin: AIOKafkaAdminClient, topics: list[NewTopic], config: KafkaLogConfig
) -> None:
    response = await admin.create_topics(topics, timeout_ms=int(config.request_timeout * 1000))
    for item in response.to_object()["topic_errors"]:
        code = int(item["error_code"])
        if code in (0, _TOPIC_ALREADY_EXISTS):  # created, or another process won the race
            if code == 0:
                log.info("created Kafka topic %s", item["topic"])
            continue
        error_class: Any = ke.for_code(code)
        raise error_class(f"cannot create topic {item['topic']!r}: {item['error_message']}")


async def _wait_ready(admin: AIOKafkaAdminClient, topic: str, deadline: float) -> list[int]:
    """Partition numbers of ``topic`` once each has a leader (right after creation the
    metadata may still be propagating)."""
    while True:
        (meta,) = await admin.describe_topics([topic])
        partitions = meta["partitions"]
        if (
            int(meta["error_code"]) == 0
            and partitions
            and all(int(p["error_code"]) == 0 and int(p["leader"]) >= 0 for p in partitions)
        ):
            return sorted(int(p["partition"]) for p in partitions)
        if time.monotonic() >= deadline:
            raise ke.KafkaTimeoutError(f"topic {topic!r} has no leader for every partition")
        await asyncio.sleep(_READY_POLL_SECONDS)


async def describe_topic_configs(admin: AIOKafkaAdminClient, topic: str) -> dict[str, str]:
    """Every configuration value of ``topic``, as the broker reports it."""
    (response,) = await admin.describe_configs(
        [ConfigResource(ConfigResourceType.TOPIC, topic, None)]
    )
    (resource,) = response.to_object()["resources"]
    return {
        str(entry["config_names"]): str(entry["config_value"])
        for entry in resource["config_entries"]
    }


async def _warn_on_retention(admin: AIOKafkaAdminClient, topic: str) -> None:
    """An existing topic with finite retention is allowed (tiered storage, an operator's
    choice) but is worth a loud warning: replays from offset 0 would miss events."""
    configs = await describe_topic_configs(admin, topic)
    for key in ("retention.ms", "retention.bytes"):
        if configs.get(key, "-1") != "-1":
            log.warning(
                "Kafka topic %s has %s=%s: events older than that are deleted and a replay "
                "from position 0 will not see them",
                topic,
                key,
                configs[key],
            )
