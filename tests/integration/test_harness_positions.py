"""The harnesses compare what a write acknowledged — its tenant's token — with the log
(``loadtest/faults_check.py``, ``loadtest/positions.py``, the benchmarks' waits): they must
decode the token with the deployment's own secret, in every way a deployment keys its
tokens, and a token of another tenant must not pass for the write's position."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from loadtest.faults_check import Logged, Verdict, check_log
from loadtest.faults_load import Outcome, memory_id
from loadtest.positions import Acked, log_positions

from ai_memory.bootstrap import build
from ai_memory.bootstrap.security import position_tokens, root_key
from ai_memory.core.events import MemoryWritten
from ai_memory.core.positions import pack
from ai_memory.sdk import MemoryIn
from ai_memory.sdk.in_process import InProcessClient
from ai_memory.service.position_tokens import PositionTokens
from ai_memory.settings import Settings

DISTRIBUTED = {
    "AIMEM_EVENT_LOG": "kafka://127.0.0.1:1/aimem.harness?partitions=4",
    "AIMEM_RECORD_STORE": "cassandra://127.0.0.1:1/aimem_harness",
}


def _root() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")


def _receipt() -> str:
    seed = Ed25519PrivateKey.generate().private_bytes(
        Encoding.Raw, PrivateFormat.Raw, NoEncryption()
    )
    return base64.b64encode(seed).decode("ascii")


def _gateway_tokens(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> PositionTokens:
    """What a gateway started with ``env`` shows tenants: the settings it reads from its
    environment, the composition root's builder."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    s = Settings.from_env()
    return position_tokens(s, root_key(s))


@pytest.mark.parametrize(
    "keys",
    [
        pytest.param({"AIMEM_ROOT_KEY": _root()}, id="encryption-on-root-key"),
        pytest.param(
            {"AIMEM_ENCRYPTION": "off", "AIMEM_RECEIPT_KEY": _receipt()}, id="off-receipt-key"
        ),
    ],
)
def test_a_distributed_gateways_tokens_decode_to_the_positions_it_wrote(
    keys: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**DISTRIBUTED, **keys, "AIMEM_DATA_DIR": str(tmp_path / "data")}
    shown = _gateway_tokens(env, monkeypatch)
    position_of = log_positions(env)
    positions = [pack(p, offset) for p in range(4) for offset in (0, 1, 7, 12_345, 2**41)]
    positions = [p for p in positions if p]
    tokens = [shown.shown("default", p) for p in positions]
    assert tokens != positions  # the gateway does not show positions: decoding is needed
    assert [position_of(t) for t in tokens] == positions
    # Another tenant's tokens of the same positions are not this tenant's positions.
    theirs = [shown.shown("acme", p) for p in positions]
    assert all(position_of(t) != p for t, p in zip(theirs, positions, strict=True))
    assert [log_positions(env, "acme")(t) for t in theirs] == positions


def test_the_admin_tenant_is_whose_tokens_are_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        **DISTRIBUTED,
        "AIMEM_ROOT_KEY": _root(),
        "AIMEM_DATA_DIR": str(tmp_path),
        "AIMEM_ADMIN_KEY": "aimem_0123456789abcdef_" + "a" * 43,
        "AIMEM_ADMIN_TENANT": "acme",
    }
    token = _gateway_tokens(env, monkeypatch).shown("acme", pack(2, 99))
    assert log_positions(env)(token) == pack(2, 99)


def _write(client: InProcessClient, n: int, version_text: str) -> Outcome:
    body = {
        "content": f"{version_text} {n}",
        "type": "fact",
        "scope": "user:a",
        "source_agent": "a",
    }
    record = MemoryIn.model_validate(body)
    out = client.upsert(memory_id(n), record)
    return Outcome(n, 0, 0.0, 0.0, True, out.record.version, out.position)


def test_the_fault_check_finds_every_acknowledged_write_of_an_embedded_server(
    tmp_path: Path,
) -> None:
    """A real server's acknowledgements checked against its own log: none is lost when
    decoded with its key file; decoded as another tenant's, every one is (the check is
    not vacuous). The check that compared tokens with positions lost them all."""
    data = tmp_path / "data"
    container = build(Settings(data_dir=data))
    try:
        client = InProcessClient(container)
        acked = [_write(client, n, "first") for n in range(6)]
        acked += [_write(client, n, "second") for n in range(3)]
        logged: dict[str, list[Logged]] = {}
        for entry in container.log.read(after=0, limit=1000):
            e = entry.event
            if isinstance(e, MemoryWritten):
                logged.setdefault(e.record.id, []).append(Logged(entry.position, e.version, 0))
    finally:
        container.close()
    assert {o.position for o in acked}.isdisjoint(x.position for xs in logged.values() for x in xs)
    env = {"AIMEM_DATA_DIR": str(data)}
    ours = Verdict()
    check_log(acked, logged, ours, log_positions(env))
    assert (ours.acked, ours.lost, ours.duplicated, ours.reordered, ours.gaps) == (9, 0, 0, 0, 0)
    theirs = Verdict()
    check_log(acked, logged, theirs, log_positions(env, "acme"))
    assert theirs.lost == 9
    # What the check did before tokens were decoded: took a token for a position.
    raw = Verdict()
    check_log(acked, logged, raw, lambda token: token)
    assert raw.lost == 9


def test_acked_keeps_the_highest_decoded_position_per_partition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**DISTRIBUTED, "AIMEM_ROOT_KEY": _root(), "AIMEM_DATA_DIR": str(tmp_path)}
    shown = _gateway_tokens(env, monkeypatch)
    needed = Acked(log_positions(env))
    for position in (pack(0, 5), pack(1, 9), pack(0, 70), pack(1, 3), pack(3, 1)):
        needed.note(shown.shown("default", position))
    needed.note(0)  # "no position" notes nothing
    needed.note(None)
    assert needed == {0: pack(0, 70), 1: pack(1, 9), 3: pack(3, 1)}
