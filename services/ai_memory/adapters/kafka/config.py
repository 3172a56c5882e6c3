"""The settings of a Kafka event log, and the URL form the composition root passes.

    kafka://host:9092[,host2:9092]/<topic>?partitions=6&replication_factor=1

Query parameters (all optional): ``partitions`` (default 6), ``replication_factor``
(default 1), ``min_insync_replicas`` (default: see ``default_min_insync``),
``request_timeout`` in seconds (default 30). The topic defaults to ``aimem.events``;
the dead-letter topic is always ``<topic>.dlq``. Unknown parameters are refused, so a typo
never silently falls back to a default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from ai_memory.core.errors import InvalidInput
from ai_memory.core.positions import MAX_PARTITIONS

DEFAULT_TOPIC = "aimem.events"
_SETTING = "AIMEM_EVENT_LOG"
# Kafka's own rule for topic names (and at most 249 characters).
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9._-]{1,245}$")


def default_min_insync(replication_factor: int) -> int:
    """``min.insync.replicas`` for a replication factor: one replica may be down.

    With ``acks=all`` an append then survives the loss of any single broker and keeps
    working while one is down for maintenance: 1→1, 2→1, 3→2, 5→2 (beyond 2 the extra
    latency buys little)."""
    return max(1, min(2, replication_factor - 1))


@dataclass(frozen=True)
class KafkaLogConfig:
    bootstrap: str
    topic: str = DEFAULT_TOPIC
    partitions: int = 6
    replication_factor: int = 1
    min_insync_replicas: int | None = None
    request_timeout: float = 30.0

    def __post_init__(self) -> None:
        if not self.bootstrap:
            raise InvalidInput(_SETTING, "bootstrap", "a Kafka URL needs at least one host:port")
        if not _TOPIC_NAME.match(self.topic) or self.topic in {".", ".."}:
            raise InvalidInput(_SETTING, "topic", f"invalid Kafka topic name {self.topic!r}")
        if not 1 <= self.partitions <= MAX_PARTITIONS:
            raise InvalidInput(_SETTING, "partitions", f"partitions must be in 1..{MAX_PARTITIONS}")
        if self.replication_factor < 1:
            raise InvalidInput(_SETTING, "replication_factor", "replication_factor must be ≥ 1")
        if self.min_insync_replicas is not None and not (
            1 <= self.min_insync_replicas <= self.replication_factor
        ):
            raise InvalidInput(
                _SETTING,
                "min_insync_replicas",
                "min_insync_replicas must be between 1 and the replication factor",
            )
        if self.request_timeout <= 0:
            raise InvalidInput(_SETTING, "request_timeout", "request_timeout must be > 0")

    @property
    def dead_letter_topic(self) -> str:
        return f"{self.topic}.dlq"

    @property
    def heads_topic(self) -> str:
        """The compacted changelog of the partition writers' heads (``partition_heads``)."""
        return f"{self.topic}.heads"

    @property
    def min_insync(self) -> int:
        if self.min_insync_replicas is not None:
            return self.min_insync_replicas
        return default_min_insync(self.replication_factor)


def parse_kafka_url(url: str) -> KafkaLogConfig:
    """``kafka://h1:9092,h2:9092/topic?partitions=6&…`` → ``KafkaLogConfig``."""
    parts = urlsplit(url)
    if parts.scheme != "kafka":
        raise InvalidInput(_SETTING, "scheme", f"not a kafka:// URL: {url!r}")
    hosts = [h.strip() for h in parts.netloc.split(",") if h.strip()]
    for host in hosts:
        if not re.match(r"^[^:/\s]+:[0-9]{1,5}$", host) and not re.match(
            r"^\[[0-9A-Fa-f:.]+\]:[0-9]{1,5}$", host
        ):
            raise InvalidInput(_SETTING, "bootstrap", f"expected host:port, got {host!r}")
    topic = unquote(parts.path.strip("/")) or DEFAULT_TOPIC
    params: dict[str, str] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True, strict_parsing=False):
        params[key] = value
    known = {"partitions", "replication_factor", "min_insync_replicas", "request_timeout"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise InvalidInput(
            _SETTING, "query", f"unknown Kafka URL parameter(s) {unknown}; known: {sorted(known)}"
        )
    try:
        return KafkaLogConfig(
            bootstrap=",".join(hosts),
            topic=topic,
            partitions=int(params.get("partitions", "6")),
            replication_factor=int(params.get("replication_factor", "1")),
            min_insync_replicas=(
                int(params["min_insync_replicas"]) if "min_insync_replicas" in params else None
            ),
            request_timeout=float(params.get("request_timeout", "30")),
        )
    except ValueError as e:
        raise InvalidInput(_SETTING, "query", f"bad Kafka URL parameter: {e}") from e
