"""The sealing stage: what reaches the bytes, what opens, and what a forget leaves."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ai_memory.adapters.memory.data_key_vault import VaultBacking, memory_vault
from ai_memory.core.data_keys import interaction_key_id, memory_key_id
from ai_memory.core.events import InteractionRecorded, LoggedEvent, MemoryWritten
from ai_memory.core.projection import (
    PutLineage,
    lineage_of,
    project_index,
    project_records,
)
from ai_memory.core.sealing import ALGORITHM, NONCE_BYTES, SealedInteraction, aad, keyed_fingerprint
from ai_memory.serialization import AvroEventSerializer, UndecodableEvent, UnencodableEvent
from ai_memory.serialization.sealer import Sealer
from tests.factories import T0, header, record, written

ROOT = bytes(range(32))
CANARY = "CANARY-3f9c2a"


def sealing() -> tuple[AvroEventSerializer, Sealer]:
    sealer = Sealer(memory_vault(ROOT, VaultBacking()))
    return AvroEventSerializer(sealer=sealer), sealer


def event(memory_id: str = "m1", version: int = 1) -> MemoryWritten:
    rec = record(
        memory_id, f"Alice lives in {CANARY}-content", tags=(f"{CANARY}-tag",), meta={"k": CANARY}
    )
    return written(rec, version=version)


def reframe(s: AvroEventSerializer, frame: bytes, change: Any) -> bytes:
    """The frame with its Avro body changed by ``change`` (an attacker with the log)."""
    name, body = s.transcoder.decode(frame)
    change(body)
    return s.transcoder.encode(name, body)


def test_sealed_bytes_hold_no_personal_field_and_decode_to_the_same_event() -> None:
    s, sealer = sealing()
    e = event()
    frame = s.encode(e)
    assert CANARY.encode() not in frame
    assert e.content_sha256.encode() not in frame  # no plain hash: a dictionary oracle
    key = sealer.vault.get("default", memory_key_id("m1"))
    assert key is not None
    assert keyed_fingerprint(key, e.record.content).encode() in frame
    assert s.decode(frame) == e
    plain = AvroEventSerializer()  # a reader without the vault sees only the clear fields
    clear = plain.decode(frame)
    assert isinstance(clear, MemoryWritten)
    assert clear.record.content == "" and clear.record.tags == () and clear.record.meta == {}
    assert clear.record.scope == e.record.scope and clear.version == 1


def test_every_version_of_a_memory_uses_one_key_and_a_fresh_nonce() -> None:
    s, _ = sealing()
    one, two = s.encode(event(version=1)), s.encode(event(version=2))
    a, b = s.decode(one), s.decode(two)
    assert isinstance(a, MemoryWritten) and isinstance(b, MemoryWritten)
    _, body_one = s.transcoder.decode(one)
    _, body_two = s.transcoder.decode(two)
    assert body_one["encryption"]["key_id"] == body_two["encryption"]["key_id"]
    assert body_one["encryption"]["nonce"] != body_two["encryption"]["nonce"]


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(
            lambda b: b["encryption"].update(
                ciphertext=bytes([b["encryption"]["ciphertext"][0] ^ 1])
                + b["encryption"]["ciphertext"][1:]
            ),
            id="ciphertext",
        ),
        pytest.param(
            lambda b: b["encryption"].update(nonce=bytes(12)),
            id="nonce",
        ),
        pytest.param(lambda b: b.update(version=b["version"] + 1), id="aad-version"),
        pytest.param(lambda b: b.update(tenant="globex"), id="aad-tenant"),
    ],
)
def test_a_tampered_sealed_event_does_not_open(tamper: Any) -> None:
    s, _ = sealing()
    frame = reframe(s, s.encode(event()), tamper)
    with pytest.raises(UndecodableEvent) as e:
        s.decode(frame)
    assert e.value.reason in ("unsealable", "key_missing")


def test_a_ciphertext_moved_onto_another_memory_does_not_open() -> None:
    s, _ = sealing()
    s.encode(event("m2"))  # m2 has a key of its own
    _, victim = s.transcoder.decode(s.encode(event("m1")))

    def move(body: dict[str, Any]) -> None:
        body["record"]["id"] = "m2"
        body["encryption"] = victim["encryption"]  # m1's ciphertext, even with m1's key id

    with pytest.raises(UndecodableEvent) as e:
        s.decode(reframe(s, s.encode(event("m2")), move))
    assert e.value.reason == "unsealable"

    def move_with_key(body: dict[str, Any]) -> None:  # and naming m2's own key
        body["record"]["id"] = "m2"
        body["encryption"] = {**victim["encryption"], "key_id": memory_key_id("m2")}

    with pytest.raises(UndecodableEvent):
        s.decode(reframe(s, s.encode(event("m2")), move_with_key))


def test_after_the_key_is_destroyed_the_event_decodes_as_content_that_no_longer_exists() -> None:
    s, sealer = sealing()
    frame = s.encode(event())
    sealer.forget("default", memory_key_id("m1"))
    gone = s.decode(frame)
    assert isinstance(gone, MemoryWritten) and gone.sealed
    assert gone.record.content == "" and gone.record.tags == ()
    logged = LoggedEvent(7, gone)
    # No record and no index point; the lineage entry (metadata, no content) stays.
    assert all(isinstance(m, PutLineage) for m in project_records(logged))
    assert project_index(logged) == []
    assert lineage_of(logged) and CANARY not in repr(lineage_of(logged))
    assert s.decode(s.encode(gone)) == gone  # re-encoding passes the sealed event through
    with pytest.raises(UnencodableEvent):  # nothing new is sealed under a destroyed id
        s.encode(event(version=2))


def test_a_key_the_vault_never_had_is_a_loud_failure_not_a_forget() -> None:
    s, _ = sealing()
    frame = s.encode(event())
    other, _ = sealing()  # another vault: as if vault.db were lost
    with pytest.raises(UndecodableEvent) as e:
        other.decode(frame)
    assert e.value.reason == "key_missing"


def interaction(interaction_id: str = "i1") -> InteractionRecorded:
    return InteractionRecorded(
        header=header(),
        interaction_id=interaction_id,
        scope="user:alice",
        source_agent="agent-a",
        session_id="s1",
        text=f"I moved to {CANARY}-city",
        at=T0,
        extraction_json=json.dumps({"memories": [{"content": f"lives in {CANARY}-city"}]}),
    )


def test_an_interaction_is_sealed_under_a_key_of_its_own() -> None:
    s, sealer = sealing()
    e = interaction()
    frame = s.encode(e)
    assert CANARY.encode() not in frame
    assert s.decode(frame) == e
    _, body = s.transcoder.decode(frame)
    assert body["encryption"]["key_id"] == interaction_key_id("i1")
    assert body["text"] == "" and body["extraction_json"] is None
    with pytest.raises(UndecodableEvent):  # moved onto another interaction
        s.decode(reframe(s, frame, lambda b: b.update(interaction_id="i2")))
    sealer.forget("default", interaction_key_id("i1"))
    gone = s.decode(frame)
    assert isinstance(gone, InteractionRecorded) and gone.sealed and gone.text == ""


def test_an_interactions_session_is_sealed_with_it_and_gone_with_its_key() -> None:
    """A session id is the caller's handle on a conversation (often a user's): it goes
    into the ciphertext, the clear field is null, and once the turn's key is destroyed no
    reader of the log gets it back."""
    s, sealer = sealing()
    session = f"{CANARY}-session"
    e = replace(interaction(), session_id=session)
    frame = s.encode(e)
    assert session.encode() not in frame
    _, body = s.transcoder.decode(frame)
    assert body["session_id"] is None
    assert s.decode(frame) == e  # opened: the session is back
    clear = AvroEventSerializer().decode(frame)  # a reader without the vault
    assert isinstance(clear, InteractionRecorded) and clear.session_id is None
    sealer.forget("default", interaction_key_id("i1"))
    gone = s.decode(frame)
    assert isinstance(gone, InteractionRecorded) and gone.sealed and gone.session_id is None


def test_a_turn_without_a_session_opens_without_one() -> None:
    s, _ = sealing()
    e = replace(interaction(), session_id=None)
    assert s.decode(s.encode(e)) == e


def test_a_turn_sealed_before_sessions_were_sealed_keeps_its_clear_session() -> None:
    """Written by the previous release: text and extraction sealed (``{"x","e"}``), the
    session in the clear field. It still decodes, with its session, and the plaintext
    layout it was sealed with still parses."""
    s, sealer = sealing()
    e = interaction()
    tenant = e.header.tenant
    key_id, key = sealer.vault.issue_many(tenant, [interaction_key_id("i1")])[
        interaction_key_id("i1")
    ]
    old_plain = json.dumps({"x": e.text, "e": e.extraction_json}).encode()
    nonce = b"\x07" * NONCE_BYTES
    body = {
        **s.mapper.to_dict(e),
        "text": "",
        "extraction_json": None,
        "session_id": "s1",  # the clear session of the old layout
        "encryption": {
            "key_id": key_id,
            "algorithm": ALGORITHM,
            "nonce": nonce,
            "ciphertext": AESGCM(key).encrypt(
                nonce, old_plain, aad(tenant, "InteractionRecorded", "i1", 0)
            ),
        },
    }
    frame = s.transcoder.encode("InteractionRecorded", body)
    assert s.decode(frame) == e
    assert SealedInteraction.parse(old_plain) == SealedInteraction(e.text, e.extraction_json)


@pytest.mark.parametrize("session", [1, ["s"], {"s": 1}])
def test_a_sealed_session_of_the_wrong_type_does_not_parse(session: object) -> None:
    data = json.dumps({"x": "t", "e": None, "s": session}).encode()
    with pytest.raises(ValueError):
        SealedInteraction.parse(data)


class _OutageVault:
    """A vault that can be switched off, as when Cassandra is down."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.down = False

    def __getattr__(self, name: str) -> Any:
        from ai_memory.core.errors import Unavailable

        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                raise Unavailable("the vault is unreachable")
            return attr(*args, **kwargs)

        return call


