"""``service.position_tokens``: what a caller is shown of positions and cursors, and how
what it sends back is refused when it is not its own."""

from __future__ import annotations

import base64

import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.service.position_tokens import PositionTokens

TOKENS = PositionTokens(b"s" * 32)
HEAD = 1_000


def check(position: int, field: str) -> None:
    """``check_position`` of a log whose head is ``HEAD``."""
    if position > HEAD:
        raise InvalidInput(field, "beyond_head", f"{field} {position} is beyond {HEAD}")


def test_a_tenant_reaches_its_own_tokens_and_not_anothers() -> None:
    for position in (1, 7, HEAD):
        token = TOKENS.shown("acme", position)
        assert TOKENS.reachable("acme", token, check) == position
        with pytest.raises(InvalidInput) as e:
            TOKENS.reachable("initech", token, check)
        refused = e.value
        assert (refused.field, refused.code) == ("min_position", "position_beyond_head")
        # It names what was sent — not the position that decoded to, not the head.
        assert str(token) in refused.message and str(HEAD) not in refused.message


@pytest.mark.parametrize("made_up", [1, 2, 2**52 - 1, 2**52, 2**62])
def test_a_made_up_token_is_refused_like_a_position_beyond_the_head(made_up: int) -> None:
    with pytest.raises(InvalidInput) as e:
        TOKENS.reachable("acme", made_up, check)
    assert e.value.code == "position_beyond_head" and str(made_up) in e.value.message


def test_zero_is_no_wait_and_answers_hide_positions_at_the_top_level_only() -> None:
    assert TOKENS.reachable("acme", 0, check) == 0 and TOKENS.shown("acme", 0) == 0
    body = {"position": 5, "recall_position": 6, "record": {"meta": {"position": 5}}}
    shown = TOKENS.shown_in("acme", body, ["position", "recall_position"])
    assert shown["position"] == TOKENS.shown("acme", 5)
    assert shown["recall_position"] == TOKENS.shown("acme", 6)
    assert shown["record"] == {"meta": {"position": 5}}  # a memory's own fields stay


def test_cursors_are_sealed_bound_to_a_tenant_and_a_kind() -> None:
    cursor = TOKENS.seal_cursor("c1", "acme", {0: 41, 3: 7})
    assert TOKENS.open_cursor("c1", "acme", cursor) == {0: 41, 3: 7}
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    assert not raw.startswith(b"c1|") and b"acme" not in raw  # nothing readable inside
    for kind, tenant, text in (
        ("c1", "initech", cursor),  # another tenant's
        ("a1", "acme", cursor),  # another endpoint's
        ("c1", "acme", cursor[:-2] + ("A" if cursor[-2] != "A" else "B") + cursor[-1]),
        ("c1", "acme", base64.urlsafe_b64encode(b"c1|acme|0000:0000000000000001").decode()),
    ):
        with pytest.raises(ValueError):
            TOKENS.open_cursor(kind, tenant, text)
    # Fixed width: a cursor far along the log is as long as one at its start.
    assert len(TOKENS.seal_cursor("c1", "acme", {0: 2**51})) == len(
        TOKENS.seal_cursor("c1", "acme", {0: 1})
    )


def test_without_a_secret_positions_are_shown_as_they_are() -> None:
    plain = PositionTokens(None)
    assert plain.shown("acme", 42) == 42 and plain.taken("initech", 42) == 42
    assert plain.open_cursor("c1", "acme", plain.seal_cursor("c1", "acme", {0: 3})) == {0: 3}
