"""A search reads only the records that can make its answer, and answers as if it had
read them all (``SearchReads.kept``).

The reference is the same search over hits the index says nothing of (``facts=None``):
then every candidate is read before anything is ranked, which is what a search did before
it ranked on the index's facts. Generated candidates tie on score, creation time and
type, differ in read count (which only breaks ties), and the store disagrees with the
index about some of them (gone, in another state, expired, key destroyed before
opening).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ai_memory.core.ports import HitFacts, IndexHit, IndexQuery
from ai_memory.core.record import MemoryState, MemoryType, StoredRecord
from ai_memory.service.memory_service import MemoryService, SearchRequest
from ai_memory.service.search_reads import SearchHit
from ai_memory.service.search_row_cache import SearchRowCache
from tests.factories import T0, FixedClock, record

NOW = T0 + timedelta(days=30)
DAYS = [T0 - timedelta(days=d) for d in (0, 0, 1, 7, 30, 400)]  # repeats: ties
SCORES = [1.0, 0.9, 0.9, 0.5, 0.5, 0.2, 0.0]


@dataclass
class Case:
    hits: list[IndexHit]
    rows: dict[str, StoredRecord]
    unopenable: set[str]


class _Index:
    def __init__(self, hits: list[IndexHit]) -> None:
        self.hits = hits

    def search(self, query: IndexQuery) -> list[IndexHit]:
        return list(self.hits)


class _Store:
    def __init__(self, rows: Mapping[str, StoredRecord], unopenable: set[str]) -> None:
        self.rows, self.unopenable = rows, unopenable
        self.read: list[str] = []
        self.calls = 0

    def get_many(
        self, tenant: str, memory_ids: Sequence[str], *, sealed: bool = False
    ) -> dict[str, StoredRecord]:
        self.read.extend(memory_ids)
        self.calls += 1
        return {m: self.rows[m] for m in memory_ids if m in self.rows}

    def unseal(self, tenant: str, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        return [s for s in records if s.record.id not in self.unopenable]


class _Units:
    serialized = False


class _Embedder:
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0] for _ in texts]


@st.composite
def cases(draw: st.DrawFn, *, stale_facts: bool = False) -> Case:
    n = draw(st.integers(0, 40))
    hits: list[IndexHit] = []
    rows: dict[str, StoredRecord] = {}
    unopenable: set[str] = set()
    for i in range(n):
        mid = f"m{i:02d}"
        kind = draw(st.sampled_from(list(MemoryType)))
        created = draw(st.sampled_from(DAYS))
        hits.append(IndexHit(mid, draw(st.sampled_from(SCORES)), {"fused": 1.0}))
        fate = draw(st.sampled_from(["live"] * 6 + ["gone", "historical", "expired", "unopenable"]))
        facts = HitFacts(kind, created)
        if stale_facts and draw(st.booleans()):
            kind = draw(st.sampled_from(list(MemoryType)))
            created = draw(st.sampled_from(DAYS))
        hits[-1] = replace(hits[-1], facts=facts)
        if fate == "gone":
            continue
        ttl = 60 if fate == "expired" else None
        rows[mid] = StoredRecord(
            tenant="t",
            record=record(mid, f"content {i}", type_=kind, created_at=created, ttl=ttl),
            version=1,
            state=MemoryState.HISTORICAL if fate == "historical" else MemoryState.ACTIVE,
            content_sha256="x",
            updated_at=created,
            position=i + 1,
            read_count=draw(st.integers(0, 2)),
        )
        if fate == "unopenable":
            unopenable.add(mid)
    return Case(hits, rows, unopenable)


def _live(memory_id: str, kind: MemoryType, *, version: int = 1) -> StoredRecord:
    """An active record created at ``T0``, at position ``version``."""
    return StoredRecord(
        "t", record(memory_id, type_=kind, created_at=T0), version, MemoryState.ACTIVE, "x",
        T0, version,
    )  # fmt: skip


def service(
    store: _Store, hits: list[IndexHit], row_cache: SearchRowCache | None = None
) -> MemoryService:
    """A memory service searching ``hits`` in ``store`` (and ``row_cache``, if given)."""
    return MemoryService(
        store=store,  # type: ignore[arg-type]
        index=_Index(hits),  # type: ignore[arg-type]
        embedder=_Embedder(),  # type: ignore[arg-type]
        clock=FixedClock(NOW),
        waiter=None,  # type: ignore[arg-type]
        units=_Units(),  # type: ignore[arg-type]
        row_cache=row_cache,
    )


def _search(case: Case, hits: list[IndexHit], **body: Any) -> tuple[list[SearchHit], _Store]:
    store = _Store(case.rows, case.unopenable)
    svc = service(store, hits)
    request = SearchRequest.parse({"query": "tea", **body}, svc.limits)
    return svc.search("t", request), store


def _shape(hits: list[SearchHit]) -> list[tuple[Any, ...]]:
    return [(h.stored.record.id, h.score, h.components, h.explanation) for h in hits]


def _blind(hits: list[IndexHit]) -> list[IndexHit]:
    return [replace(h, facts=None) for h in hits]


@settings(max_examples=300, deadline=None)
@given(cases(), st.integers(1, 12), st.booleans())
def test_the_answer_is_the_one_reading_every_candidate_gives(
    case: Case, top_k: int, rerank: bool
) -> None:
    got, store = _search(case, case.hits, top_k=top_k, rerank=rerank)
    want, everything = _search(case, _blind(case.hits), top_k=top_k, rerank=rerank)
    assert _shape(got) == _shape(want)
    assert len(store.read) == len(set(store.read))  # no record read twice
    assert len(store.read) <= len(everything.read)
    # One read, and a second of all the rest if a contender drops (the index was behind
    # its record, or its key is gone): never a round trip per dropped candidate.
    assert store.calls <= 2


@settings(max_examples=200, deadline=None)
@given(st.integers(11, 40), st.integers(1, 10))
def test_only_the_top_k_are_read_when_nothing_ties_or_drops(n: int, top_k: int) -> None:
    hits = [
        IndexHit(f"m{i:02d}", 1.0 - i / 100, {}, HitFacts(MemoryType.FACT, T0)) for i in range(n)
    ]
    rows = {h.memory_id: _live(h.memory_id, MemoryType.FACT) for h in hits}
    got, store = _search(Case(hits, rows, set()), hits, top_k=top_k)
    assert [h.stored.record.id for h in got] == [f"m{i:02d}" for i in range(top_k)]
    assert sorted(store.read) == [f"m{i:02d}" for i in range(top_k)]


@settings(max_examples=300, deadline=None)
@given(cases(stale_facts=True), st.integers(1, 12))
def test_what_it_returns_is_judged_and_ranked_by_the_records(case: Case, top_k: int) -> None:
    """The index's facts may be behind the records: every hit returned is still a live
    record in the state asked for, ranked and explained on the record's own fields, and
    the answer is ordered by those scores."""
    got, _ = _search(case, case.hits, top_k=top_k)
    assert len(got) <= top_k
    for hit in got:
        row = case.rows[hit.stored.record.id]
        assert row.state is MemoryState.ACTIVE and not row.record.is_expired(NOW)
        assert hit.stored.record.id not in case.unopenable
        assert hit.explanation is not None
        inputs = hit.explanation["inputs"]
        assert inputs["type"] == row.record.type.value
        assert inputs["created_at"] == row.record.created_at.isoformat()
        assert inputs["read_count"] == row.read_count
    scores = [h.score for h in got]
    assert scores == sorted(scores, reverse=True)
    # Nothing left out that its records would rank above the last kept one, among those
    # read: reading everything never returns fewer.
    want, _ = _search(case, _blind(case.hits), top_k=top_k)
    assert len(got) == len(want)


def test_a_stale_type_in_the_index_is_read_and_ranked_as_the_record_says() -> None:
    """The index still says "interaction" (low priority) for a memory its record now calls
    a preference: ranked on the index alone it would be left out of a top 1; it is a
    contender only if the index ranks it so — here it is, is read, and wins on the
    record's type."""
    stale = IndexHit("a", 1.0, {}, HitFacts(MemoryType.INTERACTION, T0))
    other = IndexHit("b", 1.0, {}, HitFacts(MemoryType.INTERACTION, T0))
    rows = {
        "a": _live("a", MemoryType.PREFERENCE, version=2),
        "b": _live("b", MemoryType.INTERACTION),
    }
    got, store = _search(Case([stale, other], rows, set()), [stale, other], top_k=1)
    assert [h.stored.record.id for h in got] == ["a"]
    assert got[0].explanation is not None
    assert got[0].explanation["inputs"]["type"] == "preference"
    assert sorted(store.read) == ["a", "b"]  # tied on the index's facts: both read


def test_relevance_is_normalised_to_a_candidate_the_store_still_holds() -> None:
    """The best-scored candidate sets the scale of relevance. Here it would not make the
    top 1 (old, a trace), and its record is gone: it is read all the same, dropped, and
    the answer's relevance is normalised to the best of what is left."""
    old = T0 - timedelta(days=400)
    gone = IndexHit("x", 1.0, {}, HitFacts(MemoryType.INTERACTION, old))
    kept = IndexHit("a", 0.9, {}, HitFacts(MemoryType.PREFERENCE, T0))
    rows = {"a": _live("a", MemoryType.PREFERENCE)}
    got, store = _search(Case([gone, kept], rows, set()), [gone, kept], top_k=1)
    assert [h.stored.record.id for h in got] == ["a"]
    assert got[0].explanation is not None
    assert got[0].explanation["inputs"]["relevance"] == 1.0
    assert sorted(store.read) == ["a", "x"]
