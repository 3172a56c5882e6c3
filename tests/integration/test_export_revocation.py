"""An export streamed to a key that is revoked mid-way is cut off (the body aborted, so a
reader cannot take it for a whole bundle), asked of the real key store."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.errors import Unauthenticated
from ai_memory.entrypoints.http.app import _while_allowed
from ai_memory.entrypoints.http.auth import StillAllowed


def slow_lines(n: int, every: float) -> Iterator[str]:
    for i in range(n):
        time.sleep(every)
        yield f'{{"line": {i}}}'


def test_an_export_is_cut_off_once_its_key_is_revoked(container: Container) -> None:
    keys = container.services.keys
    assert keys is not None
    issued = keys.create(tenant="acme", role="reader", scopes=["*"], name="t")
    body = _while_allowed(StillAllowed(keys, issued.token), slow_lines(40, 0.1))
    sent = [next(body) for _ in range(5)]
    keys.revoke(issued.key.key_id)
    revoked = time.monotonic()
    with pytest.raises(Unauthenticated):
        for line in body:
            sent.append(line)
    assert time.monotonic() - revoked < 2.5 and len(sent) < 40


def test_an_export_of_a_key_that_holds_runs_to_the_end(container: Container) -> None:
    keys = container.services.keys
    assert keys is not None
    token = keys.create(tenant="acme", role="reader", scopes=["*"], name="t").token
    assert len(list(_while_allowed(StillAllowed(keys, token), slow_lines(25, 0.1)))) == 25


def test_an_export_begun_in_open_mode_ends_once_a_key_exists(container: Container) -> None:
    keys = container.services.keys
    assert keys is not None and not keys.required()
    body = _while_allowed(StillAllowed(keys, None), slow_lines(40, 0.1))
    next(body)
    keys.create(tenant="acme", role="admin", scopes=["*"], name="first")
    with pytest.raises(Unauthenticated, match="now required"):
        list(body)
