"""Find and redact secrets and personal data in memory text.

Secrets are what the service refuses or redacts on every write path: the one detector
``ai_memory.core.secrets`` finds them, with its kinds (``aws_key``, ``github_token``,
``connection_string``, ``credential``, …). Personal data is this module's own: a
migration doctor reports it, the service stores it (it is not a credential):
``private_ip`` (RFC 1918 addresses), ``email``, ``phone`` (E.164 ``+…``, mainland-China
mobiles, North-American ``(555) 123-4567``).

Patterns are anchored on shape, not on words, and phone numbers need separators or a
country prefix (bare digit runs are more often ids or timestamps), so ordinary prose,
dates, versions and Unix times do not match. Examples shown to people are masked
(:func:`mask`); :func:`redact` replaces every finding with ``[REDACTED:<kind>]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ai_memory.core.secrets import SECRET_KINDS, find_secrets

PERSONAL_KINDS = ("private_ip", "email", "phone")
KINDS = (*SECRET_KINDS, *PERSONAL_KINDS)

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private_ip",
        re.compile(
            rf"(?<![\d.])(?:10\.{_OCTET}|172\.(?:1[6-9]|2\d|3[01])|192\.168)"
            rf"\.{_OCTET}\.{_OCTET}(?![\d.]*\d)"
        ),
    ),
    (
        "email",
        re.compile(
            r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
        ),
    ),
    (
        "phone",
        re.compile(
            r"(?<![\w+])(?:"
            r"\+\d{1,3}[\s-]?(?:\(\d{1,4}\)[\s-]?)?\d{2,4}(?:[\s-]?\d{2,4}){1,4}"
            r"|(?<!\d)1[3-9]\d[\s-]?\d{4}[\s-]?\d{4}(?!\d)"
            r"|\(\d{3}\)\s?\d{3}[\s.-]\d{4}"
            r"|(?<!\d)\d{3}[.-]\d{3}[.-]\d{4}(?!\d)"
            r")(?![\w-])"
        ),
    ),
)


@dataclass(frozen=True)
class Finding:
    """One secret or piece of personal data at ``text[start:end]``."""

    kind: str
    start: int
    end: int
    value: str


def scan(text: str) -> list[Finding]:
    """Every finding in ``text``, in order, without overlaps (secrets first, then the
    first personal-data pattern wins)."""
    found = [Finding(f.kind, f.start, f.end, text[f.start : f.end]) for f in find_secrets(text)]
    taken = [(f.start, f.end) for f in found]
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            if kind == "phone" and _digits(m.group(0)) < 10:
                continue
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append(Finding(kind, start, end, m.group(0)))
    found.sort(key=lambda f: f.start)
    return found


def _digits(value: str) -> int:
    return sum(c.isdigit() for c in value)


def mask(finding: Finding) -> str:
    """A form safe to show: enough to recognise the item, not enough to use it."""
    value = finding.value
    if finding.kind == "email":
        local, _, domain = value.partition("@")
        tld = domain.rsplit(".", 1)[-1]
        return f"{local[:1]}***@{domain[:1]}***.{tld}"
    if finding.kind == "private_ip":
        parts = value.split(".")
        return f"{parts[0]}.{parts[1]}.x.x"
    if finding.kind == "phone":
        digits = [c for c in value if c.isdigit()]
        return (
            f"{'+' if value.startswith('+') else ''}{''.join(digits[:3])}****{''.join(digits[-2:])}"
        )
    if len(value) <= 8:
        return "****"
    return f"{value[:4]}…{value[-2:]} ({len(value)} chars)"


def redact(text: str) -> tuple[str, list[Finding]]:
    """``text`` with every finding replaced by ``[REDACTED:<kind>]``, and the findings."""
    findings = scan(text)
    if not findings:
        return text, findings
    parts: list[str] = []
    cursor = 0
    for f in findings:
        parts.append(text[cursor : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        cursor = f.end
    parts.append(text[cursor:])
    return "".join(parts), findings


def iter_strings(value: object) -> Iterator[str]:
    """Every string inside a JSON-like value (for scanning whole rows)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from iter_strings(item)
