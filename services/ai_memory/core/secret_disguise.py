"""Credentials in disguise: the plain detector (``core.secrets``) run again on what a
text would say once undressed.

A credential split by zero-width or soft-hyphen characters, written in full-width
letters, with its prefix's case changed, regrouped in blocks (``AKIA IOSF ODNN …``),
base64-, hex- or URL-encoded is still a credential to whoever reads it back (an agent
decodes base64 without being asked). Each disguise is undone in a *view* of the text,
the plain detector runs on the view, and what it finds is reported on the span of the
original text it came from:

* **normalized** — Unicode NFKC (full-width and compatibility forms become ASCII),
  invisible and formatting characters (category Cf: zero-width space/joiners, soft hyphen,
  word joiner, BOM, bidi marks) removed, whitespace runs folded. Built only for text
  that is not pure ASCII. Each character of the view knows its original index, so the
  span is exact and ``redact`` removes the whole disguised credential.
* **case** — the provider prefixes (``AKIA``, ``ghp_``, ``sk-ant-``, ``AIza``, …) matched
  whatever their case.
* **regrouped** — runs of short blocks separated by single spaces, dashes or dots, joined
  back; the whole run is the span.
* **decoded** — base64 (standard or URL-safe) and hex runs that decode to text, and
  URL-encoded runs (three or more ``%XX``), scanned as text; the encoded run is the span.

Two shapes need no disguise to be missed by a prefix-anchored detector:

* ``high_entropy``: a machine-made run (≥ 16 characters of three character classes, two
  digits, no eight-letter word, ≥ 3 bits of entropy per character; not a call, an
  attribute or the name of a ``kind:name``) within a few words after a credential word
  ("the prod secret is wJalrXUtnFEMI/K7MDENG…");
* ``cloud_secret``: unlabelled cloud secret keys by their exact shape — an AWS secret
  access key (40 base64 characters, mixed case and digits, not text when decoded) and an
  Azure storage key (86 base64 characters and ``==``, not an ``sha512-`` integrity hash).

What was measured on ordinary memories (LoCoMo turns, code, UUIDs, hashes) is in
``loadtest/RESULTS.md`` ("Secrets in disguise"): ``python -m loadtest.bench_secret_screening``.

Pure; the plain detector is passed in (``scan``), so this module depends on nothing.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote


class Span(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


Scan = Callable[[str], Sequence[Span]]


@dataclass(frozen=True)
class Disguised:
    """A credential at ``text[start:end]`` found through a view (``how``)."""

    kind: str
    start: int
    end: int
    how: str


# The provider prefixes, case-insensitive: a credential whose prefix case was changed.
# One alternation, one pass over the text (the group that matched names the kind).
_CASELESS = re.compile(
    "|".join(
        f"(?P<{kind}>{pattern})"
        for kind, pattern in (
            ("aws_key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
            (
                "github_token",
                r"(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,})",
            ),
            ("gitlab_token", r"(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}"),
            ("huggingface_token", r"(?<![A-Za-z0-9_-])hf_[A-Za-z0-9]{30,}"),
            ("anthropic_key", r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"),
            ("openai_key", r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)[A-Za-z0-9_-]{20,}"),
            ("stripe_key", r"(?<![A-Za-z0-9_-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
            ("slack_token", r"(?<![A-Za-z0-9_-])xox[abposr]-[A-Za-z0-9-]{10,}"),
            ("google_api_key", r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"),
            ("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY"),
        )
    ),
    re.IGNORECASE,
)
_DIGIT = re.compile(r"[0-9]")
_GROUPS = re.compile(r"(?<![\w-])\w(?:\w|[ .-]{1,2}(?=\w)){15,}", re.ASCII)
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){10,}(?![0-9A-Fa-f])")
# A run of URL characters (linear: one character class), kept when it has three escapes.
_URL = re.compile(r"[A-Za-z0-9._~+%-]{9,}")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
# What a regrouped run must hold before it is joined and scanned: a digit, and one of
# the provider prefixes (prose is a run of short words too; this keeps it cheap).
_PREFIX = re.compile(
    r"(?i)akia|asia|gh[pousr]_|github_pat|glpat|hf_|sk-|sk_|rk_|xox|aiza|eyj|begin"
)
_WORD = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:password|passwd|passphrase|secret|token|api[ _-]?key"
    r"|access[ _-]?key|credential|private[ _-]?key|pwd)s?(?![A-Za-z0-9])"
)
_PROSE_WORD = re.compile(r"[a-z]{8}")  # a word inside a value: written, not generated
# A value: no dots (``process.env.X``, ``os.environ`` are code, and a JWT is the plain
# detector's), ``=`` only as base64 padding.
_RUN = re.compile(r"[A-Za-z0-9+/_\-!@#$%^&*~]{16,}=*")
_NEAR = 40  # characters after a credential word where its value may begin
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])")
_AZURE_KEY = re.compile(r"(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{86}==(?![A-Za-z0-9/+=_-])")
_HEX_ONLY = re.compile(r"[0-9a-fA-F]+")


# The shortcuts (``find_disguised`` here, ``find_plain`` and ``find_secrets`` in
# ``core.secrets``) tell text that cannot hold a credential by substring tests on a
# lowercase copy: a loop of ``in`` runs at C speed and scales with the text better than
# an alternation of the same literals, which the engine tries at every position.
# ``tests/property/test_secret_shortcuts.py`` holds each shortcut to its full scan.

# The provider prefixes as pieces (``github`` and ``glpat`` for ``github_pat_`` and
# ``glpat-``): shared by this module's checks and ``core.secrets``' plain one.
PROVIDER_PIECES = (
    "akia",
    "asia",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github",
    "glpat",
    "hf_",
    "sk-",
    "sk_",
    "rk_",
    "xox",
    "aiza",
)
# Pieces of which every caseless prefix (``_CASELESS``) and every credential word
# (``_WORD``) but the ``…key`` ones holds one; those are ``names_a_key``'s.
_ANCHORS = (
    *PROVIDER_PIECES,
    "-----begin",
    "passw",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "credential",
)
# ``_PREFIX``'s alternatives, as pieces.
_PREFIX_PIECES = (*PROVIDER_PIECES, "eyj", "begin")
_KEY_NAME = re.compile(r"(?:api|access|private|secret)[ _-]?key")
_SEPARATORS = str.maketrans("", "", " .-")
# A run of 16 characters of the base64 alphabet: what a decoded view (base64 ≥ 16, hex
# ≥ 20 of a subset) and an unlabelled cloud key (40 or 86 of a subset) need at least.
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_-]{16}")
# The letters other than A–Z that a case-insensitive pattern matches to one of them (the
# Kelvin sign lowercases to ``k`` by itself); ``tests/unit/test_secret_shortcuts.py``
# derives the set from the regex engine.
_CASE_ALIASES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def caseless(text: str) -> str:
    """``text`` lowercased so that a piece a case-insensitive pattern matches in it is a
    substring of the result."""
    return text.lower() if text.isascii() else text.translate(_CASE_ALIASES).lower()


def holds_any(folded: str, pieces: tuple[str, ...]) -> bool:
    # A plain loop: ``any`` over a generator costs 1.7× as much for twenty pieces.
    for piece in pieces:  # noqa: SIM110
        if piece in folded:
            return True
    return False


def names_a_key(folded: str) -> bool:
    """``api key``, ``access_key``, ``private-key``, ``secretkey``: the credential names
    and words that end in ``key`` (the word alone is too common to send text the long
    way: a keyboard, a turkey, the key to it)."""
    return "key" in folded and _KEY_NAME.search(folded) is not None


def find_disguised(text: str, scan: Scan) -> list[Disguised]:
    """Every credential in ``text`` that a view of it shows (overlaps included: the
    caller keeps what the plain scan did not already claim)."""
    base, origin = (text, None) if text.isascii() else _normalized(text)
    if nothing_to_undo(base, caseless(base)) and (origin is None or not scan(base)):
        return []
    return _undone(base, origin, scan)


def nothing_to_undo(view: str, folded: str) -> bool:
    """Whether none of the views built on the normalized ``view`` (``folded`` is its
    ``caseless``) can show anything. What it rules out:"""
    # a caseless prefix, or a credential word a machine-made value could follow;
    if holds_any(folded, _ANCHORS) or names_a_key(folded):
        return False
    # a run a decoder would read, or an unlabelled cloud key;
    if "%" in view or _LONG_RUN.search(view):
        return False
    # blocks that, joined, spell a provider prefix: a regrouped run needs a digit, and the
    # prefix in the run without its separators, which is part of the text without them.
    return _DIGIT.search(view) is None or not (
        holds_any(folded.replace(" ", ""), _PREFIX_PIECES)
        or holds_any(folded.translate(_SEPARATORS), _PREFIX_PIECES)
    )


def undo_disguises(text: str, scan: Scan) -> list[Disguised]:
    """``find_disguised`` without its shortcut: every view built and scanned."""
    base, origin = (text, None) if text.isascii() else _normalized(text)
    return _undone(base, origin, scan)


def _undone(base: str, origin: list[int] | None, scan: Scan) -> list[Disguised]:
    found: list[Disguised] = []
    if origin is not None:
        for f in scan(base):
            found.append(Disguised(f.kind, origin[f.start], origin[f.end - 1] + 1, "normalized"))
    for kind, start, end in _caseless(base):
        found.append(_mapped(kind, start, end, origin, "case"))
    for m in _GROUPS.finditer(base):
        run = m.group(0)
        if _DIGIT.search(run) is None:
            continue
        if not (_PREFIX.search(run.replace(" ", "")) or _PREFIX.search(re.sub(r"[ .-]", "", run))):
            continue
        joined = _regrouped(run, scan)
        if joined is not None:
            kind, start, end = joined
            found.append(_mapped(kind, m.start() + start, m.start() + end, origin, "regrouped"))
    for how, pattern, decode in (
        ("base64", _BASE64, _from_base64),
        ("hex", _HEX, _from_hex),
        ("url", _URL, _from_url),
    ):
        for m in pattern.finditer(base):
            decoded = decode(m.group(0))
            inside = None if decoded is None else _any_kind(decoded, scan)
            if inside is not None:
                found.append(_mapped(inside, m.start(), m.end(), origin, how))
    for start, end in _near_credential_word(base):
        found.append(_mapped("high_entropy", start, end, origin, "entropy"))
    for start, end in _cloud_secrets(base):
        found.append(_mapped("cloud_secret", start, end, origin, "shape"))
    return found


def _mapped(kind: str, start: int, end: int, origin: list[int] | None, how: str) -> Disguised:
    if origin is None:
        return Disguised(kind, start, end, how)
    return Disguised(kind, origin[start], origin[end - 1] + 1, how)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_SPACE_RUN = re.compile(r"\s+")


@functools.lru_cache(maxsize=4096)
def _as_is(ch: str) -> bool:
    """Whether the view keeps non-ASCII ``ch`` as it is: NFKC leaves it, and it is neither
    invisible nor a space."""
    return (
        not ch.isspace()
        and unicodedata.category(ch) != "Cf"
        and unicodedata.normalize("NFKC", ch) == ch
    )


def normalized(text: str) -> str:
    """The view the disguise scans read a text not in ASCII through (``_normalized``
    without where each character came from)."""
    return _normalized(text)[0]


def _normalized(text: str) -> tuple[str, list[int]]:
    """NFKC, invisibles dropped, whitespace folded; ``origin[i]`` is where the view's
    ``i``-th character came from in ``text``."""
    if all(_as_is(ch) for ch in set(_NON_ASCII.findall(text))):
        # A curly quote, an em dash, an accented letter: the view is the text with its
        # whitespace runs folded, cut by C-speed slices instead of a walk by character.
        return _spaces_folded(text)
    return _walked(text)


def _walked(text: str) -> tuple[str, list[int]]:
    """The view built character by character (``_normalized`` without its shortcut)."""
    out: list[str] = []
    origin: list[int] = []
    space = False
    for i, ch in enumerate(text):
        if ch.isascii():
            pieces = ch
        elif unicodedata.category(ch) == "Cf":
            continue
        else:
            pieces = unicodedata.normalize("NFKC", ch)
        for p in pieces:
            if p.isspace():
                if space:
                    continue
                p, space = " ", True
            else:
                space = False
            out.append(p)
            origin.append(i)
    if not out:  # nothing but invisibles: an empty view, nothing to find
        return "", []
    return "".join(out), origin


def _spaces_folded(text: str) -> tuple[str, list[int]]:
    """``text`` with each whitespace run but a lone space made one space (what the walk in
    ``_walked`` does to characters it keeps as they are), and where each came from."""
    out: list[str] = []
    origin: list[int] = []
    at = 0
    for m in _SPACE_RUN.finditer(text):
        if m.group(0) == " ":
            continue
        out.append(text[at : m.start()])
        origin.extend(range(at, m.start()))
        out.append(" ")
        origin.append(m.start())
        at = m.end()
    out.append(text[at:])
    origin.extend(range(at, len(text)))
    return "".join(out), origin


def _caseless(text: str) -> list[tuple[str, int, int]]:
    return [(str(m.lastgroup), m.start(), m.end()) for m in _CASELESS.finditer(text)]


def _any_kind(text: str, scan: Scan) -> str | None:
    """The kind of the first credential in ``text`` (plain, or a caseless prefix)."""
    plain = scan(text)
    if plain:
        return plain[0].kind
    caseless = _caseless(text)
    return caseless[0][0] if caseless else None


def _regrouped(run: str, scan: Scan) -> tuple[str, int, int] | None:
    """A credential written in blocks: from a block holding a provider prefix, the
    blocks of the same length that follow (the last may be shorter) are joined and
    scanned — so prose around the blocks stays out of it. Separators are tried as spaces
    only (a dash may belong to the credential: ``sk-ant-…``), then every one of them.
    Its kind and span within ``run``."""
    for separators in (r" +", r"[ .-]+"):
        # A block's trailing dots are the sentence's ("… 000A. Thanks"), not the key's.
        blocks = [
            (m.start(), m.start() + len(m.group(0).rstrip(".")))
            for m in re.finditer(rf"(?:(?!{separators}).)+", run)
        ]
        for i, (start, end) in enumerate(blocks):
            if not _PREFIX.search(run[start:end]) and not (
                i + 1 < len(blocks) and _PREFIX.search(run[start:end] + run[slice(*blocks[i + 1])])
            ):
                continue
            if any(f.end >= end - start for f in scan(run[start:end])):
                continue  # whole in its own block: the plain scan's, not a regrouping
            size = end - start
            last = i
            while last + 1 < len(blocks):
                nxt = blocks[last + 1][1] - blocks[last + 1][0]
                # A shorter block ends it: the credential's tail, or the next word. Both
                # are tried, longest first: a word that fits the credential's shape is
                # redacted with it (over-redacting a word beats leaving a tail).
                if nxt > size:
                    break
                last += 1
                if nxt < size:
                    break
            # The last block may be the credential's short tail, or the next word.
            for end_block in range(last, i, -1):
                joined = "".join(run[a:b] for a, b in blocks[i : end_block + 1])
                found = scan(joined)
                hits = [(f.kind, f.start, f.end) for f in found] or _caseless(joined)
                if hits:
                    return hits[0][0], start, blocks[end_block][1]
    return None


def _text_of(raw: bytes) -> str | None:
    """``raw`` as text when it is mostly printable UTF-8 (not a hash or random bytes)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return text if text and printable >= 0.95 * len(text) else None


