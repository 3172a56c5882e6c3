"""Webhook subscriptions: a tenant's admin subscribes a URL to some scopes and kinds of
change; ``WebhookDispatcher`` delivers them (``docs/design/WEBHOOKS.md``).

Only an admin key of the tenant (or the deployment itself) manages them: a subscription
pushes what changed in every scope it names to a URL of the admin's choosing. A key of
another tenant never finds one of this tenant's (404, as for a webhook that does not
exist). The URL is judged before anything is stored: http or https, no credentials, and
— unless the deployment allows it — a host whose every address is public
(``core.webhooks.destinations``). The signing secret is returned once, by ``create``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ai_memory.core.errors import Conflict, InvalidInput, NotFound
from ai_memory.core.ports import Clock, HostResolver, WebhookStore
from ai_memory.core.record import Limits, check_identifier, validate_scope
from ai_memory.core.webhooks.destinations import AddressPolicy, parse_destination
from ai_memory.core.webhooks.model import (
    EVERY_SCOPE,
    MAX_DESCRIPTION,
    DeliveryState,
    Subscription,
    new_id,
    new_secret,
    parse_kinds,
    valid_id,
)

from . import access
from .access import Who
from .changes import ChangeFeed
from .listing import MAX_LIST_SCOPES

WHAT = "managing webhooks"


@dataclass(frozen=True)
class WebhookRequest:
    url: str
    scopes: Sequence[str]
    kinds: Sequence[str] | None = None
    description: str = ""


class WebhookService:
    def __init__(
        self,
        store: WebhookStore,
        feed: ChangeFeed,
        resolver: HostResolver,
        policy: AddressPolicy,
        clock: Clock,
        limits: Limits,
        *,
        max_per_tenant: int = 25,
        on_change: Callable[[str | None], None] | None = None,
    ) -> None:
        self.store = store
        self._feed = feed
        self._resolver = resolver
        self._policy = policy
        self._clock = clock
        self._limits = limits
        self._max = max_per_tenant
        # The dispatcher's nudge (a subscription's id; None: the list changed).
        self.on_change = on_change

    def create(self, who: Who, request: WebhookRequest) -> Subscription:
        """A new subscription (with its secret: shown once), delivering what changes
        from now on."""
        caller = access.caller_of(who)
        access.require_admin(caller, WHAT)
        scopes = self._scopes(request.scopes)
        kinds = parse_kinds(request.kinds)
        description = _description(request.description)
        self.check_destination(request.url)
        if len(self.store.list_tenant(caller.tenant)) >= self._max:
            raise Conflict(
                f"the tenant holds {self._max} webhooks (AIMEM_WEBHOOK_MAX_PER_TENANT)",
                code="webhook_quota",
            )
        subscription = Subscription(
            id=new_id(),
            tenant=caller.tenant,
            url=request.url,
            scopes=scopes,
            kinds=kinds,
            description=description,
            secret=new_secret(),
            created_at=self._clock.now(),
            created_by=access.actor_of(caller, "deployment"),
            state=DeliveryState(cursor=self._feed.start(caller)),
        )
        self.store.create(subscription)
        self._nudge(None)
        return subscription

    def list_of(self, who: Who) -> list[Subscription]:
        caller = access.caller_of(who)
        access.require_admin(caller, WHAT)
        return self.store.list_tenant(caller.tenant)

    def get(self, who: Who, webhook_id: str) -> Subscription:
        caller = access.caller_of(who)
        access.require_admin(caller, WHAT)
        found = self.store.get(caller.tenant, webhook_id) if valid_id(webhook_id) else None
        if found is None:
            raise NotFound(f"webhook {webhook_id!r} does not exist", code="webhook_not_found")
        return found

    def delete(self, who: Who, webhook_id: str) -> None:
        caller = access.caller_of(who)
        self.get(caller, webhook_id)
        if not self.store.delete(caller.tenant, webhook_id):
            raise NotFound(f"webhook {webhook_id!r} does not exist", code="webhook_not_found")
        self._nudge(webhook_id)

    def resume(self, who: Who, webhook_id: str) -> Subscription:
        """Active again, failures forgotten, delivering from where the receiver last
        acknowledged (nothing is skipped). Resuming an active webhook retries now."""
        caller = access.caller_of(who)
        found = self.get(caller, webhook_id)
        state = replace(
            found.state, status="active", failures=0, failing_since=None, paused_reason=None
        )
        if not self.store.save_state(caller.tenant, webhook_id, state):
            raise NotFound(f"webhook {webhook_id!r} does not exist", code="webhook_not_found")
        self._nudge(webhook_id)
        return replace(found, state=state)

    def positions(self, subscription: Subscription) -> list[dict[str, int]]:
        """Where its cursor stands, per log partition: the tenant's position tokens."""
        tenant = subscription.tenant
        partitions = self._feed.positions(tenant, subscription.state.cursor or None)
        tokens = self._feed.tokens
        return [
            {"partition": p, "position": tokens.shown(tenant, pos)}
            for p, pos in sorted(partitions.items())
        ]

    def check_destination(self, url: str) -> None:
        """``InvalidInput`` naming ``url`` unless deliveries may go there now."""
        destination = parse_destination(url)
        addresses = (
            [destination.host]
            if destination.literal
            else self._resolver.resolve(destination.host, destination.port)
        )
        refused = self._policy.first_refusal(addresses)
        if refused:
            raise InvalidInput(
                "url",
                "destination",
                f"url reaches {refused}: webhooks go to public addresses only "
                "(AIMEM_WEBHOOK_ALLOW_PRIVATE, AIMEM_WEBHOOK_ALLOWED_CIDRS)",
                code="webhook_destination_refused",
            )

    def _scopes(self, scopes: Sequence[str]) -> tuple[str, ...] | None:
        if not scopes:
            raise InvalidInput("scopes", "required", "name the scopes to follow ('*': every one)")
        if len(scopes) > MAX_LIST_SCOPES:
            raise InvalidInput("scopes", "max_items", f"at most {MAX_LIST_SCOPES} scopes")
        if EVERY_SCOPE in scopes:
            if len(scopes) > 1:
                raise InvalidInput("scopes", "every_scope", "'*' stands alone")
            return None
        return tuple(dict.fromkeys(validate_scope(s, self._limits, "scopes") for s in scopes))

    def _nudge(self, webhook_id: str | None) -> None:
        if self.on_change is not None:
            self.on_change(webhook_id)


def _description(text: str) -> str:
    if len(text) > MAX_DESCRIPTION:
        raise InvalidInput(
            "description", "max_length", f"description is over {MAX_DESCRIPTION} chars"
        )
    if text:
        check_identifier(text, "description")
    return text
