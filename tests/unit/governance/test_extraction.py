from __future__ import annotations

import pytest

from ai_memory.core.governance import RecordedDecision
from ai_memory.core.governance.extraction import (
    Interaction,
    RuleBasedExtractor,
    extracted_from_decision,
    extraction_decision,
    split_sentences,
)
from ai_memory.core.record import MemoryType

from .helpers import T0

EX = RuleBasedExtractor()


def extract(text: str) -> list[tuple[str, str | None, MemoryType]]:
    said = Interaction(text, T0, "user:alice", "agent-a", conversation_id="c1")
    return [(m.slot.key(), m.value, m.memory_type) for m in EX.extract(said)]


F, P, S = MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.SKILL


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # residence
        ("I live in Auckland.", ("fact/residence", "auckland", F)),
        ("I moved to Sydney last month!", ("fact/residence", "sydney", F)),
        ("I'm now living in Tokyo.", ("fact/residence", "tokyo", F)),
        ("我住在奥克兰", ("fact/residence", "奥克兰", F)),
        ("我搬到悉尼了。", ("fact/residence", "悉尼", F)),
        ("我现在住在东京", ("fact/residence", "东京", F)),
        # preferences, likes, dislikes
        ("I prefer Java.", ("preference/programming_language", "java", P)),
        ("I prefer Rust over Java now.", ("preference/programming_language", "rust", P)),
        ("I mostly use Rust", ("preference/programming_language", "rust", P)),
        ("I love hiking.", ("preference/stance:hiking", "like", P)),
        ("I hate long tables.", ("preference/stance:long tables", "dislike", P)),
        ("I don't like meetings", ("preference/stance:meetings", "dislike", P)),
        ("我喜欢Rust", ("preference/stance:rust", "like", P)),
        ("我不喜欢写测试", ("preference/stance:写测试", "dislike", P)),
        ("我更喜欢Python", ("preference/programming_language", "python", P)),
        # goals and plans
        ("I plan to apply for a PhD in AI.", ("goal/career", "apply for a phd in ai", F)),
        ("I want to start a startup", ("goal/career", "start a startup", F)),
        ("I'd like to learn Rust", ("goal/plan", "learn rust", F)),
        ("I don't want to do a PhD anymore", ("goal/career", "not: do a phd", F)),
        ("我打算读博", ("goal/career", "读博", F)),
        ("我计划明年创业", ("goal/career", "明年创业", F)),
        ("我不打算读博了", ("goal/career", "not: 读博", F)),
        # role and identity
        ("I am a PhD student.", ("fact/role", "phd student", F)),
        ("I work as a data engineer", ("fact/role", "data engineer", F)),
        ("我是一名博士生", ("fact/role", "博士生", F)),
        ("我现在是全职研究员", ("fact/role", "全职研究员", F)),
        # skills and lessons
        ("I learned that retries need jitter.", ("skill/lesson", None, S)),
        ("Lesson: always pin versions.", ("skill/lesson", None, S)),
        ("我学到了：缓存要设置过期时间", ("skill/lesson", None, S)),
        ("教训：不要在周五上线", ("skill/lesson", None, S)),
    ],
)
def test_rule_families(text: str, expected: tuple[str, str | None, MemoryType]) -> None:
    assert extract(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "If I lived in Paris I would cycle everywhere.",
        "Suppose I moved to Berlin.",
        "Do I live in Paris?",
        "Where do I live",
        "I lived in Paris for two years.",  # past, not current
        "My sister lives in Paris.",
        "I'm a bit tired.",
        "I moved to Rust",  # a language is not a place
        "I use a standing desk",  # not a programming language
        "如果我住在巴黎就好了",
        "假如我搬到柏林",
        "我住在巴黎吗？",
        "我是不是应该读博",
        "我是说明天吧",
        "我们住在上海",
        "我朋友喜欢咖啡",
        "The weather is nice today.",
    ],
)
def test_negatives_extract_nothing(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize(
    "text", ["Actually, I live in Tokyo now.", "不对，我住在东京。", "更正：我住在东京"]
)
def test_corrections_flag_the_corrected_statement(text: str) -> None:
    said = Interaction(text, T0, "user:alice", "agent-a")
    (m,) = EX.extract(said)
    assert m.correction and m.slot.key() == "fact/residence"
    assert m.confidence == 0.95 and m.importance == pytest.approx(0.9)
    assert m.content == text  # the user's own sentence


@pytest.mark.parametrize("text", ["No, I meant the blue button.", "不对，要的是结论。"])
def test_strong_corrections_without_a_statement_are_kept(text: str) -> None:
    (m,) = EX.extract(Interaction(text, T0, "user:alice", "agent-a"))
    assert (m.slot.key(), m.memory_type, m.rule, m.correction) == (
        "correction/feedback",
        MemoryType.PREFERENCE,
        "correction",
        True,
    )


def test_weak_marker_alone_extracts_nothing() -> None:
    assert extract("Actually, the weather is nice.") == []


def test_hedges_lower_confidence() -> None:
    (sure,) = EX.extract(Interaction("I prefer Rust.", T0, "user:a", "x"))
    (hedged,) = EX.extract(Interaction("Maybe I prefer Rust.", T0, "user:a", "x"))
    (zh,) = EX.extract(Interaction("我可能更喜欢Rust", T0, "user:a", "x"))
    assert hedged.confidence == pytest.approx(sure.confidence * 0.6) == zh.confidence


def test_several_sentences_and_provenance() -> None:
    said = Interaction(
        "I'm a PhD student. I live in Berlin! 我喜欢咖啡。", T0, "user:alice", "agent-a", "c1"
    )
    out = EX.extract(said)
    assert [m.slot.key() for m in out] == ["fact/role", "fact/residence", "preference/stance:咖啡"]
    m = out[1]
    assert (m.at, m.scope, m.source_agent, m.conversation_id, m.rule) == (
        T0,
        "user:alice",
        "agent-a",
        "c1",
        "en.residence.live",
    )
    assert m.to_meta() == {
        "governance": {
            "slot": "fact/residence",
            "value": "berlin",
            "importance": 0.8,
            "confidence": 0.9,
            "rule": "en.residence.live",
            "language": "en",
            "conversation_id": "c1",
        }
    }
    assert m.to_governed("id1").value == "berlin"


def test_sentence_splitting_keeps_dotted_words() -> None:
    assert split_sentences("I use Node.js daily. 我住在东京。你呢？") == [
        "I use Node.js daily.",
        "我住在东京。",
        "你呢？",
    ]


def test_llm_extraction_replays_from_the_recorded_decision() -> None:
    said = Interaction("I live in Tokyo", T0, "user:a", "x")
    items = [
        {"type": "fact", "slot": "fact/residence", "value": "Tokyo", "content": "I live in Tokyo",
         "confidence": 0.9, "importance": 0.8},
        {"type": "gossip", "slot": "x/y", "content": "bad type"},
        {"type": "fact", "slot": "noslot", "content": "bad slot"},
        {"type": "fact", "slot": "fact/x", "content": "", "confidence": 0.5},
        "not an object",
    ]  # fmt: skip
    decision = extraction_decision("extractor-llm-2", said, items)
    replayed = RecordedDecision.from_json(decision.to_json())
    (m,) = extracted_from_decision(replayed, said)
    assert (m.value, m.rule, m.slot.key()) == ("tokyo", "llm:extractor-llm-2", "fact/residence")
    with pytest.raises(ValueError):
        extracted_from_decision(RecordedDecision("conflict.llm_judge", "m"), said)
