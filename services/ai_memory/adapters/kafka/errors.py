"""Kafka driver errors → the ``ai_memory.core.errors`` tree, at the adapter boundary.

    aiokafka / asyncio                                    → ai_memory
    KafkaConnectionError, NoBrokersAvailable, NodeNotReady → Unavailable(retry_after=2)
    KafkaTimeoutError, RequestTimedOut, TimeoutError       → Unavailable(retry_after=1)
    NotLeaderForPartition, LeaderNotAvailable,
      NotEnoughReplicas*, UnknownTopicOrPartition, Stale… → Unavailable(retry_after=0.5)
    ProducerClosed, ConsumerStoppedError, CancelledError   → Unavailable (the log is closing)
    any other retriable KafkaError                         → Unavailable(retry_after=1)
    RecordTooLargeError, MessageSizeTooLargeError          → InvalidInput("event", "max_size")
    any other KafkaError (authorization, policy, config)  → PermanentError("event_log_failed")

Anything else is a bug in this code and propagates unchanged. Leadership changes are the
common case during a broker roll, and clients recover within a metadata refresh, hence the
short ``retry_after``; an unreachable cluster takes longer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from aiokafka import errors as ke

from ai_memory.core.errors import AiMemoryError, InvalidInput, PermanentError, Unavailable

_UNREACHABLE = (ke.KafkaConnectionError, ke.NoBrokersAvailable, ke.NodeNotReadyError)
_TIMEOUTS = (ke.KafkaTimeoutError, ke.RequestTimedOutError, TimeoutError)
_LEADERSHIP = (
    ke.NotLeaderForPartitionError,
    ke.LeaderNotAvailableError,
    ke.NotEnoughReplicasError,
    ke.NotEnoughReplicasAfterAppendError,
    ke.UnknownTopicOrPartitionError,
    ke.StaleMetadata,
    ke.NotControllerError,
)
_CLOSED = (ke.ProducerClosed, ke.ConsumerStoppedError, asyncio.CancelledError)
_TOO_LARGE = (ke.RecordTooLargeError, ke.MessageSizeTooLargeError)


def translate(exc: BaseException) -> AiMemoryError | None:
    """The error to raise instead of ``exc``, or None when ``exc`` is not a driver error."""
    if isinstance(exc, AiMemoryError):
        return exc
    name = type(exc).__name__
    if isinstance(exc, _UNREACHABLE):
        return Unavailable(f"Kafka is unreachable ({name}: {exc})", retry_after=2.0)
    if isinstance(exc, _TIMEOUTS):
        return Unavailable(f"Kafka did not answer in time ({name})", retry_after=1.0)
    if isinstance(exc, _LEADERSHIP):
        return Unavailable(f"Kafka partition leadership is moving ({name})", retry_after=0.5)
    if isinstance(exc, _CLOSED):
        return Unavailable(
            f"the Kafka event log is closing ({name})", retry_after=1.0, code="event_log_closed"
        )
    if isinstance(exc, _TOO_LARGE):
        return InvalidInput("event", "max_size", f"the event is too large for Kafka ({name})")
    if isinstance(exc, ke.KafkaError):
        if getattr(exc, "retriable", False):
            return Unavailable(f"Kafka error, retry later ({name}: {exc})", retry_after=1.0)
        return PermanentError(f"Kafka refused the request ({name}: {exc})", code="event_log_failed")
    return None


@contextmanager
def translate_errors() -> Iterator[None]:
    """Re-raise driver errors as ``ai_memory`` errors (``raise … from`` the original)."""
    try:
        yield
    except BaseException as exc:
        mapped = translate(exc)
        if mapped is None or mapped is exc:
            raise
        raise mapped from exc
