from __future__ import annotations

import pytest

from ai_memory.core.governance import (
    DictionaryConflictDetector,
    EmbeddingSimilarityDetector,
    JudgeAnswer,
    LLMJudgeDetector,
    RecordedDecision,
    Relation,
    Slot,
    verdict_from_decision,
)
from ai_memory.core.governance.conflicts import find_terms, hit_opposite
from ai_memory.core.governance.slots import RESIDENCE, normalize_value

from .helpers import memory

STANCE_COFFEE = Slot.stance("coffee")
PLAN = Slot("goal", "plan")


def test_longer_terms_mask_shorter_ones() -> None:
    assert find_terms("I don't like Java", ["like", "don't like"]) == {"don't like"}
    assert find_terms("我不喜欢Java", ["喜欢", "不喜欢"]) == {"不喜欢"}
    assert find_terms("I dislike it", ["like"]) == frozenset()
    assert find_terms("I DON’T  LIKE it", ["don't like"]) == {"don't like"}


def test_hit_opposite_is_symmetric() -> None:
    assert hit_opposite("I like tea", "I don't like tea") == ("like", "don't like")
    assert hit_opposite("我不喜欢茶", "我喜欢茶") == ("喜欢", "不喜欢")
    assert hit_opposite("I prefer Rust", "I prefer Java") == ("java", "rust")
    assert hit_opposite("I like tea", "I love tea") is None


def test_dictionary_requires_the_same_slot() -> None:
    d = DictionaryConflictDetector()
    v = d.detect(
        memory("n", slot=RESIDENCE, value="sydney", content="I moved to Sydney"),
        memory("o", slot=Slot("fact", "role"), value="student", content="I live in Auckland"),
    )
    assert not v.conflict and v.relation is Relation.UNRELATED


def test_dictionary_names_the_opposite_pair() -> None:
    v = DictionaryConflictDetector().detect(
        memory("n", slot=STANCE_COFFEE, value="dislike", content="我不喜欢咖啡"),
        memory("o", slot=STANCE_COFFEE, value="like", content="我喜欢咖啡"),
    )
    assert v.conflict and v.matched_pair == ("喜欢", "不喜欢")
    assert v.detector == "dictionary" and "opposite pair" in v.reason
    assert v.inputs["old_id"] == "o" and v.inputs["new_content"] == "我不喜欢咖啡"


def test_exclusive_slot_compares_values() -> None:
    d = DictionaryConflictDetector()
    tokyo = memory("n", slot=RESIDENCE, value="tokyo", content="I live in Tokyo")
    sydney = memory("o", slot=RESIDENCE, value="sydney", content="I live in Sydney")
    again = memory("o", slot=RESIDENCE, value="tokyo", content="I moved to Tokyo")
    v = d.detect(tokyo, sydney)
    assert v.conflict and "'tokyo' ≠ 'sydney'" in v.reason
    assert d.detect(tokyo, again).relation is Relation.RESTATEMENT


def test_non_exclusive_slot_values_coexist() -> None:
    d = DictionaryConflictDetector()
    a = memory("n", slot=PLAN, value="learn rust", content="I want to learn Rust")
    b = memory("o", slot=PLAN, value="run a marathon", content="I want to run a marathon")
    assert d.detect(a, b).relation is Relation.COMPATIBLE
    not_b = memory("x", slot=PLAN, value="not: learn rust", content="I don't want to learn Rust")
    assert d.detect(not_b, a).conflict


def test_deployment_exclusive_slots() -> None:
    editor = Slot("preference", "editor")
    a = memory("n", slot=editor, value="vim", content="vim")
    b = memory("o", slot=editor, value="emacs", content="emacs")
    assert not DictionaryConflictDetector().detect(a, b).conflict
    assert DictionaryConflictDetector(extra_exclusive=[editor]).detect(a, b).conflict


def test_embedding_detector_uses_the_threshold() -> None:
    sims = {
        ("I live in Tokyo", "I live in Sydney"): 0.5,
        ("I moved to Tokyo", "I live in Tokyo"): 0.95,
    }
    d = EmbeddingSimilarityDetector(lambda a, b: sims[(a, b)], tau=0.8)
    tokyo = memory("n", slot=RESIDENCE, content="I live in Tokyo")
    v = d.detect(tokyo, memory("o", slot=RESIDENCE, content="I live in Sydney"))
    assert v.conflict and v.inputs["similarity"] == "0.500000"
    moved = memory("m", slot=RESIDENCE, content="I moved to Tokyo")
    assert d.detect(moved, tokyo).relation is Relation.RESTATEMENT
    assert not d.detect(tokyo, memory("x", slot=PLAN, content="x")).conflict
    with pytest.raises(ValueError):
        EmbeddingSimilarityDetector(lambda a, b: 0.0, tau=2)


class FakeJudge:
    def __init__(self) -> None:
        self.calls = 0

    @property
    def model(self) -> str:
        return "judge-model-1"

    def judge(self, new_content: str, old_content: str, slot: str) -> JudgeAnswer:
        self.calls += 1
        return JudgeAnswer(conflict=True, rationale=f"{slot}: cannot live in both")


def test_llm_judge_records_a_replayable_decision() -> None:
    judge = FakeJudge()
    detector = LLMJudgeDetector(judge)
    new = memory("n", slot=RESIDENCE, content="I live in Tokyo")
    v = detector.detect(new, memory("o", slot=RESIDENCE, content="I live in Sydney"))
    assert v.conflict and v.decision is not None and v.decision.model == "judge-model-1"
    recorded = v.decision.to_json()
    replayed = verdict_from_decision(RecordedDecision.from_json(recorded))
    assert replayed == v and judge.calls == 1
    # different slots never reach the model
    assert not detector.detect(new, memory("x", slot=PLAN, content="x")).conflict
    assert judge.calls == 1


def test_recorded_decision_rejects_malformed_json() -> None:
    with pytest.raises(ValueError):
        RecordedDecision.from_json('{"kind": "x"}')
    with pytest.raises(ValueError):
        verdict_from_decision(RecordedDecision("extraction.llm", "m"))


def test_normalize_value() -> None:
    assert normalize_value("  The Tokyo. ") == "tokyo"
    assert normalize_value("东京。") == "东京"
    with pytest.raises(ValueError):
        Slot.parse("no-separator")
    assert Slot.parse("fact/residence") == RESIDENCE
