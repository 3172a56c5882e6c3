"""Webhook signing secrets are sealed at rest: the store's bytes hold no secret, a sealed
value opens only on its own subscription under the same root key, and a server signs
with the secret it showed once."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ai_memory.adapters.sqlite_webhook_store import SqliteWebhookStore
from ai_memory.adapters.webhook_secret_sealing import (
    SEALED_PREFIX,
    SealedSecretWebhookStore,
    open_secret,
    seal_secret,
    secret_key,
)
from ai_memory.core.errors import Unavailable
from tests.contract.webhook_store_contract import subscription

ROOT = bytes(range(32))
OTHER_ROOT = bytes(range(1, 33))


def files_of(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file())


def test_no_file_of_the_store_holds_the_secret(tmp_path: Path) -> None:
    store = SealedSecretWebhookStore(SqliteWebhookStore(tmp_path / "webhooks.db"), ROOT)
    created = subscription()
    store.create(created)
    secret = created.secret.encode()
    assert store.get(created.tenant, created.id) == created
    assert [s.secret for s in store.list_all()] == [created.secret]
    # Before closing: the WAL and the main file, as a copied directory would have them.
    disk = files_of(tmp_path)
    store.close()
    disk += files_of(tmp_path)
    assert secret not in disk
    assert secret[len("whsec_") :] not in disk
    assert SEALED_PREFIX.encode() in disk  # the row is there, sealed


def test_a_sealed_secret_opens_only_on_its_own_subscription_and_root() -> None:
    key = secret_key(ROOT)
    sealed = seal_secret(key, "acme", "wh_0123456789abcdef", "whsec_the-secret")
    assert open_secret(key, "acme", "wh_0123456789abcdef", sealed) == "whsec_the-secret"
    for tenant, webhook_id in [("globex", "wh_0123456789abcdef"), ("acme", "wh_fedcba9876543210")]:
        with pytest.raises(Unavailable, match="does not open"):
            open_secret(key, tenant, webhook_id, sealed)
    with pytest.raises(Unavailable, match="does not open"):
        open_secret(secret_key(OTHER_ROOT), "acme", "wh_0123456789abcdef", sealed)
    tampered = sealed[:-4] + ("AAAA" if not sealed.endswith("AAAA") else "BBBB")
    with pytest.raises(Unavailable):
        open_secret(key, "acme", "wh_0123456789abcdef", tampered)
    # Two seals of one secret differ (random nonces): equal secrets are not visible.
    assert sealed != seal_secret(key, "acme", "wh_0123456789abcdef", "whsec_the-secret")


def test_a_row_moved_onto_another_subscription_does_not_sign(tmp_path: Path) -> None:
    inner = SqliteWebhookStore(tmp_path / "webhooks.db")
    store = SealedSecretWebhookStore(inner, ROOT)
    victim = subscription(tenant="globex")
    store.create(victim)
    stolen = inner.get(victim.tenant, victim.id)
    assert stolen is not None and stolen.secret.startswith(SEALED_PREFIX)
    attacker = subscription(tenant="acme")
    inner.create(replace(attacker, secret=stolen.secret))
    with pytest.raises(Unavailable):
        store.get(attacker.tenant, attacker.id)
    # The tenant's listing still works and shows the victim's secret nowhere.
    listed = {s.id: s.secret for s in store.list_all()}
    assert listed == {victim.id: victim.secret, attacker.id: ""}
    assert [s.secret for s in store.list_tenant("acme")] == [""]
    store.close()


def test_a_secret_stored_before_sealing_still_reads(tmp_path: Path) -> None:
    inner = SqliteWebhookStore(tmp_path / "webhooks.db")
    old = subscription()
    inner.create(old)  # written by a server that kept secrets in clear
    assert SealedSecretWebhookStore(inner, ROOT).get(old.tenant, old.id) == old
    inner.close()
