"""Credentials in disguise are caught: each obfuscation class the red team used, applied
to generated credentials of every provider shape, inside ordinary prose. A finding must
cover the disguised credential, and redacting must leave nothing of it (scanned again:
clean). Ordinary machine-made strings (UUIDs, hashes, integrity strings) are not secrets.
"""

from __future__ import annotations

import base64
import hashlib
import string
import uuid
from collections.abc import Callable

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from ai_memory.core.secret_disguise import _machine_made, _text_of
from ai_memory.core.secrets import find_secrets, redact

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits


def token(alphabet: str, n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=n, max_size=n)


# Every provider shape the plain detector knows by its prefix, plus an assignment.
CREDENTIALS = st.one_of(
    token(UPPER_DIGITS, 16).map(lambda v: "AKIA" + v),
    token(ALNUM, 36).map(lambda v: "ghp_" + v),
    token(ALNUM, 24).map(lambda v: "glpat-" + v),
    token(ALNUM, 34).map(lambda v: "hf_" + v),
    token(ALNUM, 40).map(lambda v: "sk-ant-api03-" + v),
    token(ALNUM, 40).map(lambda v: "sk-proj-" + v),
    token(ALNUM, 24).map(lambda v: "sk_live_" + v),
    token(ALNUM, 24).map(lambda v: "xoxb-1234-" + v),
    token(ALNUM, 35).map(lambda v: "AIza" + v),
).filter(lambda c: any(ch.isdigit() for ch in c) and any(ch.isalpha() for ch in c[-8:]))
PROSE = st.sampled_from(
    [
        ("here is what you asked for: ", " — keep it safe"),
        ("Remember this for the deploy ", ""),
        ("", " is the one the bot uses"),
        ("note to self (do not share): ", ". Thanks!"),
    ]
)
INVISIBLE = "\u200b\u200c\u200d\u00ad\u2060\ufeff\u200e"


def caught(credential: str, disguised: str, around: tuple[str, str]) -> None:
    before, after = around
    text = before + disguised + after
    found = find_secrets(text)
    span = (len(before), len(before) + len(disguised))
    assert any(f.start < span[1] and span[0] < f.end for f in found), (credential, text)
    cleaned = redact(text)
    assert find_secrets(cleaned) == [], cleaned
    assert credential not in cleaned
    for f in found:  # the disguised credential is gone, not only its prefix
        if f.start < span[1] and span[0] < f.end:
            assert f.start <= span[0] + 2 and f.end >= span[1] - 2, (text, f)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE, st.data())
def test_split_by_invisible_characters(
    credential: str, around: tuple[str, str], data: st.DataObject
) -> None:
    chars = list(credential)
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(1, len(chars) - 1))
        chars.insert(at, data.draw(st.sampled_from(INVISIBLE)))
    caught(credential, "".join(chars), around)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE, st.data())
def test_full_width_letters(credential: str, around: tuple[str, str], data: st.DataObject) -> None:
    wide = data.draw(st.sets(st.integers(0, len(credential) - 1), min_size=1))
    disguised = "".join(
        chr(ord(c) + 0xFEE0) if i in wide and "!" <= c <= "~" else c
        for i, c in enumerate(credential)
    )
    caught(credential, disguised, around)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE, st.sampled_from([str.upper, str.lower, str.swapcase]))
def test_case_changed(
    credential: str, around: tuple[str, str], change: Callable[[str], str]
) -> None:
    caught(credential, change(credential), around)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE, st.integers(3, 6), st.sampled_from([" ", "-", "."]))
@example("AKIAIOSFODNN7EXAMPL3", ("", ""), 4, " ")
def test_regrouped_in_blocks(credential: str, around: tuple[str, str], size: int, sep: str) -> None:
    # A dash inside the credential's own prefix cannot be told from a separator dash.
    assume(sep == " " or "-" not in credential)
    blocks = [credential[i : i + size] for i in range(0, len(credential), size)]
    caught(credential, sep.join(blocks), around)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE, st.sampled_from(["std", "url", "bare"]))
def test_base64_encoded(credential: str, around: tuple[str, str], flavour: str) -> None:
    raw = credential.encode()
    encoded = (base64.urlsafe_b64encode if flavour == "url" else base64.b64encode)(raw).decode()
    caught(credential, encoded.rstrip("=") if flavour == "bare" else encoded, around)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE, st.booleans())
def test_hex_encoded(credential: str, around: tuple[str, str], upper: bool) -> None:
    encoded = credential.encode().hex()
    caught(credential, encoded.upper() if upper else encoded, around)


@settings(max_examples=300)
@given(CREDENTIALS, PROSE)
def test_url_encoded(credential: str, around: tuple[str, str]) -> None:
    caught(credential, "".join(f"%{b:02X}" for b in credential.encode()), around)


@settings(max_examples=300)
@given(st.binary(min_size=30, max_size=30), PROSE)
def test_an_unlabelled_aws_secret_key(raw: bytes, around: tuple[str, str]) -> None:
    key = base64.b64encode(raw).decode()
    assume(_text_of(raw) is None)  # key material, not text
    assume(any(c.isupper() for c in key) and any(c.islower() for c in key))
    assume(any(c.isdigit() for c in key))
    caught(key, key, around)


@settings(max_examples=300)
@given(
    st.sampled_from(["password", "secret", "token", "api key", "access key", "credential"]),
    st.text(alphabet=ALNUM + "+/!@#%^&*_-", min_size=16, max_size=40),
)
def test_a_machine_made_value_after_a_credential_word(word: str, value: str) -> None:
    assume(
        sum(
            map(
                bool,
                (
                    set(value) & set(s)
                    for s in (
                        string.ascii_uppercase,
                        string.ascii_lowercase,
                        string.digits,
                        "+/!@#%^&*_-",
                    )
                ),
            )
        )
        >= 3
    )
    assume(_machine_made(value))  # the rule, stated in secret_disguise
    caught(value, value, (f"the prod {word} is ", " — rotate it monthly"))


@settings(max_examples=500)
@given(
    st.binary(min_size=16, max_size=64), st.sampled_from(["uuid", "sha1", "sha256", "b64", "sri"])
)
def test_ordinary_machine_made_strings_are_not_secrets(seed: bytes, shape: str) -> None:
    digest = hashlib.sha512(seed).digest()
    value = {
        "uuid": str(uuid.UUID(bytes=digest[:16])),
        "sha1": hashlib.sha1(seed).hexdigest(),
        "sha256": hashlib.sha256(seed).hexdigest(),
        "b64": base64.b64encode(hashlib.sha256(seed).digest()).decode(),
        "sri": "sha512-" + base64.b64encode(digest).decode(),
    }[shape]
    text = f"commit {value} fixed the build; see run {value} for details"
    assert find_secrets(text) == [], text


def test_ordinary_sentences_met_on_the_way_are_not_secrets() -> None:
    """False positives the views once had, kept as examples."""
    for text in (
        "Secret 0 of user:erase-1a2b3c4d.",  # a scope after a credential word
        "each token's vector is the L2-normalised mean of the table rows",
        'user, _, pwd = auth.partition(":")',
        'api_key = params.get("api_key") or default',
        "load_key(data, password=None)",
        "secret = base64.urlsafe_b64encode(random(SECRET_BYTES))",
        'integrity="sha384-pLk6b50Gp1vIcP7f8PwD00RDnAHp+kCoPugyS9RD2PAQMjfrMTjWeDCLYYjnuDBM"',
        "I traveled to Asia in 2019 with 12 friends and we met 3 more there",
    ):
        assert find_secrets(text) == [], text
