"""The distributed ``EventLog``: Kafka topics of Avro events (see ``event_log``)."""

from .config import KafkaLogConfig, default_min_insync, parse_kafka_url
from .event_log import KafkaEventLog
from .reader import UndecodableRecord
from .topics import TopicMismatch

__all__ = [
    "KafkaEventLog",
    "KafkaLogConfig",
    "TopicMismatch",
    "UndecodableRecord",
    "default_min_insync",
    "parse_kafka_url",
]
