"""The secret of position tokens: one per deployment, kept across restarts, made only
when first needed (encryption off: no root key to derive it from)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from ai_memory.adapters.root_key import POSITIONS_KEY_FILE
from ai_memory.bootstrap import build
from ai_memory.entrypoints.http.app import create_app
from ai_memory.settings import Settings

FACT = {"type": "fact", "content": "Tea at four.", "scope": "user:alice", "source_agent": "a"}


def test_an_unencrypted_deployment_keeps_its_tokens_across_a_restart(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", encryption="off")
    first = build(settings)
    first.start()
    try:
        assert not (tmp_path / "data" / POSITIONS_KEY_FILE).exists()  # not before a need
        with TestClient(create_app(first.services)) as client:
            token = client.post("/v1/memories?wait=true", json=FACT).json()["position"]
        assert (tmp_path / "data" / POSITIONS_KEY_FILE).stat().st_mode & 0o077 == 0
    finally:
        first.close()
    again = build(settings)
    again.start()
    try:
        with TestClient(create_app(again.services)) as client:
            # The token of before the restart still reads the write back...
            assert client.get("/v1/memories", params={"min_position": token}).status_code == 200
            # ...and the same position is shown as the same token.
            logged = again.services.positions.taken("default", token)
            assert again.services.positions.shown("default", logged) == token
    finally:
        again.close()


def test_an_encrypted_deployment_derives_its_tokens_from_the_root_key(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    c = build(settings)
    try:
        shown = c.services.positions.shown("acme", 5)
        assert shown not in (0, 5)
        assert not (tmp_path / "data" / POSITIONS_KEY_FILE).exists()
    finally:
        c.close()
    again = build(settings)
    try:
        assert again.services.positions.shown("acme", 5) == shown
    finally:
        again.close()
