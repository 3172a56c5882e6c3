"""Webhook signing secrets sealed at rest (``docs/design/WEBHOOKS.md``).

An HMAC signature needs the secret itself, so the store cannot keep a digest as it does
for API keys. It keeps the secret sealed instead: AES-256-GCM under a key derived from
the deployment's root key (``core.sealing.derived_key(root, "webhook-secrets")``), with an
AAD naming the tenant and the subscription, so a copied ``webhooks.db``, an SSTable or a
backup holds no usable secret without the root key, and a sealed value moved onto another
subscription does not open. This decorator seals on ``create`` and opens on every read;
the stores below it never see a secret in clear.

A subscription created before secrets were sealed (a ``whsec_`` value in the row) still
reads as it is: deleting and re-creating it seals its new secret.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from dataclasses import replace
from datetime import datetime

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.core.errors import Unavailable
from ai_memory.core.ports import WebhookStore
from ai_memory.core.sealing import derived_key
from ai_memory.core.webhooks.model import DeliveryState, Subscription

SEALED_PREFIX = "sealed:v1:"
_AAD_FORMAT = "aimem.webhook-secret.v1"
_NONCE = 12

log = logging.getLogger(__name__)


def secret_key(root: bytes) -> bytes:
    return derived_key(root, "webhook-secrets")


def _aad(tenant: str, webhook_id: str) -> bytes:
    # A JSON array: no tenant or id can contain a separator that makes two pairs alike.
    return json.dumps([_AAD_FORMAT, tenant, webhook_id], separators=(",", ":")).encode()


def seal_secret(key: bytes, tenant: str, webhook_id: str, secret: str) -> str:
    nonce = os.urandom(_NONCE)
    sealed = AESGCM(key).encrypt(nonce, secret.encode("utf-8"), _aad(tenant, webhook_id))
    return SEALED_PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def open_secret(key: bytes, tenant: str, webhook_id: str, stored: str) -> str:
    """The secret in clear; a row written before sealing is returned as it is."""
    if not stored.startswith(SEALED_PREFIX):
        return stored
    try:
        raw = base64.urlsafe_b64decode(stored[len(SEALED_PREFIX) :].encode("ascii"))
        plain = AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], _aad(tenant, webhook_id))
    except (InvalidTag, ValueError) as error:
        # Another root key, or a value moved between subscriptions: no delivery can be
        # signed, and guessing would sign with the wrong secret. Say what is wrong.
        raise Unavailable(
            f"webhook {webhook_id}: its signing secret does not open under this "
            "deployment's root key (AIMEM_ROOT_KEY changed, or the row was moved)"
        ) from error
    return plain.decode("utf-8")


class SealedSecretWebhookStore:
    """A ``WebhookStore`` that keeps every subscription's secret sealed in ``inner``."""

    def __init__(self, inner: WebhookStore, root: bytes) -> None:
        self.inner = inner
        self._key = secret_key(root)

    def _open(self, s: Subscription) -> Subscription:
        return replace(s, secret=open_secret(self._key, s.tenant, s.id, s.secret))

    def create(self, subscription: Subscription) -> None:
        s = subscription
        self.inner.create(replace(s, secret=seal_secret(self._key, s.tenant, s.id, s.secret)))

    def get(self, tenant: str, webhook_id: str) -> Subscription | None:
        found = self.inner.get(tenant, webhook_id)
        return None if found is None else self._open(found)

    def _listed(self, s: Subscription) -> Subscription:
        """A listing never shows a secret: one that does not open must not hide the
        tenant's other subscriptions. It lists with no secret; ``get`` (what the
        dispatcher signs with) refuses it."""
        try:
            return self._open(s)
        except Unavailable as error:
            log.error("%s", error)
            return replace(s, secret="")

    def list_tenant(self, tenant: str) -> list[Subscription]:
        return [self._listed(s) for s in self.inner.list_tenant(tenant)]

    def list_all(self) -> list[Subscription]:
        return [self._listed(s) for s in self.inner.list_all()]

    def delete(self, tenant: str, webhook_id: str) -> bool:
        return self.inner.delete(tenant, webhook_id)

    def save_state(self, tenant: str, webhook_id: str, state: DeliveryState) -> bool:
        return self.inner.save_state(tenant, webhook_id, state)

    def claim(self, lease: str, owner: str, ttl: float, now: datetime) -> bool:
        return self.inner.claim(lease, owner, ttl, now)

    def close(self) -> None:
        self.inner.close()
