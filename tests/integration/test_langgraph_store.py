"""``AiMemoryStore`` against a real server process, checked against LangGraph's own
``InMemoryStore``: the same operations must give the same answers (LangGraph ships no
reusable store test-suite, so its reference implementation is the contract)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, Item
from langgraph.store.memory import InMemoryStore

from ai_memory.core.record import Limits, validate_id, validate_scope
from ai_memory.sdk import AiMemoryStore, MemoryClient, wake_up
from ai_memory.sdk.langgraph_store import namespace_to_scope, scope_to_namespace
from tests.e2e.test_server_and_cli import Server

LIMITS = Limits()
labels = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters=".\x00"),
    min_size=1,
    max_size=12,
)
namespaces = st.lists(labels, min_size=1, max_size=4).map(tuple)


def test_namespace_mapping_examples() -> None:
    assert namespace_to_scope(("user", "alice")) == "user:alice"
    assert namespace_to_scope(("user", "alice", "notes")) == "user:alice/notes"
    assert namespace_to_scope(("memories",)) == "lg:memories"
    assert namespace_to_scope(("Users", "a b")) == "lg:Users/a%20b"
    assert namespace_to_scope(("lg", "x")) == "lg:lg/x"
    assert namespace_to_scope(("team", "a/b:c")) == "team:a%2Fb%3Ac"
    assert namespace_to_scope(("memories",), prefix="agentmem") == "agentmem:memories"
    with pytest.raises(ValueError):
        scope_to_namespace("public")


@given(namespaces, namespaces)
def test_namespace_mapping_is_reversible_and_valid(a: tuple[str, ...], b: tuple[str, ...]) -> None:
    scope = namespace_to_scope(a)
    assert scope_to_namespace(scope) == a
    if len(scope) <= LIMITS.max_scope_chars:
        assert validate_scope(scope, LIMITS) == scope
    assert (namespace_to_scope(b) == scope) == (a == b)


@given(namespaces, labels, namespaces, labels)
def test_item_ids_are_valid_and_distinct(
    ns: tuple[str, ...], key: str, ns2: tuple[str, ...], key2: str
) -> None:
    with MemoryClient("http://unused.test") as client:
        store = AiMemoryStore(client)
    first = store.item_id(ns, key)
    assert validate_id(first, LIMITS) == first
    assert validate_id(store.item_id(ns, key, 7), LIMITS)
    assert (store.item_id(ns2, key2) == first) == ((ns, key) == (ns2, key2))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("langgraph") / "data")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[MemoryClient]:
    with MemoryClient(server.url) as c:
        yield c


@pytest.fixture
def store(client: MemoryClient) -> AiMemoryStore:
    return AiMemoryStore(client, source_agent="graph")


def both(store: AiMemoryStore) -> list[BaseStore]:
    return [store, InMemoryStore()]


def plain(items: list[Any]) -> list[tuple[tuple[str, ...], str, dict[str, Any]]]:
    return [(i.namespace, i.key, i.value) for i in items]


def test_put_get_update_delete_and_put_again(store: AiMemoryStore) -> None:
    ns = ("user", "alice", "prefs")
    assert store.get(ns, "style") is None
    store.put(ns, "style", {"text": "Short bullet lists, no tables."})
    item = store.get(ns, "style")
    assert isinstance(item, Item) and item.value == {"text": "Short bullet lists, no tables."}
    assert (item.namespace, item.key) == (ns, "style") and item.created_at <= item.updated_at
    store.put(ns, "style", {"text": "Numbered lists."})
    updated = store.get(ns, "style")
    assert updated is not None and updated.value == {"text": "Numbered lists."}
    assert updated.created_at == item.created_at

    store.delete(ns, "style")
    assert store.get(ns, "style") is None
    store.delete(ns, "style")  # deleting twice is fine
    store.put(ns, "style", {"text": "Back again."})  # a forgotten id is not reused...
    fresh = AiMemoryStore(store.client, source_agent="graph")  # ...and is found without cache
    again = fresh.get(ns, "style")
    assert again is not None and again.value == {"text": "Back again."}
    fresh.delete(ns, "style")
    assert store.get(ns, "style") is None


def test_values_that_are_not_text_round_trip(store: AiMemoryStore, client: MemoryClient) -> None:
    value = {
        "score": 4.5,
        "count": 3,
        "ok": True,
        "none": None,
        "tags": ["a", "b"],
        "nested": {"deep": [1, {"x": "y"}]},
        "note": "line one\nline two \u0001 control",
        "中文": "喜欢简短的回答",
    }
    ns = ("user", "alice", "profile")
    store.put(ns, "everything", value)
    got = store.get(ns, "everything")
    assert got is not None and got.value == value
    record = client.get(store.item_id(ns, "everything"))
    assert record.scope == "user:alice/profile" and record.source_agent == "graph"
    assert "score: 4.5" in record.content and "中文: 喜欢简短的回答" in record.content
    store.put(ns, "empty", {})
    empty = store.get(ns, "empty")
    assert empty is not None and empty.value == {}


def test_search_by_meaning_within_a_prefix(store: AiMemoryStore) -> None:
    store.put(("user", "bob", "prefs"), "food", {"text": "Bob loves spicy Sichuan food."})
    store.put(("user", "bob", "prefs"), "editor", {"text": "Bob edits code in Neovim."})
    store.put(("user", "bob", "work"), "team", {"text": "Bob works on the payments team."})
    store.put(("user", "zoe", "prefs"), "food", {"text": "Zoe loves spicy Thai food."})

    hits = store.search(("user", "bob"), query="what food does he like", limit=2)
    assert hits[0].key == "food" and hits[0].namespace == ("user", "bob", "prefs")
    assert all(h.namespace[:2] == ("user", "bob") for h in hits)
    assert hits[0].score is not None
    work = store.search(("user", "bob", "work"), query="food")
    assert [h.key for h in work] == ["team"]
    everyone = store.search(("user",), query="spicy food", limit=10)
    assert {h.namespace[1] for h in everyone if h.key == "food"} == {"bob", "zoe"}
    second = store.search(("user", "bob"), query="food", limit=1, offset=1)
    assert len(second) == 1 and second[0].key != hits[0].key


def test_filters_offsets_and_listing_match_the_reference(store: AiMemoryStore) -> None:
    rows = [
        (("shop", "items"), "apple", {"kind": "fruit", "price": 1.5, "meta": {"color": "red"}}),
        (("shop", "items"), "pear", {"kind": "fruit", "price": 2.5, "meta": {"color": "green"}}),
        (("shop", "items"), "leek", {"kind": "veg", "price": 0.5, "meta": {"color": "green"}}),
        (("shop", "stock", "eu"), "apple", {"kind": "fruit", "price": 1.0}),
    ]
    filters: list[dict[str, Any]] = [
        {"kind": "fruit"},
        {"price": {"$gt": 1.0}},
        {"price": {"$gte": 1.0, "$lt": 2.0}},
        {"kind": {"$ne": "fruit"}},
        {"meta": {"color": "green"}},
    ]
    results: list[list[Any]] = []
    for s in both(store):
        for ns, key, value in rows:
            s.put(ns, key, value)
        got: list[Any] = [sorted(plain(s.search(("shop",), filter=f, limit=50))) for f in filters]
        got.append(len(s.search(("shop",), limit=2, offset=1)))
        got.append(s.list_namespaces(prefix=("shop",)))
        got.append(s.list_namespaces(prefix=("shop",), max_depth=2))
        got.append(s.list_namespaces(suffix=("eu",)))
        got.append(s.list_namespaces(prefix=("shop", "*"), limit=1, offset=1))
        results.append(got)
    assert results[0] == results[1]
    assert results[0][0] == sorted([r for r in plain_rows(rows) if r[2]["kind"] == "fruit"])
    assert results[0][-3] == [("shop", "items"), ("shop", "stock")]


def plain_rows(rows: list[Any]) -> list[tuple[tuple[str, ...], str, dict[str, Any]]]:
    return [(ns, key, value) for ns, key, value in rows]


def test_batch_async_ttl_and_invalid_namespaces(store: AiMemoryStore) -> None:
    ns = ("agent", "batcher")

    async def go() -> None:
        await store.aput(ns, "k1", {"text": "first"})
        got = await store.aget(ns, "k1")
        assert got is not None and got.value == {"text": "first"}
        assert [h.key for h in await store.asearch(ns, query="first")] == ["k1"]
        assert ns in await store.alist_namespaces(prefix=("agent",))
        await store.adelete(ns, "k1")
        assert await store.aget(ns, "k1") is None

    asyncio.run(go())
    with pytest.raises(NotImplementedError):
        store.put(ns, "k", {"a": 1}, ttl=5)
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"a": 1})
    with pytest.raises(InvalidNamespaceError):
        store.get(("a.b",), "k")


def test_a_graph_remembers_across_threads_and_other_agents_see_it(
    store: AiMemoryStore, client: MemoryClient
) -> None:
    class State(TypedDict):
        user: str
        said: str
        recalled: list[str]

    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        ns = ("user", state["user"], "memories")
        if state["said"]:
            store.put(ns, str(abs(hash(state["said"]))), {"text": state["said"]})
        found = store.search(ns, query="how should answers look", limit=3)
        return {"recalled": [h.value["text"] for h in found]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(store=store)

    graph.invoke(
        {"user": "dora", "said": "I prefer answers in one short paragraph.", "recalled": []}
    )
    later = graph.invoke({"user": "dora", "said": "", "recalled": []})
    assert later["recalled"] == ["I prefer answers in one short paragraph."]

    block = wake_up(client, "how should answers look", "user:dora/memories", k=3)
    assert "one short paragraph" in block and "(graph," in block


class NoExport(MemoryClient):
    def export_lines(self, scope: Any = None) -> Iterator[str]:
        raise AssertionError("a listing pages through GET /v1/memories, never an export")


def test_listing_pages_instead_of_exporting(server: Server) -> None:
    with NoExport(server.url, timeout=30) as client:
        store = AiMemoryStore(client)
        for i in range(5):
            store.put(("pages", "a"), f"k{i}", {"n": i})
        store.put(("pages", "b"), "k", {"n": 9})
        assert len(store.search(("pages",), limit=10)) == 6
        assert sorted(i.key for i in store.search(("pages", "a"), limit=10)) == [
            f"k{i}" for i in range(5)
        ]
        assert {("pages", "a"), ("pages", "b")} <= set(store.list_namespaces(prefix=("pages",)))
