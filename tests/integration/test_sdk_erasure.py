"""Subject erasure through the SDK: ``MemoryClient`` against a real uvicorn server (API
keys on, so the admin-only rule is the server's) and ``InProcessClient`` over the same
container run the same cases; receipts verify offline with ``verify_receipt`` and fail
once changed; the async client, ``ai-memory erase`` and what the SDK sends and retries."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from ai_memory.bootstrap import Container, build
from ai_memory.core import errors as core
from ai_memory.entrypoints.cli.main import app as cli
from ai_memory.sdk import (
    AsyncMemoryClient,
    ErasureOut,
    ErasureReceipt,
    ForbiddenError,
    GoneError,
    InvalidInputError,
    MemoryClient,
    NotFoundError,
    ReceiptInvalidError,
    RetryPolicy,
    UnauthenticatedError,
    UnavailableError,
    verify_receipt,
)
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.sdk.receipts import key_id
from ai_memory.service.receipts import public_key_pem
from ai_memory.settings import Settings
from tests.isolation_probe import LiveServer


@dataclass
class Keyed:
    """An encrypted container served by uvicorn, with an admin and a writer key of the
    tenant the in-process client acts as."""

    container: Container
    server: LiveServer
    admin: str
    writer: str


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keyed]:
    data = tmp_path_factory.mktemp("sdk-erasure") / "data"
    # Encryption on: an erasure destroys data keys, so the receipt's scan can pass.
    c = build(Settings(data_dir=data, encryption="on"))
    c.start()
    keys = c.services.keys
    assert keys is not None
    admin = keys.create(tenant="default", role="admin", scopes=["*"], name="admin").token
    writer = keys.create(tenant="default", role="writer", scopes=["*"], name="writer").token
    server = LiveServer(c)
    yield Keyed(c, server, admin, writer)
    server.stop()
    c.close()


@pytest.fixture(params=["http", "in_process"])
def memory(request: pytest.FixtureRequest, keyed: Keyed) -> Iterator[MemoryClient]:
    if request.param == "http":
        with MemoryClient(keyed.server.url, timeout=30, retries=2, api_key=keyed.admin) as http:
            yield http
    else:
        with InProcessClient(keyed.container) as local:
            yield local


def subject() -> str:
    return f"user:erase-{uuid.uuid4().hex[:8]}"


def test_erase_a_scope_then_its_receipt_verifies_offline(memory: MemoryClient) -> None:
    scope = subject()
    for i in range(2):
        memory.write(
            f"Secret {i} of {scope}.", scope=scope, source_agent="a", id=f"{scope}-{i}", wait=True
        )
    turn = memory.record_interaction("I live in Lisbon.", scope=scope, source_agent="p", wait=True)
    done = memory.erase(scope=scope, reason="subject request", wait=True)
    assert isinstance(done, ErasureOut) and done.erasure_id.startswith("era-")
    assert (done.memories, done.interactions, done.already_done) == (3, 1, False)
    assert done.receipt == f"/v1/erasures/{done.erasure_id}"
    for memory_id in (f"{scope}-0", f"{scope}-1", turn.memories[0]["id"]):
        with pytest.raises(GoneError):
            memory.get(memory_id)

    receipt = memory.erasure_receipt(done.erasure_id)
    key = memory.erasure_public_key()
    assert isinstance(receipt, ErasureReceipt) and key.algorithm == "Ed25519"
    checked = verify_receipt(receipt, key.pem)
    body = checked.receipt
    assert body.erasure_id == done.erasure_id and body.tenant == "default"
    assert set(body.erased.memory_ids) == {f"{scope}-0", f"{scope}-1", turn.memories[0]["id"]}
    assert body.erased.interaction_ids == [turn.interaction_id]
    assert body.request.criteria == {"scope": scope}
    assert body.verification.passed, body.verification
    assert body.keys.encryption == "on" and body.keys.destroyed_at
    assert receipt.signature.key_id == key.key_id
    assert receipt.verify(key.pem) == body
    # The typed model keeps the document as served: its own dump is not what is signed.
    assert receipt.raw == json.loads(json.dumps(receipt.raw))
    assert set(receipt.raw) == {"receipt", "signature"}

    # Named erasures are idempotent: the same id again is the same erasure.
    named = f"era-named-{uuid.uuid4().hex[:8]}"
    first = memory.erase(ids=[f"{scope}-x"], reason="twice", erasure_id=named, wait=True)
    again = memory.erase(ids=[f"{scope}-x"], reason="twice", erasure_id=named, wait=True)
    assert (first.already_done, again.already_done) == (False, True)
    assert again.erasure_id == named and again.position == first.position


def test_a_tampered_receipt_fails(memory: MemoryClient) -> None:
    scope = subject()
    # wait: an erasure finds its subject in the projected records.
    memory.write(f"Fact of {scope}.", scope=scope, source_agent="a", id=f"{scope}-0", wait=True)
    done = memory.erase(scope=scope, reason="subject request", wait=True)
    receipt = memory.erasure_receipt(done.erasure_id)
    pem = memory.erasure_public_key().pem
    # Pretty-printed JSON text, a plain dict and the raw base64 key all verify.
    assert verify_receipt(json.dumps(receipt.raw, indent=2), pem).receipt.erasure_id
    assert verify_receipt(receipt.raw, pem).receipt == receipt.receipt

    tampered = receipt.raw
    assert tampered["receipt"]["erased"]["memory_ids"] == [f"{scope}-0"]
    tampered["receipt"]["erased"]["memory_ids"] = []
    with pytest.raises(ReceiptInvalidError, match="does not match"):
        verify_receipt(tampered, pem)
    flipped = receipt.raw
    flipped["receipt"]["verification"]["passed"] = not flipped["receipt"]["verification"]["passed"]
    with pytest.raises(ReceiptInvalidError):
        verify_receipt(flipped, pem)
    with pytest.raises(ReceiptInvalidError):
        verify_receipt(ErasureReceipt.model_validate(tampered), pem)
    other = public_key_pem(Ed25519PrivateKey.generate().public_key())
    with pytest.raises(ReceiptInvalidError, match="another key"):
        verify_receipt(receipt, other)
    with pytest.raises(ReceiptInvalidError):
        verify_receipt(b"not json", pem)
    with pytest.raises(ReceiptInvalidError):
        verify_receipt(receipt, "not a key")


def test_forget_interaction(memory: MemoryClient) -> None:
    scope = subject()
    turn = memory.record_interaction("I live in Porto.", scope=scope, source_agent="p", wait=True)
    kept = memory.record_interaction("I live in Braga.", scope=scope, source_agent="p", wait=True)
    done = memory.forget_interaction(turn.interaction_id, wait=True)
    assert (done.interactions, done.memories, done.already_done) == (1, 1, False)
    with pytest.raises(GoneError):
        memory.get(turn.memories[0]["id"])
    assert "Braga" in memory.get(kept.memories[0]["id"]).content
    receipt = memory.erasure_receipt(done.erasure_id)
    body = verify_receipt(receipt, memory.erasure_public_key().pem).receipt
    assert body.erased.interaction_ids == [turn.interaction_id]
    assert body.request.reason == "interaction forgotten"
    with pytest.raises(NotFoundError) as missing:
        memory.forget_interaction(f"no-such-turn-{uuid.uuid4().hex}")
    assert missing.value.code == "interaction_not_found"


def test_refused_requests_raise_the_same_errors(memory: MemoryClient) -> None:
    with pytest.raises(InvalidInputError) as none:
        memory.erase(reason="no subject")
    assert none.value.rule == "one_criterion"
    with pytest.raises(InvalidInputError):
        memory.erase(scope=subject(), source_agent="a", reason="two subjects")
    with pytest.raises(InvalidInputError):
        memory.erase(scope=subject(), reason=" ")
    with pytest.raises(NotFoundError) as unknown:
        memory.erasure_receipt("era-never-made")
    assert unknown.value.code == "erasure_not_found"


def test_only_an_admin_key_erases(keyed: Keyed) -> None:
    scope = subject()
    with MemoryClient(keyed.server.url, timeout=30, api_key=keyed.writer) as writer:
        writer.write("Writer's fact.", scope=scope, source_agent="a", id=f"{scope}-0", wait=True)
        calls = [
            lambda: writer.erase(scope=scope, reason="not allowed"),
            lambda: writer.erasure_receipt("era-whatever"),
            lambda: writer.erasure_public_key(),
            lambda: writer.forget_interaction("turn-whatever"),
        ]
        for call in calls:
            with pytest.raises(ForbiddenError) as refused:
                call()
            assert refused.value.status == 403 and isinstance(refused.value, core.Forbidden)
        assert writer.get(f"{scope}-0").content == "Writer's fact."  # nothing was erased
    with (
        MemoryClient(keyed.server.url, timeout=30) as anonymous,
        pytest.raises(UnauthenticatedError),
    ):
        anonymous.erase(scope=scope, reason="no key")


def test_async_client(keyed: Keyed) -> None:
    scope = subject()

    async def scenario() -> None:
        async with AsyncMemoryClient(keyed.server.url, timeout=30, api_key=keyed.admin) as c:
            await c.write("Async fact.", scope=scope, source_agent="a", id=f"{scope}-0", wait=True)
            turn = await c.record_interaction(
                "I live in Faro.", scope=scope, source_agent="p", wait=True
            )
            forgot = await c.forget_interaction(turn.interaction_id, wait=True)
            assert forgot.interactions == 1
            done = await c.erase(scope=scope, reason="async", wait=True)
            assert done.memories == 1
            receipt = await c.erasure_receipt(done.erasure_id)
            key = await c.erasure_public_key()
            assert verify_receipt(receipt, key.pem).receipt.verification.passed
            with pytest.raises(GoneError):
                await c.get(f"{scope}-0")

    asyncio.run(scenario())


def test_the_cli_erases_saves_the_receipt_and_verifies_it(keyed: Keyed, tmp_path: Path) -> None:
    scope = subject()
    with MemoryClient(keyed.server.url, timeout=30, api_key=keyed.admin) as admin:
        admin.write("CLI fact.", scope=scope, source_agent="a", id=f"{scope}-0", wait=True)
    receipt, key = tmp_path / "receipt.json", tmp_path / "key.pem"
    env = {"AIMEM_URL": keyed.server.url, "AIMEM_API_KEY": keyed.admin}
    args = ["erase", "--scope", scope, "--reason", "cli", "--receipt", str(receipt)]
    ran = CliRunner().invoke(cli, [*args, "--public-key", str(key)], env=env)
    assert ran.exit_code == 0, ran.output
    erasure_id = ran.stdout.strip()
    assert erasure_id.startswith("era-")
    assert json.loads(receipt.read_text())["receipt"]["erasure_id"] == erasure_id
    verified = CliRunner().invoke(cli, ["verify-receipt", str(receipt), "--public-key", str(key)])
    assert verified.exit_code == 0 and "verification scan passed" in verified.stdout
    receipt.write_text(receipt.read_text().replace(scope, scope + "x"))
    bad = CliRunner().invoke(cli, ["verify-receipt", str(receipt), "--public-key", str(key)])
    assert bad.exit_code == 1, bad.output

    writer = {**env, "AIMEM_API_KEY": keyed.writer}
    refused = CliRunner().invoke(cli, ["erase", "--scope", scope, "--reason", "x"], env=writer)
    assert refused.exit_code == 1 and "403 role_forbidden" in refused.stderr
    unconfirmed = CliRunner().invoke(cli, ["erase", "--everything", "--reason", "x"], env=env)
    assert unconfirmed.exit_code == 2


def test_what_the_sdk_sends_and_retries() -> None:
    sent: list[httpx.Request] = []
    answers = iter([503, 201, 503])

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        status = next(answers)
        if status == 503:
            return httpx.Response(503, json={"code": "unavailable", "detail": "down"})
        body = {
            "erasure_id": json.loads(request.content)["erasure_id"],
            "position": 7,
            "memories": 1,
            "interactions": 0,
            "already_done": False,
            "receipt": "/v1/erasures/x",
        }
        return httpx.Response(201, json=body)

    policy = RetryPolicy(max_retries=2, sleep=lambda _: None)
    with MemoryClient(transport=httpx.MockTransport(handler), retries=policy) as c:
        done = c.erase(ids=["m1"], reason="r")
        # The client names the erasure, so the retried POST is the same erasure.
        first, second = (json.loads(r.content) for r in sent)
        assert first == second == {"ids": ["m1"], "reason": "r", "erasure_id": done.erasure_id}
        assert done.erasure_id.startswith("era-")
        with pytest.raises(UnavailableError):
            c.forget_interaction("turn/1", wait=True)
        # A forget of a turn records an erasure each time: not sent twice.
        path = sent[-1].url.raw_path.split(b"?")[0]
        assert sent[-1].method == "DELETE" and path == b"/v1/interactions/turn%2F1"
        assert dict(sent[-1].url.params) == {"wait": "true", "reason": "interaction forgotten"}
        assert len(sent) == 3


def test_the_sdk_verifier_checks_what_the_server_signs() -> None:
    """The signer (service.receipts) and the SDK's verifier agree on what is signed (both
    take the canonical form from ``core.receipt_format``) and on the key's id."""
    from ai_memory.service.receipts import key_id as server_key_id
    from ai_memory.service.receipts import sign_receipt

    private = Ed25519PrivateKey.generate()
    assert key_id(private.public_key()) == server_key_id(private.public_key())
    body = {"b": [1, "é", {"z": None, "a": True}], "a": "x"}
    document = sign_receipt(private, body)
    with pytest.raises(ReceiptInvalidError, match="not an erasure receipt"):
        verify_receipt(document, public_key_pem(private.public_key()))  # signed, not a receipt
