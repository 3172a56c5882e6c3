"""Webhooks through the Python SDK and the CLI against a real ``ai-memory serve``, and
their metrics on the metrics port.

An admin key subscribes a loopback receiver (the server allows private destinations);
a write arrives signed and verifies; list, show, resume and delete answer typed (SDK)
and one line or JSON (CLI); a reader key is refused (403 ``ForbiddenError``, exit 1),
another tenant's admin finds nothing (404); the secret is printed once. A delivery and
a failure move ``aimem_webhook_deliveries_total``, a paused subscription shows in
``aimem_webhooks_paused``, and no metric names a tenant or a receiver."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loadtest.cluster import free_port

from ai_memory.entrypoints.cli.exit_codes import ExitCode
from ai_memory.sdk import (
    AsyncMemoryClient,
    ForbiddenError,
    InvalidInputError,
    MemoryClient,
    NotFoundError,
)
from ai_memory.sdk.webhooks import verify_webhook
from tests.e2e.test_keys_server import create_key
from tests.e2e.test_server_and_cli import CLI, Server
from tests.e2e.test_webhooks_server import Receiver, wait_for


class Deployment:
    def __init__(self, data: Path) -> None:
        self.admin = create_key(data, "--tenant", "acme", "--role", "admin")
        self.reader = create_key(data, "--tenant", "acme", "--role", "reader", "--scopes", "*")
        self.stranger = create_key(data, "--tenant", "globex", "--role", "admin")
        self.metrics_port = free_port()
        self.server = Server(
            data,
            AIMEM_METRICS_PORT=str(self.metrics_port),
            AIMEM_WEBHOOK_ALLOW_PRIVATE="true",
            AIMEM_WEBHOOK_BACKOFF_BASE="0.05",
            AIMEM_WEBHOOK_BACKOFF_MAX="0.2",
            AIMEM_WEBHOOK_MAX_FAILURES="3",
        )

    def client(self, key: str) -> MemoryClient:
        return MemoryClient(self.server.url, api_key=key)

    def cli(self, key: str, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "AIMEM_URL": self.server.url, "AIMEM_API_KEY": key}
        return subprocess.run(
            [*CLI, "webhooks", *args], env=env, capture_output=True, text=True, timeout=120
        )

    def metrics(self) -> str:
        return httpx.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10).text


def sample(text: str, series: str) -> float:
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{series} not exposed")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    d = Deployment(tmp_path_factory.mktemp("webhook-clients") / "data")
    yield d
    d.server.stop()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    r.start()
    yield r
    r.stop()


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ai-memory: "), result.stderr
    return lines[0]


def test_the_sdk_subscribes_and_a_write_arrives_signed(
    deployment: Deployment, receiver: Receiver
) -> None:
    delivered = 'aimem_webhook_deliveries_total{outcome="delivered"}'
    before = sample(deployment.metrics(), delivered)
    with deployment.client(deployment.admin) as memory:
        hook = memory.create_webhook(
            receiver.url, scopes=["team:ops"], kinds=["written"], description="sdk"
        )
        receiver.secret = hook.secret
        assert hook.id.startswith("wh_") and hook.secret.startswith("whsec_")
        assert (hook.status, hook.kinds, hook.description) == ("active", ["written"], "sdk")
        memory.write("Ops rota: Erin", scope="team:ops", source_agent="a", id="rota")
        wait_for(lambda: bool(receiver.received), 30, "a delivery")
        _, headers, body = receiver.received[0]
        delivery = verify_webhook(hook.secret, headers, body)
        assert [(e["id"], e["kind"]) for e in delivery["events"]] == [("rota", "written")]
        assert b"Erin" not in body

        shown = memory.get_webhook(hook.id)
        assert shown.id == hook.id and not hasattr(shown, "secret")
        wait_for(lambda: memory.get_webhook(hook.id).delivered == 1, 10, "the saved cursor")
        assert [h.id for h in memory.list_webhooks().webhooks] == [hook.id]
        assert memory.resume_webhook(hook.id).status == "active"
        assert asyncio.run(_async_list(deployment)) == [hook.id]

        with pytest.raises(InvalidInputError) as bad:
            memory.create_webhook("ftp://example.com/in", scopes=["*"])
        assert bad.value.field == "url"

        with deployment.client(deployment.stranger) as stranger:
            assert stranger.list_webhooks().webhooks == []
            with pytest.raises(NotFoundError):
                stranger.get_webhook(hook.id)
            with pytest.raises(NotFoundError):
                stranger.delete_webhook(hook.id)
        with deployment.client(deployment.reader) as reader:
            with pytest.raises(ForbiddenError) as refused:
                reader.create_webhook(receiver.url, scopes=["*"])
            assert refused.value.code == "role_forbidden"
            with pytest.raises(ForbiddenError):
                reader.resume_webhook(hook.id)

        memory.delete_webhook(hook.id)
        with pytest.raises(NotFoundError):
            memory.get_webhook(hook.id)
    assert sample(deployment.metrics(), delivered) >= before + 1


async def _async_list(deployment: Deployment) -> list[str]:
    async with AsyncMemoryClient(deployment.server.url, api_key=deployment.admin) as memory:
        return [h.id for h in (await memory.list_webhooks()).webhooks]


def test_the_cli_manages_webhooks(deployment: Deployment, receiver: Receiver) -> None:
    key = deployment.admin
    created = deployment.cli(
        key, "create", receiver.url, "--scope", "team:cli", "--kind", "written"
    )
    assert created.returncode == 0, created.stderr
    fields = dict(line.split(":", 1) for line in created.stdout.splitlines())
    webhook_id, secret = fields["id"].strip(), fields["secret"].strip()
    assert webhook_id.startswith("wh_") and secret.startswith("whsec_")
    assert "will not be shown again" in created.stderr

    as_json = deployment.cli(key, "create", receiver.url, "--scope", "*", "--json")
    assert as_json.returncode == 0, as_json.stderr
    second = json.loads(as_json.stdout)
    assert second["secret"].startswith("whsec_") and second["scopes"] == ["*"]

    listed = deployment.cli(key, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    ids = {h["id"] for h in json.loads(listed.stdout)["webhooks"]}
    assert {webhook_id, second["id"]} <= ids
    assert secret not in listed.stdout and second["secret"] not in listed.stdout
    table = deployment.cli(key, "list")
    assert webhook_id in table.stdout and secret not in table.stdout

    shown = deployment.cli(key, "show", webhook_id, "--json")
    assert json.loads(shown.stdout)["id"] == webhook_id and secret not in shown.stdout
    plain = deployment.cli(key, "show", webhook_id)
    assert "status:" in plain.stdout and "team:cli" in plain.stdout
    resumed = deployment.cli(key, "resume", webhook_id, "--json")
    assert json.loads(resumed.stdout)["status"] == "active"

    reader = deployment.cli(deployment.reader, "create", receiver.url, "--scope", "*")
    assert reader.returncode == ExitCode.REFUSED
    assert "role_forbidden" in one_line(reader) and reader.stdout == ""
    stranger = deployment.cli(deployment.stranger, "show", webhook_id)
    assert stranger.returncode == ExitCode.REFUSED and "webhook_not_found" in one_line(stranger)
    bad = deployment.cli(key, "create", "javascript:alert(1)", "--scope", "*")
    assert bad.returncode == ExitCode.REFUSED and "[url]" in one_line(bad)

    down = deployment.cli(key, "list", "--url", f"http://127.0.0.1:{free_port()}")
    assert down.returncode == ExitCode.UNREACHABLE and "cannot reach" in one_line(down)

    for hook in (webhook_id, second["id"]):
        gone = deployment.cli(key, "delete", hook, "--json")
        assert gone.returncode == 0 and json.loads(gone.stdout) == {"id": hook, "deleted": True}
    again = deployment.cli(key, "delete", webhook_id)
    assert again.returncode == ExitCode.REFUSED and "webhook_not_found" in one_line(again)


def test_a_failing_receiver_moves_the_counters_and_pauses(deployment: Deployment) -> None:
    failed = 'aimem_webhook_deliveries_total{outcome="failed"}'
    before = deployment.metrics()
    dead = f"http://127.0.0.1:{free_port()}/nobody-listens-here"  # refused connections
    with deployment.client(deployment.admin) as memory:
        hook = memory.create_webhook(dead, scopes=["team:down"])
        memory.write("x", scope="team:down", source_agent="a", id="down-1")
        wait_for(lambda: memory.get_webhook(hook.id).status == "paused", 30, "a pause")
        paused = memory.get_webhook(hook.id)
        assert paused.failures == 3 and paused.last_error
        wait_for(lambda: sample(deployment.metrics(), "aimem_webhooks_paused") >= 1, 10, "gauge")
        after = deployment.metrics()
        assert sample(after, failed) >= sample(before, failed) + 3
        assert sample(after, "aimem_webhook_backlog_seconds") >= 0
        assert sample(after, "aimem_webhook_delivery_seconds_count") >= 3
        webhook_lines = "\n".join(x for x in after.splitlines() if x.startswith("aimem_webhook"))
        assert "aimem_webhooks_paused" in webhook_lines
        for leak in ("acme", "tenant=", "nobody-listens-here", "127.0.0.1", hook.id):
            assert leak not in webhook_lines
        memory.delete_webhook(hook.id)
    wait_for(lambda: sample(deployment.metrics(), "aimem_webhooks_paused") == 0, 10, "unpaused")
