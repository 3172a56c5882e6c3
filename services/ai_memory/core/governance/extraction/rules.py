"""The rule table of the offline extractor, English and Chinese — data, kept in one place.

Each ``Rule`` names its family, language, pattern (with a ``value`` group), how the slot
is derived, the record type, and the confidence C and importance I its memories get.
Sentence-level guards (questions, hypotheticals, hedges) and correction markers live here
too, so tuning the extractor means editing this table only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from ...record import MemoryType


class SlotRule(StrEnum):
    RESIDENCE = "residence"  # fact/residence = value
    ROLE = "role"  # fact/role = value
    LIKE = "like"  # preference/stance:<value> = "like"
    DISLIKE = "dislike"  # preference/stance:<value> = "dislike"
    PREFER = "prefer"  # programming_language = value if a language, else like
    LANGUAGE = "language"  # programming_language = value; only known languages
    GOAL = "goal"  # goal/career if career words, else goal/plan
    GOAL_NEGATED = "goal_negated"  # as GOAL, value "not: …"
    LESSON = "lesson"  # skill/lesson, free-form


@dataclass(frozen=True)
class Rule:
    name: str
    family: str  # residence | preference | goal | role | skill
    language: str  # en | zh
    pattern: re.Pattern[str]
    slot_rule: SlotRule
    memory_type: MemoryType
    confidence: float
    importance: float


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_V = r"(?P<value>[^,.;!?]+)"  # English value: up to the clause's punctuation
_Z = r"(?P<value>[^，。！？；,.!?;\s]+)"  # Chinese value: up to punctuation or space
_I = r"(?<![\w'])I"  # a first-person "I" as a word
_F, _P, _S = MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.SKILL


def _r(
    name: str, lang: str, pattern: re.Pattern[str], slot: SlotRule, kind: MemoryType,
    confidence: float, importance: float,
) -> Rule:  # fmt: skip
    return Rule(name, name.split(".")[1], lang, pattern, slot, kind, confidence, importance)


# Pattern texts, one per rule, kept short enough to read.
_EN_LIVE = (
    rf"{_I}(?:'m| am)? (?:now |currently |still )?"
    rf"(?:live|living|reside|residing|based) in {_V}"
)
_EN_MOVED = rf"{_I}(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) to {_V}"
_EN_DISLIKE = (
    rf"{_I} (?:really |truly )?"
    rf"(?:dislike|hate|can't stand|cannot stand|don't like|do not like|don't enjoy) {_V}"
)
_EN_PREFER = rf"{_I} (?:now |still |really |much )?prefer {_V}"
_EN_USE = (
    rf"{_I}(?:'ve| have|'m| am)? (?:now |mostly |mainly |just )?"
    r"(?:use|using|code in|coding in|program in|switched to|switching to) (?P<value>[\w#+]+)"
)
_EN_LIKE = rf"{_I} (?:really |also |just |absolutely )?(?:like|love|enjoy|adore) {_V}"
_EN_GOAL_NOT = rf"{_I} (?:no longer|don't|do not) (?:want|plan|intend) to {_V}"
_EN_GOAL = (
    rf"(?:{_I}(?:(?:'m| am)? (?:plan|planning|intend|intending|want|aim|hope)"
    rf"|(?:'d| would) like) to|my goal is to) {_V}"
)
_EN_WORK_AS = rf"{_I}(?:'m| am)? (?:now )?(?:work|working) as (?:an? )?{_V}"
_EN_AM = (
    rf"{_I}(?:'m| am) (?:now |currently )?(?:an?) "
    rf"(?!bit\b|little\b|lot\b|fan\b|big fan\b|huge fan\b){_V}"
)
_EN_LEARNED = rf"{_I}(?:'ve| have)? (?:learned|learnt) that (?P<value>.+)"
_EN_LESSON = r"^(?:lesson(?: learned)?|TIL)\s*[:：-]\s*(?P<value>.+)"
_ZH_LIVE = rf"我(?:现在|目前|如今|一直)?(?:住在|定居在|生活在){_Z}"
_ZH_MOVED = rf"我(?:已经|刚|刚刚)?搬(?:家)?(?:到|去)(?:了)?{_Z}"
_ZH_DISLIKE = rf"我(?:很|非常|真的|一直)?(?:不太喜欢|不喜欢|讨厌|受不了|不爱){_Z}"
_ZH_PREFER = rf"我(?:现在)?(?:更喜欢|偏好|倾向于|更倾向于|更爱){_Z}"
_ZH_LIKE = rf"我(?:很|非常|最|比较|也|真的|特别)?(?:喜欢|热爱|爱){_Z}"
_ZH_GOAL_NOT = rf"我(?:不再|不)(?:打算|计划|想){_Z}"
_ZH_GOAL = rf"(?:我(?:正在)?(?:打算|计划|准备|想要)|我的目标是){_Z}"
_ZH_AM = (
    rf"我(?:现在|目前)?是(?!说|不是|在|因为|想|要|觉得|不|真的|也)(?:一名|一个|一位|个|名)?{_Z}"
)
_ZH_LEARNED = r"学到(?:了)?(?:一点|一个教训)?[：:，,]?\s*(?P<value>.+)"
_ZH_LESSON = r"^(?:教训|经验)[：:]\s*(?P<value>.+)"

_zh = re.compile
_RES, _ROLE, _LESSON = SlotRule.RESIDENCE, SlotRule.ROLE, SlotRule.LESSON

#: Order matters within a slot: the first rule to produce a slot wins for a sentence.
# fmt: off
RULES: tuple[Rule, ...] = (
    # name                      lang  pattern                slot rule              type  C     I
    _r("en.residence.live",     "en", _en(_EN_LIVE),         _RES,                  _F, 0.90, 0.80),
    _r("en.residence.moved",    "en", _en(_EN_MOVED),        _RES,                  _F, 0.90, 0.80),
    _r("zh.residence.live",     "zh", _zh(_ZH_LIVE),         _RES,                  _F, 0.90, 0.80),
    _r("zh.residence.moved",    "zh", _zh(_ZH_MOVED),        _RES,                  _F, 0.90, 0.80),
    _r("en.preference.dislike", "en", _en(_EN_DISLIKE),      SlotRule.DISLIKE,      _P, 0.85, 0.65),
    _r("en.preference.prefer",  "en", _en(_EN_PREFER),       SlotRule.PREFER,       _P, 0.85, 0.70),
    _r("en.preference.use",     "en", _en(_EN_USE),          SlotRule.LANGUAGE,     _P, 0.80, 0.60),
    _r("en.preference.like",    "en", _en(_EN_LIKE),         SlotRule.LIKE,         _P, 0.85, 0.60),
    _r("zh.preference.dislike", "zh", _zh(_ZH_DISLIKE),      SlotRule.DISLIKE,      _P, 0.85, 0.65),
    _r("zh.preference.prefer",  "zh", _zh(_ZH_PREFER),       SlotRule.PREFER,       _P, 0.85, 0.70),
    _r("zh.preference.like",    "zh", _zh(_ZH_LIKE),         SlotRule.LIKE,         _P, 0.85, 0.60),
    _r("en.goal.negated",       "en", _en(_EN_GOAL_NOT),     SlotRule.GOAL_NEGATED, _F, 0.80, 0.80),
    _r("en.goal.plan",          "en", _en(_EN_GOAL),         SlotRule.GOAL,         _F, 0.80, 0.80),
    _r("zh.goal.negated",       "zh", _zh(_ZH_GOAL_NOT),     SlotRule.GOAL_NEGATED, _F, 0.80, 0.80),
    _r("zh.goal.plan",          "zh", _zh(_ZH_GOAL),         SlotRule.GOAL,         _F, 0.80, 0.80),
    _r("en.role.work_as",       "en", _en(_EN_WORK_AS),      _ROLE,                 _F, 0.85, 0.75),
    _r("en.role.am",            "en", _en(_EN_AM),           _ROLE,                 _F, 0.85, 0.75),
    _r("zh.role.am",            "zh", _zh(_ZH_AM),           _ROLE,                 _F, 0.85, 0.75),
    _r("en.skill.learned",      "en", _en(_EN_LEARNED),      _LESSON,               _S, 0.80, 0.70),
    _r("en.skill.lesson",       "en", _en(_EN_LESSON),       _LESSON,               _S, 0.80, 0.70),
    _r("zh.skill.learned",      "zh", _zh(_ZH_LEARNED),      _LESSON,               _S, 0.80, 0.70),
    _r("zh.skill.lesson",       "zh", _zh(_ZH_LESSON),       _LESSON,               _S, 0.80, 0.70),
)
# fmt: on

#: English words that end a value ("Tokyo now", "Rust over Java", "Sydney last month").
EN_VALUE_STOP = re.compile(
    r"\s+(?:now|currently|these days|last|this|next|recently|since|for|with|because|and|but|"
    r"so|as|at the moment|anymore|any more|again|too|over|rather than|than|instead)\b.*$",
    re.IGNORECASE,
)
#: Goals keep their purpose ("apply for a PhD"): only clause breaks end them.
EN_GOAL_STOP = re.compile(
    r"\s+(?:now|because|since|but|so|anymore|any more|again|instead)\b.*$", re.IGNORECASE
)
#: Chinese particles trimmed off a value ("东京了" → "东京").
ZH_VALUE_TRIM = ("去了", "了", "啦", "呢", "啊", "吧", "呀")

#: Sentences that state nothing about the present user.
EN_HYPOTHETICAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|imagining|what if|in case|unless|wish|hypothetically|"
    r"pretend|wonder)\b",
    re.IGNORECASE,
)
ZH_HYPOTHETICAL = re.compile(r"如果|假如|要是|假设|万一|倘若|若是|假使|设想|想象")
EN_QUESTION_START = re.compile(
    r"^(?:do|does|did|am|is|are|should|shall|would|could|can|will|where|what|why|how|when|"
    r"who|which)\b",
    re.IGNORECASE,
)
ZH_QUESTION = re.compile(r"(?:吗|么|呢)$|是不是|有没有")

#: Hedges lower confidence (× HEDGE_FACTOR) instead of blocking extraction.
EN_HEDGE = re.compile(r"\b(?:maybe|perhaps|probably|might|i think|i guess)\b", re.IGNORECASE)
ZH_HEDGE = re.compile(r"可能|也许|大概|或许|好像")
HEDGE_FACTOR = 0.6

#: Correction markers. Strong markers yield a correction memory even when the corrected
#: statement itself matches no rule; weak ones ("actually") only flag what it contains.
STRONG_CORRECTIONS = (
    re.compile(
        r"^(?:no|nope)[,，]?\s*(?:I meant|what I meant is|I mean)\b[:,]?\s*(?P<rest>.*)$", re.I
    ),
    re.compile(
        r"^(?:correction|to correct myself|let me correct that)\b\s*[:：,，-]?\s*(?P<rest>.*)$",
        re.I,
    ),
    re.compile(
        r"^(?:that's wrong|that is wrong|you're wrong|you are wrong)\b[:,，]?\s*(?P<rest>.*)$", re.I
    ),
    re.compile(r"^(?:不对|不是的|错了|我说错了)[，,。：:！!]?\s*(?P<rest>.*)$"),
    re.compile(r"^更正(?:一下)?[：:，,]?\s*(?P<rest>.*)$"),
)
WEAK_CORRECTIONS = (
    re.compile(r"^(?:actually|in fact)\b[,，]?\s*(?P<rest>.+)$", re.I),
    re.compile(r"^(?:其实|实际上)[，,]?\s*(?P<rest>.+)$"),
)
CORRECTION_CONFIDENCE_BONUS = 0.05
CORRECTION_IMPORTANCE_BONUS = 0.1
#: C and I of a correction memory whose corrected statement matched no rule.
CORRECTION_CONFIDENCE = 0.9
CORRECTION_IMPORTANCE = 0.9

#: Words that make a goal a career goal (the exclusive goal/career slot).
CAREER_WORDS = re.compile(
    r"\b(?:phd|doctorate|startup|start-up|company|business|career|job|degree|master'?s|"
    r"university|graduate school|grad school|promotion|quit|founder|researcher|engineer)\b|"
    r"博士|读博|申博|创业|工作|留学|求职|跳槽|公司|职业|转行|读研|考研|研究员",
    re.IGNORECASE,
)
