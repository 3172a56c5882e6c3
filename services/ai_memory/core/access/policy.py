"""Roles, actions and the authorization decision.

A key has one role of one tenant:

============  =====================================================================
``reader``    read, search and export memories of its allowed scopes
``writer``    a reader that also writes, imports and forgets in its allowed scopes
``admin``     a writer in every scope of its tenant (its list is not consulted), who
              also manages the tenant's keys and runs governance
``operator``  the operational actions only (audit trail, usage; with tenant ``*``:
              of any tenant, plus the metrics that count every tenant); no memory
              content at all
============  =====================================================================

``authorize`` is total and pure: the same principal, action and scope always give the
same decision, and a refusal carries a stable ``code`` the edges return as is
(``role_forbidden``: the role never allows the action; ``scope_forbidden``: the action
is allowed but not in this scope; ``scope_required``: a scoped action without a scope).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from .scopes import ANY, allowed

Role = Literal["reader", "writer", "admin", "operator"]
ROLES: tuple[Role, ...] = get_args(Role)

# ``read`` covers get, search and export; ``write`` covers create, upsert, import and
# interactions; ``forget`` is a delete. ``govern`` runs the governor; ``manage_keys`` is
# a tenant's key administration; ``operate`` is replay, metrics and dead letters.
Action = Literal["read", "write", "forget", "govern", "manage_keys", "operate"]
ACTIONS: tuple[Action, ...] = get_args(Action)
SCOPED: frozenset[Action] = frozenset({"read", "write", "forget"})

_GRANTS: dict[Role, frozenset[Action]] = {
    "reader": frozenset({"read"}),
    "writer": frozenset({"read", "write", "forget"}),
    "admin": frozenset({"read", "write", "forget", "govern", "manage_keys"}),
    "operator": frozenset({"operate"}),
}
PUBLIC = "public"


@dataclass(frozen=True)
class AccessPrincipal:
    """An authenticated caller: whose key, of which tenant, allowed what."""

    tenant: str
    key_id: str
    role: Role
    scopes: tuple[str, ...]

    @property
    def every_scope(self) -> bool:
        """Whether the key reaches every scope of its tenant (an admin, or ``*``)."""
        return self.role == "admin" or ANY in self.scopes

    @property
    def actor(self) -> str:
        """What events record as the authenticated actor."""
        return f"key:{self.key_id}"


@dataclass(frozen=True)
class Decision:
    allowed: bool
    code: str = ""  # stable refusal code; "" when allowed
    reason: str = ""

    def __bool__(self) -> bool:
        return self.allowed


ALLOW = Decision(True)


def role_allows(principal: AccessPrincipal, action: Action) -> Decision:
    """Whether the key's role ever allows ``action``, in some scope."""
    if action not in _GRANTS[principal.role]:
        return Decision(
            False, "role_forbidden", f"a {principal.role} key may not {action.replace('_', ' ')}"
        )
    return ALLOW


def authorize(principal: AccessPrincipal, action: Action, scope: str | None = None) -> Decision:
    """May ``principal`` do ``action`` (in ``scope``, for a scoped action)?"""
    role = role_allows(principal, action)
    if not role or action not in SCOPED:
        return role
    if principal.role == "admin":
        return ALLOW  # an admin owns every scope of its tenant
    if scope is None:
        return Decision(False, "scope_required", f"name the scope to {action}")
    if action == "read" and scope == PUBLIC:
        return ALLOW  # public is readable by every key of the tenant
    if allowed(principal.scopes, scope):
        return ALLOW
    # The detail never names the scope: for a memory addressed by id the scope is the
    # stored one, and naming it would tell a key limited elsewhere where that id lives.
    return Decision(False, "scope_forbidden", f"this key may not {action} in that scope")


def searchable_scopes(
    principal: AccessPrincipal, requested: Sequence[str] | None
) -> tuple[Decision, tuple[str, ...] | None]:
    """The scopes a search of ``principal`` may look in: ``(decision, scopes)`` where
    ``scopes`` None means every scope of the tenant.

    A search names scopes or inherits the key's: an exact allow-list becomes the filter
    (with ``public``); a key with a kind wildcard (``user:*``) cannot be turned into a
    finite filter, so its searches must name their scopes (``scope_required``) — never
    filtered after ranking, which would silently return fewer than ``top_k``."""
    role = authorize(principal, "read", PUBLIC)
    if not role:
        return role, ()
    if requested:
        for scope in requested:
            decision = authorize(principal, "read", scope)
            if not decision:
                return decision, ()
        return ALLOW, tuple(requested)
    if principal.role == "admin" or ANY in principal.scopes:
        return ALLOW, None
    if any(p.endswith(":*") for p in principal.scopes):
        return (
            Decision(
                False,
                "scope_required",
                "this key's scopes include a wildcard: name the scope to search",
            ),
            (),
        )
    return ALLOW, tuple(dict.fromkeys((*principal.scopes, PUBLIC)))
