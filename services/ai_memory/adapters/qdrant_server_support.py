"""Plumbing of the Qdrant server adapter: URLs, names, filters and error translation.

Kept apart from ``qdrant_server_index`` so the adapter reads as the projection logic
and so the URL and error rules can be unit-tested without a collection.

URLs (``AIMEM_INDEX``)::

    qdrant+http://host:6333           a Qdrant server (REST); qdrant+https:// with TLS
    qdrant+https://host?api_key=KEY   the key may also come from AIMEM_QDRANT_API_KEY
    qdrant+local:///var/lib/aimem/q   qdrant-client's local mode on disk (tests, dev)
    qdrant+memory://                  local mode in memory (tests)

Local mode is qdrant-client's pure-Python reimplementation of the server API: exact
(brute-force) search, no payload indexes, one process per storage folder. It is a
faithful stand-in for tests, not a production engine.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from qdrant_client import QdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from ai_memory.core.errors import AiMemoryError, InvalidInput, Unavailable

from . import index_payload as ip

API_KEY_ENV = "AIMEM_QDRANT_API_KEY"
# Checkpoint points live in their own id space, so no tenant/memory id can collide.
CHECKPOINT_NAMESPACE = uuid.UUID("0b7d8f64-2a61-4f0e-8a3c-5e41c2b9d7a0")
F_KIND = "kind"
F_PARTITION = "partition"
KIND_CHECKPOINT = "checkpoint"


@dataclass(frozen=True)
class Target:
    """Where the index lives: exactly one of ``url`` (server), ``path`` or ``memory``."""

    url: str | None = None
    path: str | None = None
    memory: bool = False
    api_key: str | None = None
    timeout: int | None = None

    @property
    def local(self) -> bool:
        return self.url is None


def parse_url(url: str, default_api_key: str | None = None) -> Target:
    """``qdrant+…`` URL → ``Target``. An ``api_key`` URL parameter wins over
    ``default_api_key`` (``AIMEM_QDRANT_API_KEY``); ``timeout`` (seconds) is passed to the
    client."""
    scheme, sep, rest = url.partition("+")
    if scheme != "qdrant" or not sep:
        raise InvalidInput("AIMEM_INDEX", "scheme", f"not a qdrant+… index URL: {url!r}")
    parts = urlsplit(rest)
    params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    timeout = int(params["timeout"]) if "timeout" in params else None
    if parts.scheme in ("http", "https"):
        if not parts.hostname:
            raise InvalidInput("AIMEM_INDEX", "url", f"no host in {url!r}")
        port = f":{parts.port}" if parts.port else ""
        base = f"{parts.scheme}://{parts.hostname}{port}{parts.path.rstrip('/')}"
        api_key = params.get("api_key") or default_api_key or None
        return Target(url=base, api_key=api_key, timeout=timeout)
    if parts.scheme == "local":
        if parts.netloc or not parts.path or parts.path == "/":
            raise InvalidInput("AIMEM_INDEX", "url", f"expected qdrant+local:///<path>: {url!r}")
        return Target(path=parts.path)
    if parts.scheme == "memory":
        return Target(memory=True)
    raise InvalidInput("AIMEM_INDEX", "scheme", f"unsupported qdrant transport in {url!r}")


def connect(target: Target) -> QdrantClient:
    with client_errors("connect"):
        if target.memory:
            return QdrantClient(location=":memory:")
        if target.path is not None:
            return QdrantClient(path=target.path)
        # No background version probe: it runs in a thread whose failure (server down)
        # surfaces as an unhandled-thread warning instead of an error we can translate.
        return QdrantClient(
            url=target.url,
            api_key=target.api_key,
            timeout=target.timeout,
            check_compatibility=False,
        )


# The IDF corpus filter (``SearchParams.idf``, per-tenant keyword IDF) arrived in 1.19. An
# older server would not apply it: keyword scores would silently turn collection-wide.
MIN_SERVER_VERSION = (1, 19)


def check_server_version(version: str) -> None:
    """Refuse a server too old for per-tenant keyword IDF, naming what to upgrade."""
    try:
        found = tuple(int(part) for part in version.split("-")[0].split(".")[:2])
    except ValueError:
        return  # a development build: trust it
    if found < MIN_SERVER_VERSION:
        wanted = ".".join(map(str, MIN_SERVER_VERSION))
        raise InvalidInput(
            "AIMEM_INDEX",
            "server_version",
            f"the Qdrant server is {version}; per-tenant keyword IDF needs {wanted} or later "
            "(upgrade one minor version at a time, or start an empty one and replay the index)",
            code="index_server_too_old",
        )


def is_local(client: QdrantClient) -> bool:
    """Whether ``client`` runs local mode (qdrant-client keeps the backend in ``_client``)."""
    from qdrant_client.local.qdrant_local import QdrantLocal

    return isinstance(getattr(client, "_client", None), QdrantLocal)


# --- names ------------------------------------------------------------------------------
def alias_name(model_name: str) -> str:
    """``aimem_<model>``: one logical collection per embedding model.

    Collection names allow a limited alphabet, so anything outside ``[a-z0-9.-]`` is
    replaced and, when that changed the name, a hash of the exact model name is appended
    (two models must never share a collection). ``_`` is replaced too: it separates the
    generation, so ``aimem_a_2`` can only ever be generation 2 of model ``a``."""
    safe = re.sub(r"[^a-z0-9.-]", "-", model_name.lower())[:120]
    if safe != model_name:
        safe += "-" + hashlib.sha256(model_name.encode()).hexdigest()[:8]
    return f"aimem_{safe}"


def physical_name(alias: str, generation: int) -> str:
    return f"{alias}_{generation}"


def generation_of(alias: str, collection: str) -> int | None:
    prefix = alias + "_"
    tail = collection[len(prefix) :] if collection.startswith(prefix) else ""
    return int(tail) if tail.isdigit() else None


# --- points and filters -----------------------------------------------------------------
def checkpoint_id(partition: int) -> str:
    return str(uuid.uuid5(CHECKPOINT_NAMESPACE, str(partition)))


def checkpoint_point(partition: int, position: int) -> qm.PointStruct:
    """Payload only: no tenant and no state, so no search or count can ever match it,
    and no sparse vector, so it is not part of the IDF corpus."""
    payload = {F_KIND: KIND_CHECKPOINT, F_PARTITION: partition, ip.F_POSITION: position}
    return qm.PointStruct(id=checkpoint_id(partition), vector={}, payload=payload)


def older_than(position: int) -> qm.FieldCondition:
    # Positions are compared as floats by the engine: exact below 2**53, i.e. for
    # offsets below 2**43 per partition with the packed positions of a partitioned log.
    return qm.FieldCondition(key=ip.F_POSITION, range=qm.Range(lt=position))


def newer_only(writes: Sequence[tuple[str, int]]) -> qm.Filter:
    """Upsert guard: an existing point is replaced only if it holds an older position.
    (New points are inserted regardless: that is what ``update_filter`` means.)"""
    return qm.Filter(
        should=[
            qm.Filter(must=[qm.HasIdCondition(has_id=[pid]), older_than(position)])
            for pid, position in writes
        ]
    )


def live_and_older(point_id: str, position: int) -> qm.Filter:
    """State-change selector: the point, only while live (tombstones have no state)
    and holding an older position."""
    return qm.Filter(
        must=[
            qm.HasIdCondition(has_id=[point_id]),
            qm.FieldCondition(key=ip.F_STATE, match=qm.MatchAny(any=list(ip.ALL_STATES))),
            older_than(position),
        ]
    )


def to_filter(terms: ip.FilterTerms, *also: Any) -> qm.Filter:
    """``terms`` as the server's filter; ``also``: more conditions that must hold."""
    must: list[Any] = [
        qm.FieldCondition(key=ip.F_TENANT, match=qm.MatchValue(value=terms.tenant)),
        *also,
    ]
    must += [
        qm.FieldCondition(key=name, match=qm.MatchAny(any=list(values)))
        for name, values in terms.any_of
    ]
    if terms.created_in:
        ranges: list[Any] = [
            qm.FieldCondition(key=ip.F_CREATED_AT, range=qm.Range(gte=start, lt=end))
            for start, end in terms.created_in
        ]
        must.append(ranges[0] if len(ranges) == 1 else qm.Filter(should=ranges))
    must_not: list[Any] = []
    if terms.expired_at_or_before != float("inf"):
        rng = qm.Range(lte=terms.expired_at_or_before)
        must_not.append(qm.FieldCondition(key=ip.F_EXPIRES_AT, range=rng))
    return qm.Filter(must=must, must_not=must_not or None)


