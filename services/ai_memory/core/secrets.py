"""Credentials in text: one detector for every write path, the migration doctor too.

Pure (no I/O). ``find_secrets(text)`` returns non-overlapping ``Finding``s, each a
``kind`` and the span ``text[start:end]`` that is the credential itself — only the
secret part, so ``redact`` keeps the context readable (``password=[REDACTED:credential]``,
``postgres://app:[REDACTED:connection_string]@db/prod``).

Kinds: ``private_key`` (PEM blocks), ``aws_key`` (AKIA/ASIA), ``github_token``
(ghp_/gho_/ghu_/ghs_/ghr_/github_pat_), ``gitlab_token`` (glpat-), ``huggingface_token``
(hf_), ``anthropic_key`` (sk-ant-), ``openai_key`` (sk-, sk-proj-), ``stripe_key``
(sk_/rk_ live or test; publishable ``pk_`` keys are meant to be public and are not
secrets), ``slack_token`` (xox?-), ``google_api_key`` (AIza), ``jwt``, ``bearer_token``,
``basic_auth``, ``connection_string`` (a password inside a URL, any scheme: postgres,
mysql, mongodb+srv, redis, amqp, …) and ``credential`` (``password=…``, ``api_key: …``,
``Password=…;`` in JDBC/ADO strings).

Patterns are anchored on shape, not on words, so prose that mentions a credential ("the
sk- prefix", "Bearer of bad news", "the password policy") is not one; generic prefixes
(``sk-``, ``Bearer``) also need a value that looks machine-made. Placeholders
(``<token>``, ``${TOKEN}``, ``xxxx``, ``changeme``, an earlier ``[REDACTED:…]``) are not
secrets, so redacted text stays clean when scanned again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from .secret_disguise import (
    PROVIDER_PIECES,
    caseless,
    find_disguised,
    holds_any,
    names_a_key,
    normalized,
    nothing_to_undo,
)

#: What a write does with a credential (``service.secret_policy``; a setting per tenant).
SecretPolicy = Literal["refuse", "redact", "allow"]

#: Each kind (stable, machine-readable) and what a person calls it.
KIND_LABELS = {
    "private_key": "private key block",
    "aws_key": "AWS access key",
    "github_token": "GitHub token",
    "gitlab_token": "GitLab token",
    "huggingface_token": "Hugging Face token",
    "anthropic_key": "Anthropic API key",
    "openai_key": "OpenAI API key",
    "stripe_key": "Stripe secret key",
    "slack_token": "Slack token",
    "google_api_key": "Google API key",
    "jwt": "JSON Web Token",
    "bearer_token": "bearer token",
    "basic_auth": "basic-auth credentials",
    "connection_string": "password in a connection string",
    "credential": "credential assignment (password=/token=/api_key=…)",
    "high_entropy": "machine-made value next to a credential word",
    "cloud_secret": "unlabelled cloud secret key (AWS secret access key, Azure storage key)",
}
SECRET_KINDS = tuple(KIND_LABELS)


@dataclass(frozen=True)
class Finding:
    """One credential at ``text[start:end]`` (the value is never kept here, so a finding
    can be logged or reported without leaking what it found)."""

    kind: str
    start: int
    end: int


_NOT_TOKEN_BEFORE = r"(?<![A-Za-z0-9_-])"
_NOT_TOKEN_AFTER = r"(?![A-Za-z0-9_-])"

# (kind, pattern, the secret is group ``v`` (else the whole match), check or None). The
# check sees group ``v`` when the pattern has one. Order matters: the first pattern to
# claim a span wins, so specific shapes come first and the generic ones last.
_Check = Callable[[str], bool] | None


def _looks_random(value: str) -> bool:
    """Machine-made, not a word or a kebab-case slug: has a digit or mixed case."""
    has_upper = any(c.isupper() for c in value)
    has_lower = any(c.islower() for c in value)
    return any(c.isdigit() for c in value) or (has_upper and has_lower)


_SLUG = re.compile(r"[a-z]+(?:-[a-z]+)+")
# Not a credential but where one would go: a template slot, a masked value, a word, or
# code that reads it from the environment (``process.env.DB_PASSWORD``, ``os.getenv(…)``).
_PLACEHOLDER = re.compile(
    r"^(?:[<{$%*\[(]|x{3,}|X{3,}|\.{3}|…|null$|none$|nil$|true$|false$|redacted"
    r"|changeme|change_me|example|your[_-]|my[_-]?(?:password|token|secret|key)$"
    r"|password$|passwd$|pass$|pwd$|secret$|token$"
    r"|process\.env\.|os\.environ|os\.getenv|getenv\(|env\(|ENV\[|secrets\.|vault:)",
    re.IGNORECASE,
)
# What a credential's name looks like in an assignment (``db_password``, ``OPENAI_API_KEY``).
_NAME = (
    r"(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|token|access[_-]?token"
    r"|auth[_-]?token|refresh[_-]?token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key"
    r"|private[_-]?key)"
)
_NAME_ONLY = re.compile(rf"(?i)^(?:[A-Za-z0-9]+[_-])*{_NAME}$")
_MACHINE_MADE = re.compile(r"[0-9_\-+/=@#!$%^&*]")


# What ``redact`` leaves. A value is judged without its markers: ``PASSWORD=[REDACTED:…]``
# after ``PASSWORD:`` is what remains of an assignment already redacted, while a real
# value with a marker pasted after it (``Hunter2!x[REDACTED:credential]``) still is one.
_MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")


def _unredacted(value: str) -> str:
    return _MARKER.sub("", value).rstrip("=:") if "[REDACTED:" in value else value


# Code, not a value: a call or an attribute read (``auth.partition(``, ``params.get(``,
# ``self._token``), or a constant's name (``KEY``, ``DB_PASSWORD``: letters only).
_CODE = re.compile(
    r"^(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\(|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|[A-Z][A-Z_]*$)"
)


def _real_value(value: str) -> bool:
    rest = _unredacted(value)
    if rest != value and _NAME_ONLY.match(rest):
        return False  # ``api_key=[REDACTED:…]``: the name of an assignment already redacted
    rest = rest.rstrip(")]}")  # the end of the call the assignment sits in
    if _NAME_ONLY.match(rest):
        return False  # ``api_key=api_key``: a variable passed on, not its value
    return bool(rest) and not _PLACEHOLDER.match(rest) and not _CODE.match(rest)


def _colon_value(value: str) -> bool:
    """``name: value`` is also prose ("password: always rotate it"): only a value that
    looks machine-made (a digit or a symbol) is a credential."""
    rest = _unredacted(value)
    return len(rest) >= 6 and bool(_MACHINE_MADE.search(rest)) and _real_value(value)


_PATTERNS: tuple[tuple[str, re.Pattern[str], bool, _Check], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
        False,
        None,
    ),
    ("jwt", re.compile(r"\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}"), False, None),
    (
        "aws_key",
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
        False,
        None,
    ),
    (
        "github_token",
        re.compile(rf"{_NOT_TOKEN_BEFORE}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_\w{{30,}})"),
        False,
        None,
    ),
    ("gitlab_token", re.compile(rf"{_NOT_TOKEN_BEFORE}glpat-[A-Za-z0-9_-]{{20,}}"), False, None),
    ("huggingface_token", re.compile(rf"{_NOT_TOKEN_BEFORE}hf_[A-Za-z0-9]{{30,}}"), False, None),
    ("anthropic_key", re.compile(rf"{_NOT_TOKEN_BEFORE}sk-ant-[A-Za-z0-9_-]{{20,}}"), False, None),
    (
        "openai_key",
        re.compile(rf"{_NOT_TOKEN_BEFORE}sk-(?:proj-|svcacct-|admin-)?(?P<v>[A-Za-z0-9_-]{{20,}})"),
        False,
        lambda v: not _SLUG.fullmatch(v),  # "sk-this-is-a-kebab-case-slug" is not a key
    ),
    (
        "stripe_key",
        re.compile(rf"{_NOT_TOKEN_BEFORE}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}"),
        False,
        None,
    ),
    (
        "slack_token",
        re.compile(rf"{_NOT_TOKEN_BEFORE}xox[abposr]-[A-Za-z0-9-]{{10,}}"),
        False,
        None,
    ),
    ("google_api_key", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"), False, None),
    (
        "basic_auth",
        re.compile(r"(?i)\bauthorization\s*[:=]\s*[\"']?basic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})"),
        True,
        _real_value,
    ),
    (
        "bearer_token",
        re.compile(r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)"),
        True,
        _looks_random,
    ),
    (
        "connection_string",
        # scheme://user:password@host — any scheme, the user may be empty (redis://:pw@h).
        re.compile(r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@?#]*:(?P<v>[^\s@/]+)@[^\s@/]"),
        True,
        _real_value,
    ),
    (
        "credential",
        # name = value (also ``Password=…;`` in JDBC/ADO strings and ``?token=…`` in URLs)
        re.compile(
            rf"(?i)(?<![A-Za-z0-9]){_NAME}\s*=\s*[\"']?(?P<v>[^\s\"',;&]{{3,}})",
        ),
        True,
        _real_value,
    ),
    (
        "credential",
        # name: value / "name": "value", where the value looks machine-made
        re.compile(rf"(?i)(?<![A-Za-z0-9]){_NAME}[\"']?\s*:\s*[\"']?(?P<v>[^\s\"',;]{{6,}})"),
        True,
        _colon_value,
    ),
)


def find_secrets(text: str) -> list[Finding]:
    """Every credential in ``text``, in order, without overlaps: the plain shapes first,
    then what a view of the text shows (``core.secret_disguise``: invisible characters,
    full-width letters, changed case, regrouped blocks, base64/hex/URL encodings,
    machine-made values after a credential word, unlabelled cloud keys)."""
    if text.isascii():
        folded = text.lower()
        if not _plain_anchored(folded) and nothing_to_undo(text, folded):
            return []  # most text: one lowercase copy and a few tests, for both scans
    found = find_plain(text)
    for d in find_disguised(text, find_plain):
        overlapping = [f for f in found if d.start < f.end and f.start < d.end]
        if not overlapping:
            found.append(Finding(d.kind, d.start, d.end))
            continue
        start = min(d.start, *(f.start for f in overlapping))
        end = max(d.end, *(f.end for f in overlapping))
        if (start, end) != (overlapping[0].start, overlapping[0].end) or len(overlapping) > 1:
            # The plain scan saw part of it (``ghp_…`` up to a zero-width space): one
            # finding over the whole, so a redaction leaves nothing of the credential.
            found = [f for f in found if f not in overlapping]
            found.append(Finding(overlapping[0].kind, start, end))
    found.sort(key=lambda f: f.start)
    return found


def none_hold_secrets(texts: Iterable[str]) -> bool:
    """True only when ``find_secrets`` finds nothing in any of ``texts``, shown for all of
    them at once: its shortcuts run once over the texts joined by NUL (a record's id,
    scope, agent, content, tags and meta strings) instead of once per text. Each test of
    the shortcuts asks whether a view of the text holds a piece or a run with no NUL in
    it, which no join can make across two texts; the views keep a NUL where it is and
    build the rest character by character (whitespace runs, which a NUL ends, aside), so
    the view of the join is the join of the views. What the shortcuts clear in the join
    they clear in each text. Not the converse (a digit in one text and a provider's
    prefix in another send the join the long way), so False says nothing: screen each
    text (``tests/property/test_secret_shortcuts.py``)."""
    joined = "\x00".join(texts)
    if joined.isascii():
        folded = joined.lower()
        return not _plain_anchored(folded) and nothing_to_undo(joined, folded)
    # Not ASCII, as ``find_secrets`` takes it: the plain scan's shortcut on the text,
    # then the disguise scan's on its normalized view (and the plain scan of that view).
    if _plain_anchored(caseless(joined)):
        return False
    view = normalized(joined)
    folded = caseless(view)
    return not _plain_anchored(folded) and nothing_to_undo(view, folded)


# Pieces of which every match of every pattern above holds one, as the pattern spells
# it (``core.secret_disguise`` says why pieces): a provider prefix, ``authorization``,
# ``bearer``, ``://``, or a piece of each credential name in ``_NAME`` but those ending in
# ``key`` (``names_a_key``). A new pattern needs its piece here.
_PLAIN_ANCHORS = (
    *PROVIDER_PIECES,
    "-----begin",
    "eyj",
    "authorization",
    "bearer",
    "://",
    "passw",
    "passphrase",
    "pwd",
    "secret",
    "token",
)


def _plain_anchored(folded: str) -> bool:
    return holds_any(folded, _PLAIN_ANCHORS) or names_a_key(folded)


def find_plain(text: str) -> list[Finding]:
    """The credentials ``text`` shows as written (first pattern wins an overlap)."""
    if not _plain_anchored(caseless(text)):
        return []  # none of the pieces a pattern needs: seventeen scans saved
    return scan_plain(text)


def scan_plain(text: str) -> list[Finding]:
    """``find_plain`` without its shortcut: every pattern run over ``text``."""
    found: list[Finding] = []
    for kind, pattern, only_v, check in _PATTERNS:
        has_v = "v" in pattern.groupindex
        for m in pattern.finditer(text):
            if check is not None and not check(m.group("v") if has_v else m.group(0)):
                continue
            start, end = m.span("v") if only_v else m.span()
            if any(start < f.end and f.start < end for f in found):
                continue
            found.append(Finding(kind, start, end))
    found.sort(key=lambda f: f.start)
    return found


def named_secret(name: str, value: str) -> Finding | None:
    """A value stored under a credential's name (``meta: {"db_password": "…"}``) is a
    credential when it would be one written as ``name: value``; the span is all of it."""
    stripped = value.strip()
    if not _NAME_ONLY.match(name) or not _colon_value(stripped):
        return None
    start = value.index(stripped)
    return Finding("credential", start, start + len(stripped))


def placeholder(kind: str) -> str:
    """What ``redact`` puts where a credential was."""
    return f"[REDACTED:{kind}]"


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``."""
    findings = find_secrets(text) if findings is None else findings
    if not findings:
        return text
    parts: list[str] = []
    cursor = 0
    for f in sorted(findings, key=lambda f: f.start):
        parts.append(text[cursor : f.start])
        parts.append(placeholder(f.kind))
        cursor = f.end
    parts.append(text[cursor:])
    return "".join(parts)
