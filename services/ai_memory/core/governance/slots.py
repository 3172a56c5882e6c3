"""Slots: what a memory is *about*, so two memories can be compared at all.

A slot is ``(kind, entity)`` — e.g. ``("fact", "residence")``, ``("preference",
"programming_language")``, ``("goal", "career")``. A conflict is declared only
between memories of the same type and entity (``SameSlot``), so the slot is the unit of
conflict detection and of the θ rule.

A slot is **exclusive** when at most one value can be current: one city of residence, one
favourite language, one career goal, one stance (like/dislike) per object. Non-exclusive
slots (lessons, general plans) accumulate values and only conflict through the opposites
dictionary. Exclusivity is a property of the slot, looked up here, so extractors and the
governor agree on it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

#: Entities whose name starts with this prefix hold one stance per object ("stance:java").
STANCE_PREFIX = "stance:"

_SEPARATOR = "/"


@dataclass(frozen=True, order=True)
class Slot:
    kind: str
    entity: str

    def __post_init__(self) -> None:
        if not self.kind or not self.entity or _SEPARATOR in self.kind:
            raise ValueError(f"invalid slot {self.kind!r}/{self.entity!r}")

    def key(self) -> str:
        """``kind/entity``: the form stored in record metadata and configuration."""
        return f"{self.kind}{_SEPARATOR}{self.entity}"

    @classmethod
    def parse(cls, key: str) -> Slot:
        kind, sep, entity = key.partition(_SEPARATOR)
        if not sep:
            raise ValueError(f"a slot key is 'kind/entity', got {key!r}")
        return cls(kind, entity)

    @classmethod
    def stance(cls, obj: str) -> Slot:
        """The slot of the user's stance (like/dislike) towards ``obj``."""
        return cls("preference", STANCE_PREFIX + normalize_value(obj))


RESIDENCE = Slot("fact", "residence")
ROLE = Slot("fact", "role")
PROGRAMMING_LANGUAGE = Slot("preference", "programming_language")
CAREER_GOAL = Slot("goal", "career")
PLAN = Slot("goal", "plan")
LESSON = Slot("skill", "lesson")
CORRECTION = Slot("correction", "feedback")

#: Slots with at most one current value. Stance slots are exclusive by prefix.
EXCLUSIVE_SLOTS: frozenset[Slot] = frozenset({RESIDENCE, ROLE, PROGRAMMING_LANGUAGE, CAREER_GOAL})


def is_exclusive(slot: Slot, extra: Iterable[Slot] = ()) -> bool:
    """Whether ``slot`` admits one current value (``extra`` adds deployment slots)."""
    if slot in EXCLUSIVE_SLOTS or slot.entity.startswith(STANCE_PREFIX):
        return True
    return slot in frozenset(extra)


_SPACES = re.compile(r"\s+")
_EDGE_PUNCT = " \t.,;:!?'\"()[]{}。，；：！？、“”‘’（）《》"


def normalize_value(value: str) -> str:
    """Canonical form for comparing slot values: NFKC, casefolded, single spaces, no
    edge punctuation or leading article (``"The Tokyo."`` → ``"tokyo"``)."""
    text = unicodedata.normalize("NFKC", value).casefold()
    text = _SPACES.sub(" ", text).strip(_EDGE_PUNCT)
    for article in ("the ", "a ", "an "):
        if text.startswith(article):
            text = text[len(article) :]
            break
    return text.strip(_EDGE_PUNCT)
