"""API keys: their format, what is stored of them, and how a presented key is checked.

A key is ``aimem_<key_id>_<secret>``: ``key_id`` (16 hex digits) names the key in
listings, logs and revocations; ``secret`` is 32 bytes from ``secrets`` (256 bits,
base64url), shown once when the key is issued and never stored.

**Why SHA-256 and not argon2/bcrypt.** Slow, salted password hashes exist because
passwords are low-entropy: an attacker holding the hashes can try the few billion likely
passwords, and a hash costing milliseconds makes that expensive. A key's secret is 256
random bits: nobody can enumerate 2^256 candidates, however fast the hash, so a slow hash
buys nothing — and it would cost milliseconds of CPU on *every request*, a cheap way to
exhaust a gateway. We store ``SHA-256(domain || key_id || secret)`` (the domain tag and
the key id separate this use and bind the hash to its key; no salt is needed because no
two secrets collide) and compare digests with ``hmac.compare_digest`` in constant time.

**No oracle.** ``check_key`` answers ``None`` for a malformed, unknown, wrong-secret,
revoked or expired key alike: a caller learns only "not a valid key". The digest is
compared even when the key turned out revoked or expired, so time says nothing either.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from ai_memory.core.errors import InvalidInput

from .policy import ROLES, AccessPrincipal, Role
from .scopes import validate_patterns

KEY_PREFIX = "aimem"
SECRET_BYTES = 32  # 256 bits
KEY_ID_BYTES = 8
_DOMAIN = b"ai-memory api key v1\x00"
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")
_SECRET = re.compile(r"^[A-Za-z0-9_-]{43}$")  # 32 bytes, base64url without padding
_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_NAME_MAX = 100

Random = Callable[[int], bytes]


@dataclass(frozen=True)
class KeyInfo:
    """What anyone may see of a key: never its secret nor its hash."""

    key_id: str
    tenant: str
    name: str
    role: Role
    scopes: tuple[str, ...]
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None

    def active(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


@dataclass(frozen=True)
class ApiKey:
    """A key as a store keeps it: its public part and the digest of its secret."""

    info: KeyInfo
    secret_hash: str  # hex SHA-256, see the module docstring

    @property
    def key_id(self) -> str:
        return self.info.key_id

    def __repr__(self) -> str:  # keep digests out of logs and tracebacks
        return f"ApiKey({self.info!r}, secret_hash=<hidden>)"


@dataclass(frozen=True)
class IssuedKey:
    """A newly issued key: ``token`` is the bearer value, shown once."""

    key: ApiKey
    token: str

    def __repr__(self) -> str:
        return f"IssuedKey({self.key!r}, token=<hidden>)"


@dataclass(frozen=True)
class ParsedKey:
    key_id: str
    secret: str


def hash_secret(key_id: str, secret: str) -> str:
    return hashlib.sha256(_DOMAIN + f"{key_id}\x00{secret}".encode("ascii")).hexdigest()


#: The tenant of an operator key that operates the whole deployment (metrics, any
#: tenant's audit trail and usage). Said explicitly at creation, never a default: an
#: operator key of a named tenant operates that tenant only.
DEPLOYMENT_WIDE = "*"


def validate_tenant(value: str) -> str:
    if not _TENANT.match(value):
        raise InvalidInput(
            "tenant",
            "tenant_format",
            "a tenant is 1-63 lowercase letters, digits, '-' or '_', starting with a letter "
            "or digit",
        )
    return value


def issue_key(
    *,
    tenant: str,
    role: str,
    scopes: Iterable[str],
    name: str,
    now: datetime,
    expires_at: datetime | None = None,
    random: Random = secrets.token_bytes,
) -> IssuedKey:
    """A new key; ``random`` is injected so tests are deterministic. Only an operator
    key may be deployment-wide (tenant ``*``); any other names one tenant."""
    if role not in ROLES:
        raise InvalidInput("role", "enum", f"role must be one of {', '.join(ROLES)}")
    if tenant == DEPLOYMENT_WIDE:
        if role != "operator":
            raise InvalidInput(
                "tenant",
                "deployment_wide",
                "only an operator key may be deployment-wide (tenant '*'); name a tenant",
            )
    else:
        validate_tenant(tenant)
    name = name.strip()
    if not name or len(name) > _NAME_MAX or not name.isprintable():
        raise InvalidInput("name", "name_format", f"a key name is 1-{_NAME_MAX} printable chars")
    if expires_at is not None and expires_at <= now:
        raise InvalidInput("expires_at", "future", "a key must expire in the future")
    patterns = validate_patterns(scopes)
    key_id = random(KEY_ID_BYTES).hex()
    secret = base64.urlsafe_b64encode(random(SECRET_BYTES)).rstrip(b"=").decode("ascii")
    info = KeyInfo(
        key_id=key_id,
        tenant=tenant,
        name=name,
        role=role,  # narrowed to Role by the check against ROLES above
        scopes=patterns,
        created_at=now,
        expires_at=expires_at,
    )
    key = ApiKey(info, hash_secret(key_id, secret))
    return IssuedKey(key, f"{KEY_PREFIX}_{key_id}_{secret}")


def generate_token(random: Random = secrets.token_bytes) -> str:
    """A well-formed key that no store holds yet: for an operator's secret manager, to be
    adopted by a deployment (``adopt_key``)."""
    key_id = random(KEY_ID_BYTES).hex()
    secret = base64.urlsafe_b64encode(random(SECRET_BYTES)).rstrip(b"=").decode("ascii")
    return f"{KEY_PREFIX}_{key_id}_{secret}"


def adopt_key(*, token: str, tenant: str, role: str, name: str, now: datetime) -> ApiKey:
    """The stored form of a key generated elsewhere (a Kubernetes or compose secret): only
    its digest is kept, exactly as for an issued key. The token must have the full shape
    of an issued key, so an adopted key is as strong as an issued one."""
    parsed = parse_key(token.strip())
    if parsed is None:
        raise InvalidInput(
            "admin_key",
            "key_format",
            "not an ai-memory key: use the output of `ai-memory keys generate` "
            "(aimem_<16 hex digits>_<43 base64url characters>)",
        )
    template = issue_key(tenant=tenant, role=role, scopes=("*",), name=name, now=now)
    info = replace(template.key.info, key_id=parsed.key_id)
    return ApiKey(info, hash_secret(parsed.key_id, parsed.secret))


def parse_key(token: str) -> ParsedKey | None:
    """The parts of a bearer value, or None when it is not shaped like a key."""
    prefix, _, rest = token.partition("_")
    key_id, _, secret = rest.partition("_")
    if prefix != KEY_PREFIX or not _KEY_ID.match(key_id) or not _SECRET.match(secret):
        return None
    return ParsedKey(key_id, secret)


def check_key(stored: ApiKey | None, presented: ParsedKey, now: datetime) -> AccessPrincipal | None:
    """The principal of a presented key, or None — the same None for every refusal."""
    digest = hash_secret(presented.key_id, presented.secret)
    expected = stored.secret_hash if stored is not None else "0" * len(digest)
    same = hmac.compare_digest(digest.encode("ascii"), expected.encode("ascii"))
    if stored is None or not same or stored.key_id != presented.key_id:
        return None
    info = stored.info
    if not info.active(now):
        return None
    return AccessPrincipal(info.tenant, info.key_id, info.role, info.scopes)
