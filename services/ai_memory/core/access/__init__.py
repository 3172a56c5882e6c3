"""Access control, pure: API keys (format, hashing, expiry, revocation), scope patterns
and the authorization decision. No I/O; time and randomness are injected.

* ``keys``: ``aimem_<key_id>_<secret>``, what a store keeps of it, and verification;
* ``scopes``: the allow-list patterns a key carries (``*``, ``user:*``, ``team:data``);
* ``policy``: roles, actions and ``authorize(principal, action, scope)``.
"""

from .keys import (
    KEY_PREFIX,
    ApiKey,
    IssuedKey,
    KeyInfo,
    ParsedKey,
    adopt_key,
    check_key,
    generate_token,
    hash_secret,
    issue_key,
    parse_key,
    validate_tenant,
)
from .policy import (
    ACTIONS,
    ROLES,
    AccessPrincipal,
    Action,
    Decision,
    Role,
    authorize,
    role_allows,
    searchable_scopes,
)
from .scopes import matches, validate_patterns

__all__ = [
    "ACTIONS",
    "KEY_PREFIX",
    "ROLES",
    "AccessPrincipal",
    "Action",
    "ApiKey",
    "Decision",
    "IssuedKey",
    "KeyInfo",
    "ParsedKey",
    "Role",
    "adopt_key",
    "authorize",
    "check_key",
    "generate_token",
    "hash_secret",
    "issue_key",
    "matches",
    "parse_key",
    "role_allows",
    "searchable_scopes",
    "validate_patterns",
    "validate_tenant",
]
