"""A record is screened for credentials at once when its strings joined show none
(``SecretGuard.screen``'s ``_clean``): the answer — refused with the same field, or the
same record with the same redactions — is the one screening field by field gives, for
records built from credentials, pieces of them, credential names in ``meta`` and prose."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits, MemoryRecord, MemoryType
from ai_memory.service import secret_policy
from ai_memory.service.secret_policy import SecretGuard
from tests.property.test_secret_shortcuts import DISGUISED, MIXED, PIECES, SECRETS, TEXTS

NAMES = ["db_password", "auth_token", "apiKey", "note", "source", "session_id", "x"]
VALUES = st.one_of(TEXTS, MIXED, st.sampled_from(["hunter2", "Zq8#mP2$vL9x", "tea", "7", ""]))
META = st.recursive(
    VALUES | st.integers() | st.booleans() | st.none(),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(NAMES) | st.sampled_from(PIECES), children, max_size=3)
    ),
    max_leaves=8,
)
WORDS = st.one_of(
    TEXTS, MIXED, st.sampled_from(["Alice prefers tea.", "用户喜欢绿茶", *SECRETS, *DISGUISED])
)


def outcome(guard: SecretGuard, record: MemoryRecord) -> Any:
    try:
        screened = guard.screen("acme", record, Limits())
    except InvalidInput as e:
        return ("refused", e.field, e.code, e.rule)
    return (screened.record, screened.redacted)


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(["refuse", "redact"]),
    st.sampled_from(["m-1", "note-ghp_x", "m-7"]),
    WORDS,
    st.lists(WORDS, max_size=3),
    st.dictionaries(st.sampled_from(NAMES), META, max_size=4),
)
def test_screening_at_once_answers_what_screening_each_field_does(
    policy: Any, memory_id: str, content: str, tags: list[str], meta: dict[str, Any]
) -> None:
    record = MemoryRecord(
        id=memory_id,
        type=MemoryType.FACT,
        content=content,
        scope="user:alice",
        source_agent="agent-a",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        tags=tuple(dict.fromkeys(tags)),
        meta=meta,
    )
    guard = SecretGuard(policy)
    at_once = outcome(guard, record)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secret_policy, "_clean", lambda _record: False)
        each = outcome(guard, record)
    assert at_once == each
