"""For any text around a credential, wherever it sits in a record (content, a tag, a meta
value at any depth): ``redact`` stores a record holding no credential at all, and
``refuse`` refuses it without ever quoting the credential; a record without one passes
both unchanged. Pure: the guard is tried without a log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits, MemoryRecord, parse_record
from ai_memory.core.secrets import find_secrets
from ai_memory.migration.secrets import iter_strings
from ai_memory.service.secret_policy import SecretGuard

NOW = datetime(2026, 3, 12, tzinfo=UTC)
LIMITS = Limits()
SECRETS = st.sampled_from(
    [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "glpat-xYz12AbC3dEf45GhIj6K",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        "sk-ant-api03-AbC1dEf2GhI3jKl4MnO5pQr6",
        "sk_live_51HabcdefghijKLMNOP",
        "xoxp-1234567890-abcdefghij",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5",
    ]
)
WORDS = st.text(st.characters(codec="utf-8", categories=["L", "N", "Zs", "P"]), max_size=40)
WHERE = st.sampled_from(["content", "tag", "meta", "meta_deep", "meta_list"])


def record_with(secret: str, before: str, after: str, where: str) -> MemoryRecord:
    text = f"{before} {secret} {after}"
    body: dict[str, Any] = {
        "type": "fact",
        "scope": "user:alice",
        "source_agent": "a",
        "content": text if where == "content" else "plain words",
        "tags": ["ok", secret] if where == "tag" else ["ok"],
        "meta": {
            "meta": {"note": text},
            "meta_deep": {"a": {"b": {"c": text}}},
            "meta_list": {"items": ["fine", text]},
        }.get(where, {}),
    }
    return parse_record(body, now=NOW, limits=LIMITS)


def strings_of(record: MemoryRecord) -> list[str]:
    return [record.content, *record.tags, *iter_strings(dict(record.meta))]


@given(SECRETS, WORDS, WORDS, WHERE)
def test_redact_leaves_no_credential_and_refuse_never_quotes_it(
    secret: str, before: str, after: str, where: str
) -> None:
    record = record_with(secret, before, after, where)
    screened = SecretGuard("redact").screen("t", record, LIMITS)
    assert screened.redacted
    for text in strings_of(screened.record):
        assert secret not in text and find_secrets(text) == []
    try:
        SecretGuard("refuse").screen("t", record, LIMITS)
    except InvalidInput as e:
        assert e.code == "secret_detected" and secret not in str(e) and secret not in e.field
    else:
        raise AssertionError("refuse let a credential through")
    assert SecretGuard("allow").screen("t", record, LIMITS).record == record


@given(WORDS)
def test_a_record_without_a_credential_passes_unchanged(text: str) -> None:
    body = {"type": "fact", "scope": "user:a", "source_agent": "a", "content": f"note {text}"}
    record = parse_record(body, now=NOW, limits=LIMITS)
    if find_secrets(record.content):
        return  # generated text that happens to be a credential is the other test's case
    for policy in ("refuse", "redact"):
        screened = SecretGuard(policy).screen("t", record, LIMITS)
        assert screened.record == record and screened.redacted == ()
