"""The governance scenarios as pure sequences: extraction → conflict → θ rule → lifecycle."""

from __future__ import annotations

from dataclasses import replace

from ai_memory.core.governance import plan_governor_pass, reconfirm, reconsider, score
from ai_memory.core.governance.resolution import CAUSE_RECONSIDER_OVERTAKEN
from ai_memory.core.governance.slots import PROGRAMMING_LANGUAGE, RESIDENCE
from ai_memory.core.record import MemoryState, MemoryType

from .helpers import PARAMS, Store, days, memory

A, H, R, F = MemoryState.ACTIVE, MemoryState.HISTORICAL, MemoryState.ARCHIVED, MemoryState.FORGOTTEN


def test_auckland_sydney_tokyo() -> None:
    s = Store()
    s.say("auckland", "I live in Auckland.", days(0))
    assert s.states() == {"auckland": A}
    s.say("sydney", "I moved to Sydney.", days(30))
    assert s.states() == {"auckland": R, "sydney": A}
    s.say("tokyo", "我现在住在东京", days(90))  # language does not matter to the slot
    assert s.states() == {"auckland": R, "sydney": R, "tokyo": A}
    assert s.active() == ["tokyo"]
    # history keeps the others (soft states, content intact)
    assert s.memories["auckland"].content == "I live in Auckland."


def test_a_quick_change_of_mind_keeps_the_old_state_as_historical() -> None:
    s = Store()
    s.say("tokyo", "I live in Tokyo.", days(0))
    s.say("osaka", "I moved to Osaka.", days(5))
    assert s.states() == {"osaka": A, "tokyo": H}


def test_restating_reinforces_instead_of_competing() -> None:
    from ai_memory.core.governance import DictionaryConflictDetector, govern_write
    from ai_memory.core.governance.extraction import Interaction, RuleBasedExtractor

    old = memory("tokyo", content="I live in Tokyo", value="tokyo", slot=RESIDENCE)
    said = Interaction("I moved to Tokyo.", days(3), "user:a", "x")
    new = RuleBasedExtractor().extract(said)[0].to_governed("tokyo-2")
    outcome = govern_write(new, [old], days(3), PARAMS, DictionaryConflictDetector())
    assert outcome.new_state is H and outcome.reinforce == ("tokyo",)
    assert outcome.cause == "slot.restatement" and outcome.transitions == ()


def test_java_to_rust() -> None:
    s = Store()
    s.say("java", "I prefer Java.", days(0))
    s.say("rust", "I prefer Rust over Java now.", days(60))
    assert s.states() == {"java": R, "rust": A}


def test_phd_to_startup() -> None:
    s = Store()
    s.say("phd", "I plan to apply for a PhD.", days(0))
    s.say("startup", "I want to start a startup.", days(10))
    # close scores: the PhD plan becomes historical rather than archived
    assert s.states() == {"phd": H, "startup": A}
    m = s.memories
    assert m["phd"].slot == m["startup"].slot and m["phd"].slot is not None
    assert m["phd"].slot.key() == "goal/career"


def test_weak_newcomer_loses_then_takes_over_when_reinforced() -> None:
    s = Store()
    s.memories["java"] = memory(
        "java",
        importance=0.9,
        confidence=0.95,
        mentions=3,
        slot=PROGRAMMING_LANGUAGE,
        value="java",
        content="I prefer Java",
        memory_type=MemoryType.PREFERENCE,
    )
    rust = s.say("rust", "Maybe I prefer Rust.", days(1))
    assert rust.state is H  # old stronger: stored historical (slow-update path)
    assert s.states() == {"java": A, "rust": H}
    # not yet reinforced: no takeover even after months
    assert reconsider(s.memories["rust"], s.memories["java"], days(150), PARAMS) == ()
    # reinforced: recalled many times, recently
    s.memories["rust"] = replace(s.memories["rust"], mentions=20, last_seen_at=days(149))
    now = days(150)
    margin = (
        score(s.memories["rust"], now, PARAMS).total - score(s.memories["java"], now, PARAMS).total
    )
    assert PARAMS.theta < margin <= PARAMS.reconsider_archive_margin
    changes = reconsider(s.memories["rust"], s.memories["java"], now, PARAMS)
    assert [(t.memory_id, t.from_state, t.to_state) for t in changes] == [
        ("java", A, H),
        ("rust", H, A),
    ]
    assert {t.cause for t in changes} == {CAUSE_RECONSIDER_OVERTAKEN}
    # the governor finds the same takeover on its own
    assert plan_governor_pass(list(s.memories.values()), now, PARAMS) == list(changes)
    s.apply(changes)
    assert s.active() == ["rust"]


def test_forgotten_memory_is_reconfirmed() -> None:
    s = Store()
    trace = memory("trace", importance=0.2, confidence=0.5, content="asked about trains")
    s.memories["trace"] = trace
    assert plan_governor_pass([trace], days(30), PARAMS) == []
    planned = plan_governor_pass([trace], days(100), PARAMS)
    assert [(t.memory_id, t.to_state, t.cause) for t in planned] == [
        ("trace", F, "score.below_forget")
    ]
    s.apply(planned)
    assert s.memories["trace"].content == "asked about trains"  # soft: kept for audit
    back = reconfirm(s.memories["trace"], s.memories.values(), days(101))
    assert [(t.from_state, t.to_state, t.cause) for t in back] == [(F, A, "reconfirmed")]
    s.apply(back)
    assert s.active() == ["trace"]


def test_reconfirming_an_old_residence_displaces_the_current_one() -> None:
    s = Store()
    s.say("tokyo", "I live in Tokyo.", days(0))
    s.say("osaka", "I moved to Osaka.", days(5))
    back = reconfirm(s.memories["tokyo"], s.memories.values(), days(6))
    s.apply(back)
    assert s.states() == {"osaka": H, "tokyo": A}
    assert back[1].cause == "reconfirmed.displaced"
