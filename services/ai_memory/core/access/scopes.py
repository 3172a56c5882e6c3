"""Scope patterns: which memory scopes a key may touch.

A key carries an allow-list of patterns, each one of

* ``*``          every scope of the tenant;
* ``<kind>:*``   every scope of that kind (``user:*`` matches ``user:alice``, not ``user:``
                 nor ``team:x``);
* an exact scope (``team:data``, ``public``), matched literally.

Nothing else is a pattern: ``user:al*`` or ``*:alice`` are refused when the key is created,
so what a key can reach is always obvious from its list. ``public`` is readable by every
key of the tenant whatever its list (``policy``); writing it needs ``public`` or ``*``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ai_memory.core.errors import InvalidInput

ANY = "*"
# The same grammar as a memory's scope (core/record.py), plus the two wildcard forms.
_KIND_WILDCARD = re.compile(r"^[a-z][a-z0-9_-]{0,31}:\*$")
_EXACT = re.compile(r"^(public|[a-z][a-z0-9_-]{0,31}:[^\s:*][^\s*]*)$")
MAX_PATTERNS = 64
MAX_PATTERN_CHARS = 200


def is_pattern(value: str) -> bool:
    return (
        len(value) <= MAX_PATTERN_CHARS
        and value.isprintable()
        and (value == ANY or bool(_KIND_WILDCARD.match(value)) or bool(_EXACT.match(value)))
    )


def validate_patterns(values: Iterable[str]) -> tuple[str, ...]:
    """The allow-list as stored: trimmed, de-duplicated, in the given order; at least one."""
    patterns = tuple(dict.fromkeys(v.strip() for v in values if v.strip()))
    if not patterns:
        raise InvalidInput("scopes", "required", "a key needs at least one scope pattern")
    if len(patterns) > MAX_PATTERNS:
        raise InvalidInput("scopes", "max_items", f"at most {MAX_PATTERNS} scope patterns")
    for p in patterns:
        if not is_pattern(p):
            raise InvalidInput(
                "scopes",
                "scope_pattern",
                f"{p[:80]!r} is not a scope pattern: use '*', '<kind>:*' (e.g. 'user:*') "
                "or an exact scope ('team:data', 'public')",
            )
    return patterns


def matches(pattern: str, scope: str) -> bool:
    """Does ``pattern`` allow ``scope``? Exact patterns compare literally."""
    if pattern == ANY:
        return True
    if pattern.endswith(":*"):
        kind = pattern[:-1]  # "user:"
        return scope.startswith(kind) and len(scope) > len(kind)
    return pattern == scope


def allowed(patterns: Iterable[str], scope: str) -> bool:
    return any(matches(p, scope) for p in patterns)
