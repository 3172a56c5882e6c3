"""The detector's shortcuts answer what its full scans answer. ``find_plain`` skips its
seventeen patterns when the text holds none of the pieces they need, and
``find_disguised`` skips its views when nothing in the text could be undone: for text
built from the pieces the patterns, views and shortcuts turn on (provider prefixes,
credential words, separators, encodings, the letters other than A–Z a case-insensitive
pattern matches, full-width forms, invisibles, whitespace of every kind), both give
exactly the full scan's findings."""

from __future__ import annotations

import base64
import string
from urllib.parse import quote

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ai_memory.core.secret_disguise import find_disguised, undo_disguises
from ai_memory.core.secrets import find_plain, find_secrets, none_hold_secrets, scan_plain

SECRETS = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    *(f"gh{c}_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" for c in "ousr"),
    "rk_test_51HabcdefghijKLMNOP",
    "ASIAIOSFODNN7EXAMPLE",
    "github_pat_11ABCDEFG0123456789abcdefghijklmnop",
    "glpat-xYz12AbC3dEf45GhIj6K",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "sk-ant-api03-AbC1dEf2GhI3jKl4MnO5pQr6",
    "sk-proj-AbC1dEf2GhI3jKl4MnO5pQr6sT7",
    "sk_live_51HabcdefghijKLMNOP",
    "xoxp-1234567890-abcdefghij",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "password=Hunter2!x9",
    "api_key: 'Zq8#mP2$vL9'",
    "Authorization: Basic dXNlcjpwYXNzd29yZA==",
    "Bearer abcDEF1234567890xyz",
    "postgres://app:s3cr3tPass@db/prod",
    "pwd=Zq8#mP2vL9",
    "my credential is Zq8#mP2$vL9!xY7@wQ3",
    "private_key = 'Zq8#mP2$vL9x'",
    "the ACCESS-KEY: Zq8#mP2$vL9!xY7@wQ3",
    "token: Zq8#mP2$vL9x",
    "passphrase=Zq8#mP2$vL9",
    "secret=Zq8#mP2vL9",
    "the secret is Zq8#mP2$vL9!xY7@wQ3",
    "my pwd is Zq8#mP2$vL9!xY7@wQ3",
    "the password is Zq8#mP2$vL9!xY7@wQ3",
    "a passphrase, Zq8#mP2$vL9!xY7@wQ3",
    "the token is Zq8#mP2$vL9!xY7@wQ3",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
]
# What the pieces of ``SECRETS`` become in disguise.
DISGUISED = [
    *(base64.b64encode(s.encode()).decode() for s in SECRETS[:6]),
    *(s.encode().hex() for s in SECRETS[:4]),
    *(quote(s, safe="") for s in SECRETS[14:16]),
    "AKIA IOSF ODNN 7EXA MPLE",
    "akia-iosf-odnn-7exa-mple",
    "GHP_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ",
    "gh\u200bp_abcdefghijklmnopqrstuvwxyz0123456789",
    "XOXB-1234567890",
    "XOXB-abcdefghij",
]
PIECES = [
    "akia",
    "ASIA",
    "ghp_",
    "github_pat_",
    "glpat-",
    "hf_",
    "sk-",
    "sk_",
    "rk_",
    "xox",
    "AIza",
    "eyJ",
    "-----BEGIN ",
    "begin",
    "authorization",
    "bearer",
    "://",
    "@",
    "pass",
    "PaSsWoRd",
    "pwd",
    "secret",
    "token",
    "api key",
    "credential",
    "key",
    "=",
    ":",
    "%41",
    "%",
    "0123456789abcdef0123",
    "Zm9vYmFyYmF6cXV4",
    "paſſword",
    "toKen",
    "ıd",
    "İ",
    "\u200b",
    "\u00ad",
    "\u00a0",
    "\u3000",
    "—",
    "’",
    "é",
    "e\u0301",
    "\t",
    "\n",
    "  ",
    " ",
    ".",
    "-",
    "_",
    "/",
    "+",
    "==",
    "7",
    "42",
]
ALPHABET = string.ascii_letters + string.digits + " .-_/+=:%@'\"\n\tſıİ\u212aＡ７\u200b—’"
TEXTS = st.lists(
    st.one_of(
        st.sampled_from(SECRETS + DISGUISED),
        st.sampled_from(PIECES),
        st.text(alphabet=ALPHABET, max_size=12),
    ),
    max_size=10,
).map("".join)


