"""API keys as a use case: issue (the secret is shown once), list, revoke, authenticate.

``authenticate`` is on every request's path, so what it reads from the key store is
cached per key id for ``cache_ttl`` seconds (at most 5) of the injected clock. The cache
holds what the store said (the key with its digest, or "unknown"), never a decision:
the secret is checked and expiry judged on every call, so an expired key is refused at
once. A revocation reaches a gateway when its cached entry ages out: **every gateway
refuses a revoked key within ``cache_ttl`` seconds** (``AIMEM_KEY_CACHE_SECONDS``, 2 by
default in a server, never more than 5), without any
message between gateways. Revoking through this service drops its own entry at once.

``required`` tells the edges whether keys are in force: no key was ever created → open
development mode (every caller is tenant ``default``, as before keys existed); once one
exists — revoked ones count, so revoking the last key never reopens the server — every
request needs a key. Until then it is re-read at most every ``cache_ttl`` seconds, so a
server closes within that time of the first ``ai-memory keys create``.

**The key store down.** Keys live beside the records (Cassandra in a distributed
deployment), but writes do not otherwise need that store: refusing every request while
it is unreachable would turn a store outage into a write outage. So when the store cannot
be read, what was last read from it is used for up to ``STALE_IF_ERROR`` seconds (the
``stale-if-error`` of HTTP caches): a key that worked a moment ago keeps working, an
unknown one stays unknown. The price, stated: a revocation made just before the outage
may take up to that long to reach a gateway that cannot read the store. After it, the
request fails with 503 (``Unavailable``), never with an open door.

**One read per miss.** Requests that miss the same entry at the same moment (it aged out
on a busy gateway) share one store read (``core.single_flight``): one slow read, not one
per request, when a replica is slow. A shared answer is cached as of the moment its read
began, not the moment a late joiner asked, so the bounds above hold as they are.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta

from ai_memory.core.access import (
    AccessPrincipal,
    ApiKey,
    IssuedKey,
    KeyInfo,
    adopt_key,
    check_key,
    issue_key,
    parse_key,
    validate_tenant,
)
from ai_memory.core.access.keys import DEPLOYMENT_WIDE, Random
from ai_memory.core.errors import (
    InvalidInput,
    NotFound,
    RetryableError,
    Unauthenticated,
)
from ai_memory.core.ports import Clock, KeyStore
from ai_memory.core.single_flight import SingleFlight

MAX_CACHE_TTL = 5.0
STALE_IF_ERROR = timedelta(seconds=300)
# What "the store cannot be read" looks like through the port.
_STORE_DOWN = (RetryableError, OSError)
MAX_CACHED = 10_000  # ids cached at once; a flood of random ids only evicts, never grows


class KeyService:
    def __init__(
        self,
        store: KeyStore,
        clock: Clock,
        *,
        cache_ttl: float = MAX_CACHE_TTL,
        random: Random = secrets.token_bytes,
    ) -> None:
        if not 0 <= cache_ttl <= MAX_CACHE_TTL:
            raise InvalidInput("cache_ttl", "range", f"the key cache TTL is 0-{MAX_CACHE_TTL} s")
        self._store = store
        self._clock = clock
        self._ttl = timedelta(seconds=cache_ttl)
        self._random = random
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[ApiKey | None, datetime]] = {}
        self._required: tuple[bool, datetime] | None = None
        # Requests missing the same entry at once share one store read (see the module).
        self._key_reads: SingleFlight[str, tuple[ApiKey | None, datetime]] = SingleFlight()
        self._any_key_reads: SingleFlight[None, tuple[bool, datetime]] = SingleFlight()

    # --- administration ------------------------------------------------------------
    def create(
        self,
        *,
        tenant: str,
        role: str,
        scopes: Iterable[str],
        name: str,
        expires_in: timedelta | None = None,
    ) -> IssuedKey:
        """Issue and store a key. The returned ``token`` is the only copy of the secret."""
        now = self._clock.now()
        issued = issue_key(
            tenant=tenant,
            role=role,
            scopes=scopes,
            name=name,
            now=now,
            expires_at=None if expires_in is None else now + expires_in,
            random=self._random,
        )
        self._store.create(issued.key)
        with self._lock:
            self._cache.pop(issued.key.key_id, None)
            self._required = None
        return issued

    def adopt(self, token: str, *, tenant: str, role: str = "admin", name: str) -> KeyInfo:
        """Make a key generated elsewhere (a deployment's secret) valid here; idempotent,
        so every gateway may adopt the same key at start. A key id already stored with a
        different secret is refused, and a revoked key stays revoked: restarting with an
        old secret never brings a revoked key back."""
        key = adopt_key(token=token, tenant=tenant, role=role, name=name, now=self._clock.now())
        stored = self._store.get(key.key_id)
        if stored is not None:
            if stored.secret_hash != key.secret_hash or stored.info.tenant != tenant:
                raise InvalidInput(
                    "admin_key",
                    "key_conflict",
                    f"key {key.key_id} is stored with another secret or tenant",
                )
            return stored.info
        self._store.create(key)
        with self._lock:
            self._cache.pop(key.key_id, None)
            self._required = None
        return key.info

    def list(self, tenant: str) -> list[KeyInfo]:
        """The keys of ``tenant`` (``*``: the deployment-wide operator keys)."""
        if tenant != DEPLOYMENT_WIDE:
            validate_tenant(tenant)
        return self._store.list_keys(tenant)

    def revoke(self, key_id: str) -> KeyInfo:
        """Revoke for good (again: a no-op keeping the first time); ``NotFound`` if unknown."""
        info = self._store.revoke(key_id, self._clock.now())
        with self._lock:
            self._cache.pop(key_id, None)
        if info is None:
            raise NotFound(f"no key {key_id[:40]!r}", code="key_not_found")
        return info

    # --- the door ------------------------------------------------------------------
    def required_if_known(self) -> bool | None:
        """``required`` when it needs no store read (None: it does). The door calls this
        on the event loop first, so most requests skip a worker-thread hop."""
        now = self._clock.now()
        with self._lock:
            known = self._required
            if known is not None and (known[0] or now - known[1] < self._ttl):
                return known[0]
        return None

    def authenticate_if_cached(self, bearer: str | None) -> AccessPrincipal | None:
        """``authenticate`` when the key's store entry is cached and fresh (None: the
        store must be read — call ``authenticate`` off the loop). Refusals are raised as
        by ``authenticate``; the secret check is one SHA-256, fine on the loop."""
        if not bearer or not bearer.strip():
            return self.authenticate(bearer)  # raises: nothing to look up
        parsed = parse_key(bearer.strip())
        if parsed is None:
            return self.authenticate(bearer)  # raises, without a store read
        now = self._clock.now()
        with self._lock:
            hit = self._cache.get(parsed.key_id)
            fresh = hit is not None and timedelta(0) <= now - hit[1] < self._ttl
        if not fresh or hit is None:
            return None
        principal = check_key(hit[0], parsed, now)
        if principal is None:
            raise Unauthenticated("the API key is not valid (unknown, revoked or expired)")
        return principal

    def known_valid(self, bearer: str | None) -> bool:
        """Whether this exact key was valid when last read, however long ago it was
        cached: a client whose key is known may refresh it even while its address is
        limited for refused keys (``core.access.failed_auth``), so sharing an address
        with an attacker costs it nothing. One SHA-256, no store read."""
        parsed = parse_key(bearer.strip()) if bearer and bearer.strip() else None
        if parsed is None:
            return False
        with self._lock:
            hit = self._cache.get(parsed.key_id)
        return hit is not None and check_key(hit[0], parsed, hit[1]) is not None

    def required(self) -> bool:
        """Whether requests need a key (see the module docstring)."""
        now = self._clock.now()
        with self._lock:
            known = self._required
            if known is not None and (known[0] or now - known[1] < self._ttl):
                return known[0]
        try:
            # Stamped with the time the shared read began, not this caller's: a caller
            # that joined late must not make the answer look younger than it is.
            found, read_at = self._any_key_reads.do(None, lambda: (self._store.has_keys(), now))
        except _STORE_DOWN:
            if known is not None and now - known[1] < STALE_IF_ERROR:
                return known[0]
            raise
        with self._lock:
            self._required = (found, read_at)
        return found

    def authenticate(self, bearer: str | None) -> AccessPrincipal:
        """The principal of a bearer token; ``Unauthenticated`` for every bad one."""
        if not bearer or not bearer.strip():
            raise Unauthenticated(
                "an API key is required: Authorization: Bearer aimem_<id>_<secret>",
                code="api_key_required",
            )
        parsed = parse_key(bearer.strip())
        if parsed is None:
            raise Unauthenticated("the API key is not valid (unknown, revoked or expired)")
        now = self._clock.now()
        principal = check_key(self._stored(parsed.key_id, now), parsed, now)
        if principal is None:
            raise Unauthenticated("the API key is not valid (unknown, revoked or expired)")
        return principal

    def close(self) -> None:
        """Close the store (a service opened on its own, as by ``ai-memory keys``)."""
        self._store.close()

    def _stored(self, key_id: str, now: datetime) -> ApiKey | None:
        with self._lock:
            hit = self._cache.get(key_id)
            if hit is not None and timedelta(0) <= now - hit[1] < self._ttl:
                return hit[0]
        try:
            key, read_at = self._key_reads.do(key_id, lambda: (self._store.get(key_id), now))
        except _STORE_DOWN:
            if hit is not None and timedelta(0) <= now - hit[1] < STALE_IF_ERROR:
                return hit[0]  # see "The key store down" in the module docstring
            raise
        with self._lock:
            if len(self._cache) >= MAX_CACHED:
                self._cache.clear()
            self._cache[key_id] = (key, read_at)  # when the shared read began, as above
        return key
