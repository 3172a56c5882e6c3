"""Scope patterns and the authorization decision, for any principal, action and scope."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.access import ACTIONS, ROLES, AccessPrincipal, authorize, searchable_scopes
from ai_memory.core.access.policy import SCOPED
from ai_memory.core.access.scopes import is_pattern, matches, validate_patterns

kinds = st.sampled_from(["user", "team", "agent", "project", "a", "user-x"])
names = st.text(alphabet="abcdefgh-_.:0123456789", min_size=1, max_size=12).filter(
    lambda n: not n.startswith(":")
)
exact_scopes = st.one_of(st.just("public"), st.builds(lambda k, n: f"{k}:{n}", kinds, names))
patterns = st.one_of(
    st.just("*"), st.builds(lambda k: f"{k}:*", kinds), exact_scopes.filter(is_pattern)
)
principals = st.builds(
    AccessPrincipal,
    tenant=st.just("acme"),
    key_id=st.just("0123456789abcdef"),
    role=st.sampled_from(ROLES),
    scopes=st.lists(patterns, min_size=1, max_size=5).map(validate_patterns),
)


@given(exact_scopes)
def test_star_matches_every_scope_and_an_exact_pattern_only_itself(scope: str) -> None:
    assert matches("*", scope)
    assert matches(scope, scope)


@given(kinds, exact_scopes)
def test_a_kind_wildcard_matches_exactly_that_kind_with_a_name(kind: str, scope: str) -> None:
    expected = scope.startswith(f"{kind}:") and len(scope) > len(kind) + 1
    assert matches(f"{kind}:*", scope) == expected


@given(exact_scopes, exact_scopes)
def test_exact_patterns_are_literal(pattern: str, scope: str) -> None:
    assert matches(pattern, scope) == (pattern == scope)


@given(st.one_of(st.text(max_size=20), st.builds(lambda k: f"{k}:*", st.text(max_size=8))))
def test_a_wildcard_is_only_the_whole_scope_or_a_whole_kind(text: str) -> None:
    if "*" in text and is_pattern(text):
        assert text == "*" or re.fullmatch(r"[a-z][a-z0-9_-]{0,31}:\*", text)


@given(principals, st.sampled_from(ACTIONS), st.one_of(st.none(), exact_scopes))
def test_authorize_is_total_and_explains_every_refusal(
    principal: AccessPrincipal, action: str, scope: str | None
) -> None:
    decision = authorize(principal, action, scope)  # type: ignore[arg-type]
    assert decision == authorize(principal, action, scope)  # type: ignore[arg-type]
    if decision:
        assert decision.code == ""
    else:
        assert decision.code in {"role_forbidden", "scope_forbidden", "scope_required"}
        assert decision.reason


@given(principals, st.sampled_from(ACTIONS), exact_scopes)
def test_what_each_role_may_do(principal: AccessPrincipal, action: str, scope: str) -> None:
    decision = authorize(principal, action, scope)  # type: ignore[arg-type]
    role = principal.role
    if role == "operator":
        assert bool(decision) == (action == "operate")  # never any memory content
        return
    if action == "operate" or (action in ("govern", "manage_keys") and role != "admin"):
        assert decision.code == "role_forbidden"
        return
    if role == "reader" and action in ("write", "forget"):
        assert decision.code == "role_forbidden"
        return
    if role == "admin" or action not in SCOPED:
        assert decision
        return
    in_list = any(matches(p, scope) for p in principal.scopes)
    public_read = action == "read" and scope == "public"
    assert bool(decision) == (in_list or public_read)
    if not decision:
        assert decision.code == "scope_forbidden"


@given(principals)
def test_public_is_readable_by_every_key_that_reads(principal: AccessPrincipal) -> None:
    assert bool(authorize(principal, "read", "public")) == (principal.role != "operator")


@given(principals, st.lists(exact_scopes, max_size=3))
def test_a_search_looks_only_where_the_key_may_read(
    principal: AccessPrincipal, requested: list[str]
) -> None:
    decision, scopes = searchable_scopes(principal, requested or None)
    if not decision:
        assert decision.code in {"role_forbidden", "scope_forbidden", "scope_required"}
        return
    if scopes is None:  # every scope: only for keys that may read every scope
        assert principal.role == "admin" or "*" in principal.scopes
        assert not requested
        return
    for scope in scopes:
        assert authorize(principal, "read", scope)


@given(st.binary(min_size=40, max_size=40), st.from_regex(r"[A-Za-z0-9_-]{43}", fullmatch=True))
def test_an_issued_key_and_only_it_opens(randomness: bytes, guess: str) -> None:
    from datetime import UTC, datetime

    from ai_memory.core.access import check_key, issue_key, parse_key

    chunks = iter([randomness[:8], randomness[8:]])
    now = datetime(2026, 1, 1, tzinfo=UTC)
    issued = issue_key(
        tenant="acme", role="reader", scopes=["*"], name="x", now=now,
        random=lambda n: next(chunks)[:n],
    )  # fmt: skip
    parsed = parse_key(issued.token)
    assert parsed is not None and parsed.key_id == randomness[:8].hex()
    assert check_key(issued.key, parsed, now) is not None
    forged = parse_key(f"aimem_{parsed.key_id}_{guess}")  # the right id, a guessed secret
    assert forged is not None
    assert (check_key(issued.key, forged, now) is None) == (guess != parsed.secret)
