"""``ai-memory keys``: create prints the key once, list never shows a secret, revoke is
final — on the data directory a server built by the composition root reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ai_memory.bootstrap import build
from ai_memory.core.errors import Unauthenticated
from ai_memory.entrypoints.cli.main import app as cli
from ai_memory.settings import Settings
from tests.factories import FixedClock


def run(*args: str, code: int = 0) -> tuple[str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result.stdout, result.stderr


def test_create_list_revoke_against_the_servers_store(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    token, note = run(
        "keys", "create", "--tenant", "acme", "--role", "writer", "--scopes", "user:*,team:data",
        "--name", "planner", "--expires", "30d", "--data-dir", data,
    )  # fmt: skip
    token = token.strip()
    assert token.startswith("aimem_") and len(token.split("_", 2)[2]) == 43
    key_id = token.split("_")[1]
    assert key_id in note and "only once" in note

    listed, _ = run("keys", "list", "--tenant", "acme", "--json", "--data-dir", data)
    (row,) = [json.loads(line) for line in listed.splitlines()]
    assert row["key_id"] == key_id and row["status"] == "active"
    assert row["scopes"] == ["user:*", "team:data"] and row["expires_at"]
    assert token.split("_", 2)[2] not in listed and "hash" not in listed
    assert run("keys", "list", "--tenant", "globex", "--json", "--data-dir", data)[0] == ""

    clock = FixedClock()
    container = build(Settings(data_dir=Path(data)), clock=clock)
    try:
        keys = container.services.keys
        assert keys is not None and keys.required()
        assert keys.authenticate(token).tenant == "acme"
        run("keys", "revoke", key_id, "--data-dir", data)
        clock.advance(5)  # the server's cache of the key ages out
        with pytest.raises(Unauthenticated):
            keys.authenticate(token)
    finally:
        container.close()
    listed, _ = run("keys", "list", "--tenant", "acme", "--json", "--data-dir", data)
    assert json.loads(listed)["status"] == "revoked"


def test_refusals_exit_1_with_their_code(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    base = ("keys", "create", "--tenant", "acme", "--name", "x", "--data-dir", data)
    _, message = run(*base, "--role", "root", code=1)
    assert "invalid_input" in message
    _, message = run(*base, "--role", "reader", "--scopes", "user:al*", code=1)
    assert "invalid_input" in message
    _, message = run(*base, "--role", "reader", "--expires", "soon", code=1)
    assert "30d" in message
    _, message = run("keys", "revoke", "0123456789abcdef", "--data-dir", data, code=1)
    assert "key_not_found" in message
