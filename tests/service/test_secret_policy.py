"""The secret policy on every write the service takes: refused (nothing stored, the field
and kind named, the credential never echoed), redacted before the event is built (the
log never holds it), or allowed — per tenant."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.errors import InvalidInput, NotFound
from ai_memory.core.secrets import SecretPolicy
from ai_memory.service.memory_service import MemoryService
from ai_memory.service.secret_policy import SecretGuard
from ai_memory.service.transfer import ImportSession
from ai_memory.settings import Settings
from tests.factories import use_secret_policy, writing_of

KEY = "AKIAIOSFODNN7EXAMPLE"
DSN = "postgres://app:Sup3rS3cret@db.internal/prod"
BODY = {"type": "fact", "scope": "user:alice", "source_agent": "a"}


def use(
    monkeypatch: pytest.MonkeyPatch, container: Container, policy: SecretPolicy
) -> MemoryService:
    use_secret_policy(monkeypatch, container, policy)  # every service that screens a write
    return container.service


def logged(container: Container, tenant: str) -> str:
    """Everything the log holds for ``tenant``, as text."""
    events = container.log.read(after=0, limit=1_000_000)
    return "\n".join(repr(e.event) for e in events if e.event.header.tenant == tenant)


def test_refuse_names_field_and_kind_and_stores_nothing(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "refuse")
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"content": f"the key is {KEY}"}, "content", "aws_key"),
        ({"content": "ok", "tags": ["x", KEY]}, "tags", "aws_key"),
        ({"content": "ok", "meta": {"notes": f"db at {DSN}"}}, "meta.notes", "connection_string"),
        (
            {"content": "ok", "meta": {"db": {"password": "s3cr3t-Pa55"}}},
            "meta.db.password",
            "credential",
        ),
        (
            {"content": "ok", "meta": {"list": ["fine", f"Bearer {'a1' * 12}"]}},
            "meta.list[1]",
            "bearer_token",
        ),
        ({"content": "ok", "source_agent": KEY}, "source_agent", "aws_key"),
    ]
    for n, (fields, field, kind) in enumerate(cases):
        with pytest.raises(InvalidInput) as caught:
            svc.write(tenant, {**BODY, "id": f"m{n}", **fields})
        e = caught.value
        assert (e.code, e.field, e.rule) == ("secret_detected", field, "no_secrets"), fields
        assert kind in e.message and "nothing was stored" in e.message
        for secret in (KEY, "Sup3rS3cret", "s3cr3t-Pa55", "a1" * 12):
            assert secret not in str(e) and secret not in repr(e.args)
        with pytest.raises(NotFound):
            svc.get(tenant, f"m{n}")
    assert logged(container, tenant) == ""


def test_redact_replaces_before_the_event_and_says_where(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "redact")
    body = {
        **BODY,
        "content": f"deploy with {KEY} against {DSN}",
        "tags": ["ops", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
        "meta": {"db_password": "s3cr3t-Pa55", "ok": 1, "nested": {"x": "password=hunter22"}},
    }
    result = svc.write(tenant, body, memory_id="r1", wait=True)
    assert result.redacted == ("content", "tags", "meta.db_password", "meta.nested.x")
    assert result.to_json()["redacted"] == list(result.redacted)
    record = svc.get(tenant, "r1").record
    assert record.content == (
        "deploy with [REDACTED:aws_key] against "
        "postgres://app:[REDACTED:connection_string]@db.internal/prod"
    )
    assert record.tags == ("ops", "[REDACTED:github_token]")
    assert record.meta == {
        "db_password": "[REDACTED:credential]",
        "ok": 1,
        "nested": {"x": "password=[REDACTED:credential]"},
    }
    history = logged(container, tenant)
    for secret in (KEY, "Sup3rS3cret", "s3cr3t-Pa55", "hunter22", "ghp_abc"):
        assert secret not in history
    # The same text again is the same redacted record: unchanged, no new event.
    again = svc.write(tenant, body, memory_id="r1")
    assert (again.changed, again.redacted) == (False, result.redacted)
    # A clean write answers as it always did.
    assert "redacted" not in svc.write(tenant, {**BODY, "content": "tea"}).to_json()


def test_redact_still_refuses_a_credential_in_an_identifier(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "redact")
    for fields, field in (
        ({"id": f"id-{KEY}"}, "id"),
        ({"scope": f"user:{KEY}"}, "scope"),
        ({"meta": {KEY: "x"}}, "meta"),
    ):
        with pytest.raises(InvalidInput) as caught:
            svc.write(tenant, {**BODY, "content": "ok", **fields})
        assert (caught.value.code, caught.value.field) == ("secret_detected", field)
        assert "identifier" in caught.value.message and KEY not in str(caught.value)


def test_allow_stores_as_sent(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "allow")
    result = svc.write(tenant, {**BODY, "content": f"sample {KEY}"}, memory_id="a1", wait=True)
    assert result.redacted == () and svc.get(tenant, "a1").record.content == f"sample {KEY}"


def test_the_policy_is_per_tenant() -> None:
    guard = SecretGuard("refuse", {"lab": "allow", "acme": "redact"})
    assert [guard.policy(t) for t in ("default", "lab", "acme")] == ["refuse", "allow", "redact"]
    settings = Settings(secret_policy="redact", secret_policy_by_tenant={"lab": "allow"})
    assert (settings.secret_policy, settings.secret_policy_by_tenant) == (
        "redact",
        {"lab": "allow"},
    )
    assert Settings().secret_policy == "refuse"


def test_settings_read_the_policy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMEM_SECRET_POLICY", "redact")
    monkeypatch.setenv("AIMEM_SECRET_POLICY_BY_TENANT", '{"lab": "allow", "acme": "refuse"}')
    settings = Settings.from_env()
    assert settings.secret_policy == "redact"
    assert settings.secret_policy_by_tenant == {"lab": "allow", "acme": "refuse"}
    monkeypatch.setenv("AIMEM_SECRET_POLICY_BY_TENANT", '{"lab": "maybe"}')
    with pytest.raises(ValueError, match=r"secret_policy_by_tenant\.lab"):
        Settings.from_env()


def test_batch_refuses_the_item_and_writes_the_others(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "refuse")
    items = [
        {**BODY, "id": "b0", "content": "clean"},
        {**BODY, "id": "b1", "content": "clean", "meta": {"notes": DSN}},
        {**BODY, "id": f"b-{KEY}", "content": "clean"},
    ]
    results = svc.write_many(tenant, items, wait=True)
    assert [r.status for r in results] == [201, 422, 422]
    assert results[1].id == "b1" and results[2].id is None  # the id held the credential
    problems = [r.to_json().get("problem", {}) for r in results]
    assert (
        problems[1]["code"] == "secret_detected" and problems[1]["field"] == "items[1].meta.notes"
    )
    assert problems[2]["field"] == "items[2].id"
    assert "Sup3rS3cret" not in json.dumps(problems) and KEY not in json.dumps(problems)
    svc.get(tenant, "b0")
    with pytest.raises(NotFound):
        svc.get(tenant, "b1")


def test_batch_redacts_per_item(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "redact")
    items = [{**BODY, "id": "c0", "content": "clean"}, {**BODY, "id": "c1", "content": DSN}]
    results = svc.write_many(tenant, items, wait=True)
    assert [r.to_json().get("redacted") for r in results] == [None, ["content"]]
    assert "Sup3rS3cret" not in svc.get(tenant, "c1").record.content


def test_import_rejects_or_redacts_the_line(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        json.dumps({"kind": "record", "record": {**BODY, "id": "i0", "content": "clean"}}),
        json.dumps({"kind": "record", "record": {**BODY, "id": "i1", "content": f"k {KEY}"}}),
    ]

    def run(policy: SecretPolicy, target: str) -> dict[str, Any]:
        svc = use(monkeypatch, container, policy)
        session = ImportSession(writing_of(svc), target)
        session.feed(list(enumerate(lines, start=1)))
        return session.finish(wait=True).to_json()

    refused = run("refuse", tenant)
    assert (refused["written"], refused["rejected"], refused["redacted"]) == (1, 1, 0)
    (error,) = refused["errors"]
    assert (error["line"], error["code"], error["field"]) == (2, "secret_detected", "content")
    assert KEY not in json.dumps(refused) and KEY not in logged(container, tenant)

    redacted = run("redact", f"{tenant}-r")
    assert (redacted["written"], redacted["rejected"], redacted["redacted"]) == (2, 0, 1)
    stored = container.service.get(f"{tenant}-r", "i1").record.content
    assert stored == "k [REDACTED:aws_key]"


def test_notes_and_interactions_obey_the_policy(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, container, "refuse")
    with pytest.raises(InvalidInput) as caught:
        container.notes.save(tenant, "bot", "deploy", "login with password=hunter22")
    assert (caught.value.code, caught.value.field) == ("secret_detected", "note")
    with pytest.raises(InvalidInput) as caught:
        container.governance.record_interaction(
            tenant, {"scope": "user:alice", "source_agent": "a", "text": f"my key is {KEY}"}
        )
    assert (caught.value.code, caught.value.field) == ("secret_detected", "text")
    assert logged(container, tenant) == ""

    use(monkeypatch, container, "redact")
    saved = container.notes.save(tenant, "bot", "deploy", "login with password=hunter22")
    assert saved.redacted == ("note",)
    assert container.service.get(tenant, saved.id).record.content == (
        "login with password=[REDACTED:credential]"
    )
    result = container.governance.record_interaction(
        tenant,
        {"scope": "user:alice", "source_agent": "a", "text": f"I prefer tea. My key is {KEY}"},
        wait=True,
    )
    assert result.to_json()["redacted"] == ["text"]
    assert KEY not in logged(container, tenant)


def test_a_forget_reason_is_free_text_too(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = use(monkeypatch, container, "refuse")
    svc.write(tenant, {**BODY, "content": "tea"}, memory_id="f1", wait=True)
    with pytest.raises(InvalidInput) as caught:
        svc.delete(tenant, "f1", actor="a", reason=f"leaked {KEY}")
    assert (caught.value.code, caught.value.field) == ("secret_detected", "reason")
    svc.get(tenant, "f1")  # still there
    svc = use(monkeypatch, container, "redact")
    svc.delete(tenant, "f1", actor="a", reason=f"leaked {KEY}", wait=True)
    assert KEY not in logged(container, tenant)


def test_an_erasure_reason_outlives_the_erasure_so_it_is_screened_too(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reason stays on ``SubjectErased`` (and its tombstones) after every key is
    destroyed: an operator's note, under the tenant's secret policy like any free text."""
    erasures = container.services.erasures
    assert erasures is not None
    svc = use(monkeypatch, container, "refuse")
    svc.write(tenant, {**BODY, "content": "tea"}, memory_id="e1", wait=True)
    asked = {"scope": "user:alice", "reason": f"asked by {KEY}", "erasure_id": "era-1"}
    with pytest.raises(InvalidInput) as caught:
        erasures.erase(tenant, erasures.parse(asked), actor="ops")
    assert (caught.value.code, caught.value.field) == ("secret_detected", "reason")
    svc.get(tenant, "e1")  # nothing was erased
    use(monkeypatch, container, "redact")
    erasures.erase(tenant, erasures.parse(asked), actor="ops", wait=True)
    assert KEY not in logged(container, tenant)


def test_an_import_source_is_a_name_on_the_log_so_a_credential_there_is_refused(
    container: Container, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, container, "redact")  # a name cannot be redacted meaningfully
    with pytest.raises(InvalidInput) as caught:
        container.services.transfer.begin_import(tenant, source=f"dump-{KEY}")
    assert (caught.value.code, caught.value.field) == ("secret_detected", "source")
    assert KEY not in logged(container, tenant)
    session = container.services.transfer.begin_import(tenant, source="mem0")
    session.feed([(1, json.dumps({**BODY, "id": "i1", "content": "tea"}))])
    assert session.finish(wait=True).written == 1
