"""The opposite-pair dictionary P of conflict detection — data only, kept readable and maintainable.

Two memories in the same slot conflict when one contains ``a`` and the other ``b`` for a
pair ``(a, b)`` here (``HitOpp``). Matching is done by ``conflicts.find_terms``: ASCII
terms match whole words, longer terms mask the shorter ones they contain (so "don't like"
never also counts as "like", and "不喜欢" never also counts as "喜欢").

To extend: add a pair to the right table; keep entries lowercase (matching casefolds).
"""

from __future__ import annotations

#: Stance and intention polarity: positive ↔ negative, English and Chinese.
POLARITY_PAIRS: tuple[tuple[str, str], ...] = (
    ("like", "dislike"),
    ("like", "don't like"),
    ("like", "do not like"),
    ("likes", "dislikes"),
    ("likes", "doesn't like"),
    ("like", "hate"),
    ("love", "hate"),
    ("enjoy", "don't enjoy"),
    ("prefer", "no longer prefer"),
    ("want", "don't want"),
    ("want", "do not want"),
    ("wants", "doesn't want"),
    ("plan to", "no longer plan to"),
    ("use", "no longer use"),
    ("use", "don't use"),
    ("喜欢", "不喜欢"),
    ("喜欢", "讨厌"),
    ("爱", "不爱"),
    ("想", "不想"),
    ("要", "不要"),
    ("愿意", "不愿意"),
    ("打算", "不打算"),
    ("用", "不用"),
)

#: Mutually exclusive values known as domain priors (same slot, different state).
VALUE_PAIRS: tuple[tuple[str, str], ...] = (
    ("java", "rust"),
    ("phd", "startup"),
    ("auckland", "sydney"),
    ("留学", "创业"),
    ("申博", "创业"),
    ("读博", "创业"),
    ("博士", "创业"),
    ("student", "researcher"),
    ("学生", "研究员"),
)

#: Every opposite pair, as the detector consults it.
OPPOSITE_PAIRS: tuple[tuple[str, str], ...] = POLARITY_PAIRS + VALUE_PAIRS

#: Values of the exclusive ("uses X vs uses Y") programming-language slot.
PROGRAMMING_LANGUAGES: frozenset[str] = frozenset(
    {
        "c",
        "c#",
        "c++",
        "clojure",
        "dart",
        "elixir",
        "erlang",
        "go",
        "golang",
        "haskell",
        "java",
        "javascript",
        "julia",
        "kotlin",
        "lua",
        "ocaml",
        "perl",
        "php",
        "python",
        "r",
        "ruby",
        "rust",
        "scala",
        "swift",
        "typescript",
        "zig",
    }
)
