"""Who may do what: the one place every use case asks.

Every facade method receives its **caller** first and asks this module before it reads
or writes anything. A caller is one of two things:

* an ``AccessPrincipal``: an authenticated API key (one tenant, one role, its scopes),
  judged by the pure policy (``core.access.policy``);
* an ``Embedded`` caller: the deployment itself, where no key is in force (open
  development mode, the CLI, the in-process client): it owns its tenant (every scope,
  every action) and, like an operator, may name another tenant where an operator may.

A bare tenant name given where a caller is expected is that tenant's ``Embedded``
caller (``caller_of``): code inside the deployment (the CLI, tests, the in-process
client) names a tenant; an entry point that serves keys always passes the caller it
authenticated.

The "learn nothing about what you may not reach" rule is written once, in ``reveal``:
a memory addressed by id is judged in its stored scope — forgotten or not — before
anything is said about it, so a key limited to some scopes hears ``scope_forbidden``
for a memory (or tombstone) elsewhere, never ``memory_forgotten`` or its version.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ai_memory.core.access import AccessPrincipal, Action, validate_tenant
from ai_memory.core.access.keys import DEPLOYMENT_WIDE
from ai_memory.core.access.policy import authorize, role_allows, searchable_scopes
from ai_memory.core.errors import Forbidden, Gone, InvalidInput, NotFound
from ai_memory.core.record import DEFAULT_TENANT, StoredRecord, Tombstone


@dataclass(frozen=True)
class Embedded:
    """The deployment calling itself (no API key in force): owns ``tenant``."""

    tenant: str = DEFAULT_TENANT


Caller = AccessPrincipal | Embedded
# What a facade method accepts: a caller, or a tenant's name for its embedded caller.
Who = Caller | str


def caller_of(who: Who) -> Caller:
    """The caller ``who`` names (a bare tenant name: that tenant's embedded caller)."""
    return Embedded(who) if isinstance(who, str) else who


def actor_of(caller: Caller, fallback: str) -> str:
    """What the log records as the actor: the key (``key:<id>``), else ``fallback``."""
    return caller.actor if isinstance(caller, AccessPrincipal) else fallback


def limited(caller: Caller) -> bool:
    """Whether the caller reaches only some scopes of its tenant."""
    return isinstance(caller, AccessPrincipal) and not caller.every_scope


def require(caller: Caller, action: Action, scope: str | None = None) -> None:
    """``Forbidden`` with the policy's stable code unless ``caller`` may ``action``
    (in ``scope``, for a scoped action)."""
    if isinstance(caller, Embedded):
        return
    decision = authorize(caller, action, scope)
    if not decision:
        raise Forbidden(decision.reason, code=decision.code)


def require_role(caller: Caller, action: Action) -> None:
    """``Forbidden`` (``role_forbidden``) unless the caller's role allows ``action``
    somewhere — asked before anything is looked up."""
    if isinstance(caller, Embedded):
        return
    decision = role_allows(caller, action)
    if not decision:
        raise Forbidden(decision.reason, code=decision.code)


def require_deployment_wide(caller: Caller, what: str) -> None:
    """``Forbidden`` unless the caller may see every tenant at once (``what``: e.g. the
    metrics, whose counts cover every tenant): the deployment itself, or an operator key
    created deployment-wide (tenant ``*``). An operator key of one tenant is refused
    (``tenant_forbidden``), any other key by its role (``role_forbidden``)."""
    if isinstance(caller, Embedded):
        return
    require_role(caller, "operate")
    if caller.tenant != DEPLOYMENT_WIDE:
        raise Forbidden(
            f"{what} cover every tenant: they need an operator key created with --tenant '*'",
            code="tenant_forbidden",
        )


def require_admin(caller: Caller, what: str) -> None:
    """``Forbidden`` (``role_forbidden``) unless the caller owns its tenant (an admin key,
    or the deployment): ``what`` is the refused use, for the message."""
    if isinstance(caller, AccessPrincipal) and caller.role != "admin":
        raise Forbidden(f"{what} needs an admin key of the tenant", code="role_forbidden")


def readable(caller: Caller, requested: Iterable[str] | None) -> list[str] | None:
    """The scopes a search, listing, export or change feed of ``caller`` may look in
    (None: every scope of its tenant), or ``Forbidden``."""
    if isinstance(caller, Embedded):
        return None if requested is None else list(requested)
    decision, scopes = searchable_scopes(caller, None if requested is None else [*requested])
    if not decision:
        raise Forbidden(decision.reason, code=decision.code)
    return None if scopes is None else list(scopes)


def judge(caller: Caller, action: Action, found: StoredRecord | Tombstone | None) -> None:
    """``Forbidden`` unless ``caller`` may ``action`` where ``found`` lives (a live
    memory or a tombstone alike: a forgotten id elsewhere is not confirmed either)."""
    if found is not None:
        require(caller, action, found.scope if isinstance(found, Tombstone) else found.record.scope)


def reveal(
    caller: Caller, action: Action, memory_id: str, found: StoredRecord | Tombstone | None
) -> StoredRecord:
    """The memory ``memory_id`` as ``caller`` may learn of it: ``NotFound`` if it never
    existed; ``Forbidden`` unless it may ``action`` in the stored scope; ``Gone`` if it
    was forgotten; else the stored record."""
    if found is None:
        raise NotFound(f"memory {memory_id!r} does not exist", code="memory_not_found")
    judge(caller, action, found)
    if isinstance(found, Tombstone):
        raise Gone(f"memory {memory_id!r} was forgotten", code="memory_forgotten")
    return found


def reported_tenant(caller: Caller, asked: str | None, report: str) -> str:
    """Whose tenant-wide ``report`` (the audit trail, the usage) ``caller`` may read: an
    admin or an operator key its own tenant's, a deployment-wide operator key (tenant
    ``*``) or the deployment the one it names. Judged before anything is looked up: a key
    naming another tenant is refused alike whether that tenant exists or not."""
    if isinstance(caller, Embedded):
        return validate_tenant(asked) if asked else caller.tenant
    if caller.role == "operator" and caller.tenant == DEPLOYMENT_WIDE:
        if not asked:
            raise InvalidInput(
                "tenant", "required", "a deployment-wide operator key must name the tenant"
            )
        return validate_tenant(asked)
    if caller.role not in ("admin", "operator"):
        raise Forbidden(
            f"{report} is for an admin of the tenant or an operator",
            code="role_forbidden",
        )
    if asked and asked != caller.tenant:
        raise Forbidden(
            f"a key of tenant {caller.tenant} reads {report} of its own tenant only "
            "(an operator key of every tenant is created with --tenant '*')",
            code="tenant_forbidden",
        )
    return caller.tenant


def audited_tenant(caller: Caller, asked: str | None) -> str:
    """Whose audit trail ``caller`` may read (``reported_tenant``)."""
    return reported_tenant(caller, asked, "the audit trail")
