"""Refused keys cost the address that sends them: after its burst, an address's uncached
keys are answered 429 with ``Retry-After`` and never looked up, while a key seen valid
from the same address passes (also once its cache entry aged out) and another address is
untouched."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ai_memory.bootstrap import Container, build
from ai_memory.entrypoints.http import auth
from ai_memory.entrypoints.http.app import create_app
from ai_memory.service.keys import KeyService
from ai_memory.settings import Settings
from tests.factories import FixedClock

BURST = 5


@pytest.fixture
def limited(tmp_path: Path, clock: FixedClock) -> Iterator[Container]:
    settings = Settings(data_dir=tmp_path / "data", auth_failure_burst=BURST, auth_failure_rate=0.2)
    c = build(settings, clock=clock)
    c.start()
    yield c
    c.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def bad_key(n: int) -> str:
    return f"aimem_{n:016x}_{'x' * 43}"  # well-formed: only a store read can refuse it


def test_an_address_that_floods_bad_keys_is_refused_before_any_lookup(
    limited: Container, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = limited.services.keys
    assert keys is not None
    valid = keys.create(tenant="acme", role="reader", scopes=["*"], name="ok").token
    cold = keys.create(tenant="acme", role="reader", scopes=["*"], name="cold").token
    lookups: list[str | None] = []
    real = KeyService.authenticate

    def counted(self: KeyService, token: str | None) -> Any:
        lookups.append(token)
        return real(self, token)

    monkeypatch.setattr(KeyService, "authenticate", counted)
    monkeypatch.setattr(auth, "TARPIT_SECONDS", 0.2)  # held 5 s in production
    app = create_app(limited.services)
    # One app (one limiter); the second client shares its lifespan, from another address.
    with TestClient(app) as attacker:
        other = TestClient(app, client=("192.0.2.9", 4000))
        assert attacker.get("/v1/memories/none", headers=bearer(valid)).status_code == 404
        for n in range(BURST):
            r = attacker.get("/v1/memories/none", headers=bearer(bad_key(n)))
            assert r.status_code == 401 and r.json()["code"] == "invalid_api_key"
        before = len(lookups)
        for n in range(BURST, BURST + 10):
            began = time.monotonic()
            r = attacker.get("/v1/memories/none", headers=bearer(bad_key(n)))
            assert time.monotonic() - began >= 0.2  # held back: the flood slows down
            assert r.status_code == 429, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            assert r.json()["code"] == "auth_failures"
            assert 1 <= int(r.headers["Retry-After"]) <= 5
        assert len(lookups) == before  # no store read for a blocked address
        # No key, or a malformed one, from a limited address: held back too (their 401
        # would cost no lookup, but an instant answer is what a flood needs).
        for headers in ({}, bearer("not-a-key")):
            began = time.monotonic()
            r = attacker.get("/v1/memories/none", headers=headers)
            assert r.status_code == 429 and time.monotonic() - began >= 0.2, r.text
        # The same address with a key seen valid: served, also once its cache entry aged
        # out (it is read again); a key never seen: asked to wait like the rest.
        assert attacker.get("/v1/memories/none", headers=bearer(valid)).status_code == 404
        clock.advance(10)  # past the key cache's TTL
        before = len(lookups)
        assert attacker.get("/v1/memories/none", headers=bearer(valid)).status_code == 404
        assert len(lookups) == before + 1
        assert attacker.get("/v1/memories/none", headers=bearer(cold)).status_code == 429
        # Another address is not affected, bad key or good.
        assert other.get("/v1/memories/none", headers=bearer(bad_key(999))).status_code == 401
        assert other.get("/v1/memories/none", headers=bearer(cold)).status_code == 404
        # /healthz needs no key and is never limited.
        assert attacker.get("/healthz").status_code == 200


def test_a_valid_tenant_is_never_charged(limited: Container) -> None:
    keys = limited.services.keys
    assert keys is not None
    token = keys.create(tenant="acme", role="reader", scopes=["*"], name="ok").token
    with TestClient(create_app(limited.services)) as client:
        for _ in range(BURST * 4):
            assert client.get("/v1/memories/none", headers=bearer(token)).status_code == 404
        assert client.get("/v1/memories/none", headers=bearer(bad_key(1))).status_code == 401