@settings(max_examples=1500)
@given(TEXTS)
@example("scale-0")
@example("Olu wants dark mode dashboards (noted in session 0).")
@example("the paſſword is Zq8#mP2$vL9x")
@example("AUTHORİZATİON: Basic dXNlcjpwYXNzd29yZA==")
@example("a K\u212aey: Zq8#mP2$vL9x")
def test_the_shortcuts_find_what_the_full_scans_find(text: str) -> None:
    assert find_plain(text) == scan_plain(text)
    assert find_disguised(text, find_plain) == undo_disguises(text, scan_plain)


def test_the_shortcuts_still_find_every_sample() -> None:
    # Not vacuous: each sample, alone and in prose, is found through the shortcuts, and
    # each scan's shortcut agrees with it on every one.
    for sample in SECRETS + DISGUISED:
        for text in (sample, f"note: {sample} ok", f"note — keep it: {sample} ’ok’"):
            assert find_secrets(text), text
            assert find_plain(text) == scan_plain(text), text
            assert find_disguised(text, find_plain) == undo_disguises(text, scan_plain), text


@settings(max_examples=800)
@given(st.lists(TEXTS, max_size=6))
@example(["ghp_abcdefghijklmnop", "qrstuvwxyz0123456789"])  # a token cut in two
@example(["sk", "7", "scale"])
def test_what_the_joined_shortcut_clears_every_text_clears(texts: list[str]) -> None:
    assert_each_clear_when_joined_clears(texts)


def assert_each_clear_when_joined_clears(texts: list[str]) -> None:
    """What ``none_hold_secrets`` clears, every text's full scans find nothing in."""
    if none_hold_secrets(texts):
        for text in texts:
            assert find_secrets(text) == [], text
            assert scan_plain(text) == [] and undo_disguises(text, scan_plain) == [], text


def test_the_joined_shortcut_clears_prose_and_never_a_sample() -> None:
    # Not vacuous: it takes the short way for ordinary records, never for a credential.
    assert none_hold_secrets(["m-1", "user:alice", "agent-a", "Alice prefers tea.", "diet"])
    for sample in SECRETS + DISGUISED:
        assert not none_hold_secrets(["m-1", "user:alice", f"note: {sample} ok"]), sample


# Characters whose views differ from themselves: NFKC expansions (ligatures, units,
# full-width and circled forms), format characters a view drops, whitespace it folds,
# letters whose case mapping needs context or grows, combining marks, CJK, NUL itself.
NOT_ASCII = "ﬁ㎏ＡＧＨＰ７①\u200b\u200d\xad\u3000\xa0\u2028ΣσςİıſK\u0301\u0308记忆密码令牌—’é\x00"
MIXED = st.lists(
    st.one_of(
        st.sampled_from(SECRETS + DISGUISED + PIECES),
        st.text(alphabet=ALPHABET + NOT_ASCII, max_size=12),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=1500)
@given(st.lists(MIXED, max_size=5))
@example(["ｇｈｐ", "_abcdefghijklmnopqrstuvwxyz0123456789"])  # a full-width prefix, cut
@example(["记忆：用户喜欢绿茶", "user:alice", "Σ"])
@example(["ﬁle", "sk", "\u0301-7"])
def test_the_joined_shortcut_clears_every_text_not_in_ascii_too(texts: list[str]) -> None:
    assert_each_clear_when_joined_clears(texts)


def test_the_joined_shortcut_clears_prose_not_in_ascii() -> None:
    assert none_hold_secrets(["m-1", "user:alice", "agent-a", "用户喜欢在下午喝绿茶。", "偏好"])
    assert none_hold_secrets(["m-2", "user:bob", "agent-a", "Lesson 2 — keep WAL mode on’"])
    for sample in SECRETS + DISGUISED:
        assert not none_hold_secrets(["m-1", "记忆", f"备注：{sample} 好的"]), sample