def test_a_known_memory_is_sealed_with_its_key_while_the_vault_is_down() -> None:
    """stale-if-error on the sealing side: a key read within ``cache_seconds +
    stale_seconds`` seals new versions while the vault is unreachable and is re-armed so
    this process opens what it just sealed; a new memory, an older key, and opening with
    a key nothing re-armed are refused with Unavailable (retry), never a guess."""
    from ai_memory.core.errors import Unavailable

    now = [1_000.0]
    vault = _OutageVault(memory_vault(ROOT, VaultBacking()))
    sealer = Sealer(vault, cache_seconds=5, stale_seconds=300, clock=lambda: now[0])
    s = AvroEventSerializer(sealer=sealer)
    first = s.encode(event("m1"))
    vault.down = True
    now[0] += 60  # past the cache TTL, within the stale window
    with pytest.raises(Unavailable):
        s.decode(first)  # opening alone never reaches for a stale key
    v2 = event("m1", version=2)
    sealer.prepare([v2])  # does not raise: its key is known
    second = s.encode(v2)
    assert sealer.stale_seals == 1
    assert s.decode(second) == v2  # re-armed: the guard's decode-back opens it
    with pytest.raises(Unavailable):
        sealer.prepare([event("m2")])  # a new memory needs the vault
    with pytest.raises(Unavailable):
        s.encode(event("m2"))
    now[0] += 250  # 310 s after the last read that reached the vault: too old
    with pytest.raises(Unavailable):
        s.encode(event("m1", version=3))
    vault.down = False
    assert AvroEventSerializer(sealer=Sealer(vault)).decode(second) == v2  # the real key


