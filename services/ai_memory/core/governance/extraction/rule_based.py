"""Offline, rule-based extraction for English and Chinese (pure, deterministic).

Per sentence: a correction marker is peeled off first ("actually, …", "no, I meant …",
"不对，…", "更正：…"); questions and hypotheticals ("if I lived in Paris", "如果我住在…")
yield nothing; hedges ("maybe", "可能") lower confidence; then every rule of ``rules.RULES``
is tried in table order, keeping the first memory per slot. What each rule produces —
slot, value, type, C, I — is decided by the table; this module only applies it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ...record import MemoryType
from ..opposites import PROGRAMMING_LANGUAGES
from ..slots import (
    CAREER_GOAL,
    CORRECTION,
    LESSON,
    PLAN,
    PROGRAMMING_LANGUAGE,
    RESIDENCE,
    ROLE,
    Slot,
    normalize_value,
)
from . import rules as R
from .base import ExtractedMemory, Interaction

_SPACES = re.compile(r"\s{2,}")
_SENTENCE_END = re.compile(r"(?<=[!?。！？；;\n])|(?<=\.)(?=\s|$)")


def split_sentences(text: str) -> list[str]:
    """Sentences with their terminators; a '.' ends one only before space or the end."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


class RuleBasedExtractor:
    """The default ``Extractor``: works offline, explains itself (``ExtractedMemory.rule``)."""

    def __init__(self, rules: tuple[R.Rule, ...] = R.RULES) -> None:
        self._rules = rules

    def extract(self, interaction: Interaction) -> list[ExtractedMemory]:
        out: list[ExtractedMemory] = []
        for sentence in split_sentences(interaction.text):
            out.extend(self._sentence(sentence, interaction))
        return out

    def _sentence(self, sentence: str, interaction: Interaction) -> list[ExtractedMemory]:
        body, strong = sentence, False
        marker = _correction(sentence)
        if marker is not None:
            body, strong = marker
        found = self._statements(body, sentence, interaction)
        if marker is None:
            return found
        if found:
            return [_as_correction(m) for m in found]
        if strong and body.strip(" .!?。！？") and not _blocked(body, sentence):
            return [_correction_memory(sentence, interaction)]
        return []

    def _statements(
        self, body: str, content: str, interaction: Interaction
    ) -> list[ExtractedMemory]:
        if _blocked(body, content):
            return []
        hedged = bool(R.EN_HEDGE.search(body) or R.ZH_HEDGE.search(body))
        if hedged:  # "I probably prefer X", "我可能更喜欢X": match without the hedge
            body = _SPACES.sub(" ", R.ZH_HEDGE.sub("", R.EN_HEDGE.sub("", body))).strip()
        out: dict[Slot, ExtractedMemory] = {}
        for rule in self._rules:
            match = rule.pattern.search(body)
            if match is None:
                continue
            derived = _derive(rule, match.group("value"))
            if derived is None or derived[0] in out:
                continue
            slot, value = derived
            confidence = rule.confidence * (R.HEDGE_FACTOR if hedged else 1.0)
            out[slot] = ExtractedMemory(
                memory_type=rule.memory_type,
                slot=slot,
                value=value,
                content=content,
                confidence=round(confidence, 6),
                importance=rule.importance,
                at=interaction.at,
                scope=interaction.scope,
                source_agent=interaction.source_agent,
                rule=rule.name,
                language=rule.language,
                conversation_id=interaction.conversation_id,
            )
        return list(out.values())


def _blocked(body: str, sentence: str) -> bool:
    """Questions and hypotheticals state nothing about the user's present."""
    core = body.strip().rstrip(" .!。！")
    if sentence.rstrip().endswith(("?", "？")) or core.endswith(("?", "？")):
        return True
    if R.EN_QUESTION_START.search(core) or R.ZH_QUESTION.search(core):
        return True
    return bool(R.EN_HYPOTHETICAL.search(core) or R.ZH_HYPOTHETICAL.search(core))


def _correction(sentence: str) -> tuple[str, bool] | None:
    for pattern in R.STRONG_CORRECTIONS:
        match = pattern.match(sentence)
        if match:
            return match.group("rest"), True
    for pattern in R.WEAK_CORRECTIONS:
        match = pattern.match(sentence)
        if match:
            return match.group("rest"), False
    return None


def _clean(rule: R.Rule, raw: str) -> str:
    if rule.slot_rule is R.SlotRule.LESSON:
        return raw.strip()
    if rule.language == "en":
        goal = rule.slot_rule in (R.SlotRule.GOAL, R.SlotRule.GOAL_NEGATED)
        raw = (R.EN_GOAL_STOP if goal else R.EN_VALUE_STOP).sub("", raw)
    else:
        trimmed = True
        while trimmed:
            trimmed = False
            for particle in R.ZH_VALUE_TRIM:
                if raw.endswith(particle) and len(raw) > len(particle):
                    raw, trimmed = raw[: -len(particle)], True
    return normalize_value(raw)


def _derive(rule: R.Rule, raw: str) -> tuple[Slot, str | None] | None:
    """(slot, value) for a match, or None when the value is unusable for this rule."""
    value = _clean(rule, raw)
    if not value:
        return None
    kind = rule.slot_rule
    language = value.split(" ")[0]
    if kind is R.SlotRule.RESIDENCE:
        return None if value in PROGRAMMING_LANGUAGES else (RESIDENCE, value)
    if kind is R.SlotRule.ROLE:
        return ROLE, value
    if kind is R.SlotRule.LIKE:
        return Slot.stance(value), "like"
    if kind is R.SlotRule.DISLIKE:
        return Slot.stance(value), "dislike"
    if kind is R.SlotRule.PREFER:
        if language in PROGRAMMING_LANGUAGES:
            return PROGRAMMING_LANGUAGE, language
        return Slot.stance(value), "like"
    if kind is R.SlotRule.LANGUAGE:
        return (PROGRAMMING_LANGUAGE, value) if value in PROGRAMMING_LANGUAGES else None
    if kind in (R.SlotRule.GOAL, R.SlotRule.GOAL_NEGATED):
        slot = CAREER_GOAL if R.CAREER_WORDS.search(value) else PLAN
        return slot, value if kind is R.SlotRule.GOAL else f"not: {value}"
    return LESSON, None


def _as_correction(memory: ExtractedMemory) -> ExtractedMemory:
    return replace(
        memory,
        correction=True,
        confidence=round(min(memory.confidence + R.CORRECTION_CONFIDENCE_BONUS, 1.0), 6),
        importance=round(min(memory.importance + R.CORRECTION_IMPORTANCE_BONUS, 1.0), 6),
    )


def _correction_memory(sentence: str, interaction: Interaction) -> ExtractedMemory:
    return ExtractedMemory(
        memory_type=MemoryType.PREFERENCE,
        slot=CORRECTION,
        value=None,
        content=sentence,
        confidence=R.CORRECTION_CONFIDENCE,
        importance=R.CORRECTION_IMPORTANCE,
        at=interaction.at,
        scope=interaction.scope,
        source_agent=interaction.source_agent,
        rule="correction",
        language="zh" if re.search(r"[\u4e00-\u9fff]", sentence) else "en",
        correction=True,
        conversation_id=interaction.conversation_id,
    )
