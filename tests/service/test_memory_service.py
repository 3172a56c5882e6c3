"""MemoryService: write/upsert, versions, delete and forget, search, read reinforcement."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ai_memory.bootstrap import Container
from ai_memory.core.conversation_context import AFTER
from ai_memory.core.errors import Conflict, Gone, InvalidInput, NotFound
from ai_memory.core.record import MemoryState
from ai_memory.service.memory_service import MemoryService, SearchRequest
from tests.factories import FixedClock


def body(content: str = "Alice prefers green tea.", **kw: Any) -> dict[str, Any]:
    return {
        "type": kw.pop("type", "preference"),
        "content": content,
        "scope": kw.pop("scope", "user:alice"),
        "source_agent": kw.pop("source_agent", "planner"),
        **kw,
    }


def search(svc: MemoryService, tenant: str, query: str, **kw: Any) -> list[str]:
    request = SearchRequest.parse({"query": query, **kw}, svc.limits)
    return [h.stored.record.id for h in svc.search(tenant, request)]


@pytest.fixture
def svc(container: Container) -> MemoryService:
    return container.service


def test_write_then_read_your_write(svc: MemoryService, tenant: str) -> None:
    result = svc.write(tenant, body(id="tea"), wait=True)
    assert (result.created, result.changed, result.version) == (True, True, 1)
    got = svc.get(tenant, "tea")
    assert got.record.content == "Alice prefers green tea."
    assert got.version == 1 and got.state is MemoryState.ACTIVE and got.position == result.position


def test_same_write_twice_is_idempotent(
    svc: MemoryService, tenant: str, container: Container
) -> None:
    first = svc.write(tenant, body(id="tea"), wait=True)
    head = container.log.last_position()
    again = svc.write(tenant, body(id="tea"), wait=True)
    assert (again.created, again.changed, again.version) == (False, False, 1)
    assert again.position == first.position
    assert container.log.last_position() == head  # nothing appended


def test_upsert_with_new_content_makes_a_new_version(svc: MemoryService, tenant: str) -> None:
    svc.write(tenant, body(id="tea"), wait=True)
    second = svc.write(tenant, body("Alice prefers black tea.", id="tea"), wait=True)
    assert (second.created, second.changed, second.version) == (False, True, 2)
    got = svc.get(tenant, "tea")
    assert got.version == 2 and got.record.content == "Alice prefers black tea."


def test_server_assigns_an_id_when_none_is_given(svc: MemoryService, tenant: str) -> None:
    result = svc.write(tenant, body(), wait=True)
    assert result.record.id and svc.get(tenant, result.record.id).version == 1


def test_invalid_write_names_the_field(svc: MemoryService, tenant: str) -> None:
    with pytest.raises(InvalidInput) as e:
        svc.write(tenant, body(scope="Not A Scope"))
    assert e.value.field == "scope"


def test_delete_forgets_and_reads_answer_gone(svc: MemoryService, tenant: str) -> None:
    svc.write(tenant, body(id="tea"), wait=True)
    deleted = svc.delete(tenant, "tea", actor="alice", wait=True)
    assert not deleted.already_forgotten
    with pytest.raises(Gone) as e:
        svc.get(tenant, "tea")
    assert e.value.code == "memory_forgotten"
    assert search(svc, tenant, "green tea") == []
    again = svc.delete(tenant, "tea", actor="alice")
    assert again.already_forgotten and again.position == deleted.position


def test_a_forgotten_id_is_never_written_again(svc: MemoryService, tenant: str) -> None:
    svc.write(tenant, body(id="tea"), wait=True)
    svc.delete(tenant, "tea", actor="alice", wait=True)
    with pytest.raises(Gone):
        svc.write(tenant, body("Alice prefers coffee now.", id="tea"))


def test_scope_of_a_memory_is_immutable(svc: MemoryService, tenant: str) -> None:
    svc.write(tenant, body(id="tea"), wait=True)
    with pytest.raises(Conflict) as e:
        svc.write(tenant, body(id="tea", scope="user:bob"))
    assert e.value.code == "scope_immutable"


def test_unknown_memory_is_not_found(svc: MemoryService, tenant: str) -> None:
    with pytest.raises(NotFound):
        svc.get(tenant, "nope")


def test_tenants_never_see_each_other(svc: MemoryService, tenant: str) -> None:
    other = f"{tenant}-other"
    svc.write(other, body(id="tea"), wait=True)
    with pytest.raises(NotFound):
        svc.get(tenant, "tea")
    assert search(svc, tenant, "green tea") == []
    assert search(svc, other, "green tea") == ["tea"]


def test_search_filters_on_scope_type_and_tags(svc: MemoryService, tenant: str) -> None:
    svc.write(tenant, body(id="a", tags=["drinks"]))
    svc.write(tenant, body("Bob prefers green tea too.", id="b", scope="user:bob"))
    last = svc.write(tenant, body("Green tea is grown in Japan.", id="c", type="fact"), wait=True)
    svc.wait_for(last.position)
    assert set(search(svc, tenant, "green tea")) == {"a", "b", "c"}
    assert set(search(svc, tenant, "green tea", scope="user:alice")) == {"a", "c"}
    assert search(svc, tenant, "green tea", types=["fact"]) == ["c"]
    assert search(svc, tenant, "green tea", tags=["drinks"]) == ["a"]
    for mode in ("semantic", "keyword"):
        assert search(svc, tenant, "green tea", mode=mode, scope="user:bob") == ["b"]


def test_expired_memories_are_not_found(svc: MemoryService, tenant: str, clock: FixedClock) -> None:
    svc.write(tenant, body("The login code is 4411.", id="otp", type="fact", ttl=60), wait=True)
    assert search(svc, tenant, "login code") == ["otp"]
    clock.advance(61)
    assert search(svc, tenant, "login code") == []


def test_search_reinforces_what_it_returned(
    svc: MemoryService, tenant: str, container: Container
) -> None:
    svc.write(tenant, body(id="tea"), wait=True)
    svc.write(tenant, body("The deploy pipeline uses GitHub Actions.", id="ci", type="fact"))
    svc.wait_for(container.log.last_position())
    assert search(svc, tenant, "green tea", top_k=1) == ["tea"]
    assert svc.recalls is not None and svc.recalls.flush() >= 1
    svc.wait_for(container.log.last_position())
    assert svc.get(tenant, "tea").read_count == 1
    assert svc.get(tenant, "ci").read_count == 0


class _Unsealing:
    """The record store as a search sees it when some candidates' keys are destroyed
    between its read of every candidate and its opening of the kept ones: they no longer
    open."""

    def __init__(self, inner: Any, gone: set[str]) -> None:
        self.inner, self.gone = inner, gone
        self.opened: list[list[str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def unseal(self, tenant: str, records: Any) -> list[Any]:
        self.opened.append([s.record.id for s in records])
        return [s for s in self.inner.unseal(tenant, records) if s.record.id not in self.gone]


def test_kept_hits_that_no_longer_open_are_replaced_by_the_next(
    svc: MemoryService, tenant: str, container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"Alice drinks green tea number {n} with her mother." for n in range(8)]
    for n, text in enumerate(texts):
        svc.write(tenant, body(text, id=f"t{n}"))
    svc.wait_for(container.log.last_position())
    request = SearchRequest.parse({"query": "green tea", "top_k": 3}, svc.limits)
    everything = [h.stored.record.id for h in svc.search(tenant, replace(request, top_k=8))]
    assert len(everything) == 8
    gone = {everything[0], everything[2]}
    unsealing = _Unsealing(svc.store, gone)
    monkeypatch.setattr(svc, "store", unsealing)
    hits = svc.search(tenant, request)
    # What a search over the others alone returns: the next ones, ranked among themselves.
    rest = [m for m in everything if m not in gone]
    assert [h.stored.record.id for h in hits] == rest[:3]
    assert all(h.stored.record.content.startswith("Alice drinks") for h in hits)
    # Only the kept ones were opened: never the whole recall. The first search cached
    # the rows it read, so each that did not open is read and opened once more from the
    # store before it is given up (``service.search_row_cache``): 3 + 2 + 2.
    assert len(unsealing.opened[0]) == 3
    assert sum(len(o) for o in unsealing.opened) <= 7
    opened = [m for o in unsealing.opened for m in o]
    assert all(opened.count(m) == (2 if m in gone else 1) for m in opened)


def test_a_position_beyond_the_head_is_refused(svc: MemoryService, tenant: str) -> None:
    with pytest.raises(InvalidInput) as e:
        svc.get(tenant, "tea", min_position=10**9)
    assert e.value.code == "position_beyond_head"


def test_search_finds_a_turn_through_the_turn_before_it(svc: MemoryService, tenant: str) -> None:
    """Conversation context: the answer ("Four years now") shares no word with the
    question; the turn asking it does, and brings its neighbour along."""
    turns = [
        "Caroline: We met at the climbing gym.",
        "Melanie: How long have you known your friends there?",
        "Caroline: Four years now, since college.",
        "Melanie: Pottery class is on Tuesday.",
    ]
    for i, text in enumerate(turns):
        last = svc.write(
            tenant,
            body(
                text,
                id=f"d1-{i}",
                type="interaction",
                created_at=f"2023-05-08T13:56:0{i}Z",
                meta={"session_id": "session_1"},
            ),
        )
    svc.write(tenant, body("Friends since when?", id="other", type="interaction"))
    svc.wait_for(last.position)
    request = SearchRequest.parse({"query": "how long known friends", "top_k": 3}, svc.limits)
    hits = svc.search(tenant, request)
    by_id = {h.stored.record.id: h for h in hits}
    assert by_id["d1-1"].score > by_id["d1-2"].score
    assert by_id["d1-2"].components["context"] > 0
    # Keyword search alone: the answer scores only through its neighbour.
    keyword = SearchRequest.parse(
        {"query": "how long known friends", "mode": "keyword", "rerank": False}, svc.limits
    )
    found = {h.stored.record.id: h for h in svc.search(tenant, keyword)}
    assert found["d1-2"].components == {"context": pytest.approx(AFTER[0] * found["d1-1"].score)}
    alone = search(svc, tenant, "how long known friends", mode="keyword", context=False)
    assert "d1-1" in alone and "d1-2" not in alone


def test_context_must_be_a_boolean(svc: MemoryService) -> None:
    with pytest.raises(InvalidInput) as e:
        SearchRequest.parse({"query": "tea", "context": "yes"}, svc.limits)
    assert e.value.field == "context"


def test_a_date_in_the_question_finds_what_was_said_that_day(
    svc: MemoryService, tenant: str
) -> None:
    """The question names a day; the turn said that day shares fewer words with it than
    turns of other days. ``dates`` reads the day and lets that day's memories compete in
    their own right: the turn climbs, nothing else is dropped."""
    said = [
        ("oct", "Melanie: Here is the painting I finished, a lake at sunrise.", "2023-10-13"),
        ("may", "Melanie: I showed Caroline my painting of a horse in May.", "2023-05-20"),
        ("jun", "Caroline: Thanks for showing me the painting, Melanie!", "2023-06-02"),
        ("jul", "Melanie: Caroline, did I show you the pottery bowl?", "2023-07-09"),
        ("aug", "Caroline: The weather was lovely at the lake.", "2023-08-11"),
        ("sep", "Melanie: The kids went back to school.", "2023-09-04"),
    ]
    for memory_id, text, day in said:
        last = svc.write(
            tenant,
            body(
                text,
                id=memory_id,
                type="interaction",
                created_at=f"{day}T10:00:00Z",
                meta={"session_id": day},  # one turn per session: no conversation context
            ),
        )
    svc.wait_for(last.position)
    question = "What painting did Melanie show to Caroline on October 13, 2023?"
    plain = search(svc, tenant, question, dates=False)
    hits = svc.search(tenant, SearchRequest.parse({"query": question}, svc.limits))
    dated = [h.stored.record.id for h in hits]
    assert set(dated) == set(plain)  # a boost, not a filter
    assert dated.index("oct") < plain.index("oct")
    oct_hit = hits[dated.index("oct")]
    assert oct_hit.components["dated_dense_rank"] == oct_hit.components["dated_keyword_rank"] == 1
    assert not any(k.startswith("dated_") for h in hits if h is not oct_hit for k in h.components)


def test_dates_must_be_a_boolean(svc: MemoryService) -> None:
    with pytest.raises(InvalidInput) as e:
        SearchRequest.parse({"query": "tea", "dates": "yes"}, svc.limits)
    assert e.value.field == "dates"