# --- errors -----------------------------------------------------------------------------
_RETRYABLE_STATUS = frozenset({408, 425, 429})


@contextlib.contextmanager
def client_errors(what: str) -> Iterator[None]:
    """Translate client failures into the core error tree.

    Unreachable server, timeouts, 5xx, 408/425/429 → ``Unavailable`` (retry later);
    other 4xx → ``InvalidInput`` (the request itself is wrong). Local mode reports what
    the server would answer with 4xx as ``ValueError``. Anything else is a bug and
    propagates unchanged."""
    try:
        yield
    except AiMemoryError:
        raise
    except UnexpectedResponse as e:
        status = e.status_code
        detail = f"vector index {what} failed: HTTP {status} {e.reason_phrase}"
        if status is None or status >= 500 or status in _RETRYABLE_STATUS:
            raise Unavailable(detail) from e
        raise InvalidInput("index", "rejected", f"{detail}: {e.content[:300]!r}") from e
    except (ResponseHandlingException, httpx.TransportError, OSError) as e:
        raise Unavailable(f"vector index {what} failed: {e}") from e
    except RuntimeError as e:
        if "closed" not in str(e):
            raise
        raise Unavailable(f"vector index {what} failed: {e}") from e
    except ValueError as e:
        raise InvalidInput("index", "rejected", f"vector index rejected {what}: {e}") from e