@pytest.mark.parametrize("prepared", [False, True], ids=["sealing", "proving"])
def test_the_append_pipeline_answers_a_vault_outage_with_unavailable_not_422(
    prepared: bool,
) -> None:
    """The pipeline seals every event and decodes it back; a vault it cannot reach on
    either step is an outage (503, retry), never an ``unprojectable_event`` the client
    would give up on."""
    from ai_memory.adapters.memory.event_log import MemoryEventLog
    from ai_memory.adapters.projectability import ProjectabilityCheck
    from ai_memory.core.errors import Unavailable
    from ai_memory.service.append_pipeline import AppendPipeline

    vault = _OutageVault(memory_vault(ROOT, VaultBacking()))
    sealer = Sealer(vault)
    writing = AvroEventSerializer(sealer=sealer)
    # The proof reads with a serializer whose keys are not cached: it asks the vault.
    reading = AvroEventSerializer(sealer=Sealer(vault, cache_seconds=0, stale_seconds=0))
    log = MemoryEventLog(writing)
    pipeline = AppendPipeline(log, writing, ProjectabilityCheck(reading))
    if prepared:
        sealer.prepare([event("m1")])  # sealing is served from the cache; proving is not
    vault.down = True
    with pytest.raises(Unavailable):
        pipeline.append([event("m1")])
    assert log.last_position() == 0


def test_a_destroyed_key_is_not_revived_by_a_vault_outage() -> None:
    """A forget in this process evicts the key: with the vault down afterwards, nothing
    stale is left to seal with."""
    from ai_memory.core.errors import Unavailable

    now = [1_000.0]
    vault = _OutageVault(memory_vault(ROOT, VaultBacking()))
    sealer = Sealer(vault, cache_seconds=5, stale_seconds=300, clock=lambda: now[0])
    s = AvroEventSerializer(sealer=sealer)
    s.encode(event("m1"))
    sealer.forget("default", memory_key_id("m1"))
    vault.down = True
    with pytest.raises(Unavailable):
        s.encode(event("m1", version=2))


def test_a_forget_asked_during_the_outage_leaves_no_stale_key_to_seal_with() -> None:
    """The destroy fails (the vault is down) but the key has left this process's cache
    first, so no later write of the memory is sealed with it stale."""
    from ai_memory.core.errors import Unavailable

    now = [1_000.0]
    vault = _OutageVault(memory_vault(ROOT, VaultBacking()))
    sealer = Sealer(vault, cache_seconds=5, stale_seconds=300, clock=lambda: now[0])
    s = AvroEventSerializer(sealer=sealer)
    s.encode(event("m1"))
    vault.down = True
    now[0] += 10
    with pytest.raises(Unavailable):
        sealer.forget("default", memory_key_id("m1"))
    with pytest.raises(Unavailable):
        s.encode(event("m1", version=2))
    assert sealer.stale_seals == 0
