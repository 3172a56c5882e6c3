"""Agent notes: topic parsing, deterministic ids and the three-tier ranking (no I/O)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ai_memory.core.errors import InvalidInput
from ai_memory.core.record import Limits
from ai_memory.service.notes import (
    NoteRules,
    NoteView,
    explain,
    note_id,
    parse_topic,
    rank_notes,
    validate_agent,
    validate_note,
)
from tests.factories import T0

RULES = NoteRules()
LIMITS = Limits()


def note(nid: str, tags: tuple[str, ...], body: str = "", reads: int = 0, age: int = 0) -> NoteView:
    return NoteView(nid, tags, body, reads, T0 - timedelta(seconds=age))


def ids(query: tuple[str, ...], notes: list[NoteView], limit: int = 3) -> list[str]:
    return [r.note.id for r in rank_notes(query, notes, limit)]


# --- topics ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "tags"),
    [
        ("neo, jobs", ("neo", "jobs")),
        ("  Neo   JOBS,neo ", ("neo", "jobs")),
        (["neo", "Jobs, ops"], ("neo", "jobs", "ops")),
        ("记忆，数据库、向量", ("记忆", "数据库", "向量")),
        ("ＮＥＯ", ("neo",)),
    ],
)
def test_topics_are_split_normalised_and_deduplicated(raw: object, tags: tuple[str, ...]) -> None:
    assert parse_topic(raw, RULES, LIMITS) == tags


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("", "required"),
        (" , ", "required"),
        ("a b c d e f", "max_items"),
        ("x" * 65, "tag_format"),
        (42, "string_list"),
    ],
)
def test_bad_topics_name_the_field_and_rule(raw: object, rule: str) -> None:
    with pytest.raises(InvalidInput) as e:
        parse_topic(raw, RULES, LIMITS)
    assert (e.value.field, e.value.rule) == ("topic", rule)


def test_five_tags_are_fine_and_duplicates_do_not_count() -> None:
    assert len(parse_topic("a b c d e a A", RULES, LIMITS)) == 5


def test_note_and_agent_limits() -> None:
    assert validate_note("  x ", RULES) == "x"
    assert len(validate_note("字" * 500, RULES)) == 500
    with pytest.raises(InvalidInput) as e:
        validate_note("字" * 501, RULES)
    assert (e.value.field, e.value.code) == ("note", "note_too_long")
    with pytest.raises(InvalidInput):
        validate_note("   ", RULES)
    assert validate_agent("scout-7", LIMITS) == "scout-7"
    for bad in ("", "two words", ":x", "x" * 300):
        with pytest.raises(InvalidInput) as e:
            validate_agent(bad, LIMITS)
        assert e.value.field == "agent"


def test_note_ids_are_deterministic_per_agent_and_tag_set() -> None:
    assert note_id("a", ("neo", "jobs")) == note_id("a", ("jobs", "neo"))
    assert note_id("a", ("neo",)) != note_id("b", ("neo",))
    assert note_id("a", ("neo",)) != note_id("a", ("neo", "jobs"))
    assert note_id("a", ("neo",), 2) == note_id("a", ("neo",)) + "-2"


# --- ranking -----------------------------------------------------------------------------------
def test_exact_tag_beats_contains_beats_nothing_whatever_the_reads() -> None:
    notes = [
        note("body", ("misc",), "ask neo later", reads=90),
        note("tag-contains", ("neo4j",), reads=50),
        note("exact", ("neo", "jobs"), reads=0),
        note("unrelated", ("ops",), "deploy", reads=1000),
    ]
    assert ids(("neo",), notes, limit=10) == ["exact", "body", "tag-contains"]
    why = {r.note.id: r.why for r in rank_notes(("neo",), notes, 10)}
    assert (why["exact"].tier, why["exact"].tags, why["exact"].words) == (1, ("neo",), ("neo",))
    assert (why["tag-contains"].tier, why["tag-contains"].tags) == (2, ("neo4j",))
    assert not why["tag-contains"].in_body
    assert why["body"].tier == 2 and why["body"].in_body and why["body"].tags == ()
    assert why["body"].read_count == 90


def test_read_count_orders_inside_a_tier_then_newest_then_id() -> None:
    notes = [
        note("a", ("neo",), reads=1),
        note("b", ("neo",), reads=5),
        note("c", ("neo",), reads=1, age=-10),  # newer than a
        note("d", ("neo",), reads=1),
    ]
    assert ids(("neo",), notes, limit=4) == ["b", "c", "a", "d"]


def test_more_matched_words_rank_first_within_a_tier() -> None:
    notes = [note("one", ("neo",), reads=9), note("both", ("neo", "jobs"))]
    assert ids(("neo", "jobs"), notes) == ["both", "one"]
    assert rank_notes(("neo", "jobs"), notes, 3)[0].why.words == ("neo", "jobs")


def test_at_most_limit_and_only_matching_notes() -> None:
    notes = [note(str(i), ("neo",), reads=i) for i in range(6)] + [note("x", ("ops",))]
    assert ids(("neo",), notes) == ["5", "4", "3"]
    assert ids(("nothing",), notes) == []


def test_chinese_topics_match_exactly_and_by_substring() -> None:
    notes = [
        note("exact", ("记忆", "数据库"), "标签加读取计数"),
        note("tag", ("长期记忆",), reads=3),
        note("body", ("笔记",), "Agent要的是一个记忆本，不是向量数据库", reads=7),
        note("other", ("任务",), "明天交付"),
    ]
    assert ids(("记忆",), notes) == ["exact", "body", "tag"]
    assert ids(("向量",), notes) == ["body"]
    why = explain(("数据库",), notes[0])
    assert why is not None and why.tier == 1 and why.tags == ("数据库",)


def test_query_and_stored_tags_are_compared_normalised() -> None:
    assert ids(("neo",), [note("n", ("NEO",), "Neo")]) == ["n"]
    why = explain(("straße",), note("s", ("misc",), "Meet at STRASSE 5"))
    assert why is None  # the query is normalised by parse_topic, not by explain
    why = explain(parse_topic("straße", RULES, LIMITS), note("s", ("misc",), "STRASSE 5"))
    assert why is not None and why.tier == 2 and why.in_body