def _from_base64(run: str) -> str | None:
    padded = run + "=" * (-len(run) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            raw = decode(padded.encode("ascii"))
        except (binascii.Error, ValueError):
            continue
        text = _text_of(raw)
        if text is not None:
            return text
    return None


def _from_hex(run: str) -> str | None:
    return _text_of(bytes.fromhex(run))


def _from_url(run: str) -> str | None:
    if len(_ESCAPE.findall(run)) < 3:
        return None
    decoded = unquote(run)
    return decoded if decoded != run else None


def _entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _classes(value: str) -> int:
    return (
        any(c.isupper() for c in value)
        + any(c.islower() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _machine_made(value: str) -> bool:
    """Three character classes, 3 bits per character, two digits, and no run of eight
    lowercase letters (``L2-normalised`` is a word; a random 20-character key has such
    a run about once in a hundred)."""
    return (
        _classes(value) >= 3
        and sum(c.isdigit() for c in value) >= 2
        and _PROSE_WORD.search(value) is None
        and _entropy(value) >= 3.0
    )


def _near_credential_word(text: str) -> list[tuple[int, int]]:
    """The first value starting within ``_NEAR`` characters after a credential word,
    whole (it may run past the window), when it is machine-made."""
    spans = []
    for word in _WORD.finditer(text):
        run = _RUN.search(text, word.end())
        if run is None or run.start() - word.end() > _NEAR:
            continue
        before = text[run.start() - 1 : run.start()]
        # A call, an attribute, or the name part of ``kind:name`` (a scope, a URN).
        code = text[run.end() : run.end() + 1] == "(" or before in (".", ":")
        if not code and _machine_made(run.group(0)):  # a call or an attribute is code
            spans.append(run.span())
    return spans


def _cloud_secrets(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _AWS_SECRET.finditer(text):
        value = m.group(0)
        if (
            not _HEX_ONLY.fullmatch(value)
            and _classes(value) >= 3
            and any(c.isdigit() for c in value)
            and _from_base64(value) is None
        ):
            spans.append(m.span())
    for m in _AZURE_KEY.finditer(text):
        integrity = text[max(0, m.start() - 7) : m.start()].lower().endswith(("sha512-", "sha512:"))
        if not integrity and _from_base64(m.group(0)) is None:
            spans.append(m.span())
    return spans
