"""The Qdrant server adapter against the VectorIndex contract, on qdrant-client's local
mode (no server binary is needed: local mode implements the same client API), plus its
URL, naming, error-mapping and zero-downtime-rebuild behaviour."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from ai_memory.adapters import index_payload as ip
from ai_memory.adapters import qdrant_server_support as qs
from ai_memory.adapters.qdrant_server_index import QdrantServerIndex
from ai_memory.core.errors import InvalidInput, Unavailable
from ai_memory.core.projection import IndexRemove, IndexSetState
from ai_memory.core.record import MemoryState
from tests.contract.vector_index_contract import (
    DIM,
    MakeIndex,
    VectorIndexContract,
    apply,
    axis,
    ids,
    put,
    q,
)


class TestQdrantServerIndex(VectorIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        url = f"qdrant+local://{tmp_path / 'qdrant'}"
        yield lambda: QdrantServerIndex.from_url(url, DIM, "test-model")


class TestQdrantServerIndexConditionalWrites(VectorIndexContract):
    """The guarded write path a real server uses (``update_filter``, filtered set_payload)
    must satisfy the same contract; local mode implements both."""

    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        url = f"qdrant+local://{tmp_path / 'qdrant'}"
        yield lambda: QdrantServerIndex.from_url(url, DIM, "test-model", conditional_writes=True)


@pytest.fixture
def client() -> Iterator[QdrantClient]:
    c = QdrantClient(location=":memory:")
    yield c
    c.close()


# --- URLs and names -------------------------------------------------------------------
def test_server_urls() -> None:
    t = qs.parse_url("qdrant+https://q.example:6334/base?api_key=k1&timeout=7")
    assert (t.url, t.api_key, t.timeout, t.local) == ("https://q.example:6334/base", "k1", 7, False)
    assert qs.parse_url("qdrant+http://localhost:6333", "from-env").api_key == "from-env"
    assert qs.parse_url("qdrant+http://h?api_key=url", "from-env").api_key == "url"
    assert qs.parse_url("qdrant+http://h").api_key is None


def test_local_urls() -> None:
    assert qs.parse_url("qdrant+local:///var/lib/q").path == "/var/lib/q"
    assert qs.parse_url("qdrant+memory://").memory


@pytest.mark.parametrize(
    "url", ["qdrant-edge:///x", "qdrant+ftp://h", "qdrant+local://", "qdrant+http:///nohost"]
)
def test_bad_urls_are_invalid(url: str) -> None:
    with pytest.raises(InvalidInput):
        qs.parse_url(url)


def test_collection_names_keep_models_apart() -> None:
    assert qs.alias_name("minilm-l6") == "aimem_minilm-l6"
    a, b = qs.alias_name("Org/Model_v1"), qs.alias_name("org-model-v1")
    assert a != b and a.startswith("aimem_org-model-v1-") and "/" not in a
    assert qs.generation_of("aimem_x", qs.physical_name("aimem_x", 3)) == 3
    assert qs.generation_of("aimem_x", "aimem_x-y_3") is None


def test_one_aliased_collection_per_model(client: QdrantClient) -> None:
    a = QdrantServerIndex(client, DIM, "model-a", owns_client=False)
    b = QdrantServerIndex(client, DIM, "model-b", owns_client=False)
    apply(a, put("m1", 1, axis(1), "tea"))
    assert (a.count("default"), b.count("default")) == (1, 0)
    assert (a.collection, b.collection) == ("aimem_model-a_1", "aimem_model-b_1")
    aliases = {x.alias_name: x.collection_name for x in client.get_aliases().aliases}
    assert aliases == {"aimem_model-a": "aimem_model-a_1", "aimem_model-b": "aimem_model-b_1"}


def test_another_dimension_starts_an_empty_generation(client: QdrantClient) -> None:
    idx = QdrantServerIndex(client, DIM, "m", owns_client=False)
    apply(idx, put("m1", 3, axis(1), "tea"))
    wider = QdrantServerIndex(client, DIM * 2, "m", owns_client=False)
    assert wider.checkpoint() == 0 and wider.count("default") == 0
    assert wider.collection == "aimem_m_2"
    assert not client.collection_exists("aimem_m_1")


def test_checkpoints_are_invisible_to_searches_and_counts(client: QdrantClient) -> None:
    idx = QdrantServerIndex(client, DIM, "m", owns_client=False)
    apply(idx, put("m1", 3, axis(1), "tea"))
    idx.apply([], {}, checkpoint=9, partition=4)
    assert client.count(idx.collection, exact=True).count == 3  # 1 memory + 2 checkpoints
    assert idx.count("default") == 1
    assert ids(idx.search(q(axis(1), "tea", limit=10))) == ["m1"]


def test_closed_index_is_unavailable(tmp_path: Path) -> None:
    idx = QdrantServerIndex.from_url(f"qdrant+local://{tmp_path}", DIM, "m")
    idx.close()
    idx.close()  # idempotent
    with pytest.raises(Unavailable):
        idx.search(q(axis(1), "tea"))
    with pytest.raises(Unavailable):
        idx.count("default")


# --- zero-downtime rebuild ------------------------------------------------------------
def test_rebuild_goes_live_only_at_the_switch(client: QdrantClient) -> None:
    live = QdrantServerIndex(client, DIM, "m", owns_client=False)
    apply(live, put("old", 1, axis(1, 0), "tea from generation one"))
    rebuilt = live.begin_rebuild()
    assert rebuilt.collection == "aimem_m_2" and rebuilt.checkpoint() == 0
    apply(rebuilt, put("new", 2, axis(0, 1), "tea from generation two"), partition=1)
    apply(rebuilt, ([IndexRemove("default", "old", 3)], {}), partition=1)
    assert ids(live.search(q(axis(1, 1), "tea"))) == ["old"]  # still generation 1
    assert (live.checkpoint(), live.checkpoint(1)) == (1, 0)
    reader = QdrantServerIndex(client, DIM, "m", owns_client=False)  # another process
    live.switch_alias(rebuilt)
    for idx in (live, reader, rebuilt):
        assert ids(idx.search(q(axis(1, 1), "tea"))) == ["new"]
        assert (idx.checkpoint(), idx.checkpoint(1)) == (0, 3)
    assert live.collection == "aimem_m_2"
    assert not client.collection_exists("aimem_m_1")


def test_begin_rebuild_drops_an_abandoned_rebuild(client: QdrantClient) -> None:
    live = QdrantServerIndex(client, DIM, "m", owns_client=False)
    abandoned = live.begin_rebuild()
    apply(abandoned, put("x", 1, axis(1), "tea"))
    again = live.begin_rebuild()
    assert not client.collection_exists(abandoned.collection)
    assert again.collection == "aimem_m_3" and again.count("default") == 0
    with pytest.raises(InvalidInput):
        live.switch_alias(live)


def test_reset_swaps_in_an_empty_generation(client: QdrantClient) -> None:
    live = QdrantServerIndex(client, DIM, "m", owns_client=False)
    apply(live, put("m1", 1, axis(1), "tea"))
    live.reset()
    assert live.collection == "aimem_m_2" and live.count("default") == 0
    assert not client.collection_exists("aimem_m_1")


# --- error translation ----------------------------------------------------------------
def _response(status: int) -> UnexpectedResponse:
    return UnexpectedResponse(status, "reason", b'{"status":{"error":"x"}}', httpx.Headers())


@pytest.mark.parametrize(
    "error, expected",
    [
        (_response(500), Unavailable),
        (_response(503), Unavailable),
        (_response(429), Unavailable),
        (_response(408), Unavailable),
        (_response(400), InvalidInput),
        (_response(404), InvalidInput),
        (_response(422), InvalidInput),
        (ResponseHandlingException(httpx.ConnectError("refused")), Unavailable),
        (httpx.ConnectError("refused"), Unavailable),
        (httpx.ReadTimeout("slow"), Unavailable),
        (ConnectionRefusedError(), Unavailable),
        (RuntimeError("QdrantLocal instance is closed"), Unavailable),
        (ValueError("Wrong input: vector dimension error"), InvalidInput),
    ],
)
def test_client_errors_are_translated(error: Exception, expected: type[Exception]) -> None:
    with pytest.raises(expected) as raised, qs.client_errors("search"):
        raise error
    assert raised.value.__cause__ is error


def test_programming_errors_are_not_translated() -> None:
    with pytest.raises(TypeError), qs.client_errors("search"):
        raise TypeError("bug")
    with pytest.raises(RuntimeError), qs.client_errors("search"):
        raise RuntimeError("bug")


def test_an_unreachable_server_is_unavailable() -> None:
    idx_url = "qdrant+http://127.0.0.1:9?timeout=1"  # discard port: nothing listens
    with pytest.raises(Unavailable):
        QdrantServerIndex.from_url(idx_url, DIM, "m")


# --- conditional writes ---------------------------------------------------------------
@pytest.mark.parametrize("guarded", [True, False])
def test_conditional_writes_hold_when_a_racing_writer_got_in_first(
    client: QdrantClient, monkeypatch: pytest.MonkeyPatch, guarded: bool
) -> None:
    """Simulate another writer landing between apply's read and its write: the read
    reports stale marks. Only the server-side guard can then keep newer points."""
    idx = QdrantServerIndex(client, DIM, "m", owns_client=False, conditional_writes=guarded)
    apply(idx, put("m1", 5, axis(0, 1), "new words"))
    apply(idx, ([IndexRemove("default", "m2", 6)], {}))
    stale = {ip.point_id("default", mid): ip.StoredMark(1, True) for mid in ("m1", "m2")}
    monkeypatch.setattr(idx, "_stored_marks", lambda _ids: stale)
    apply(idx, put("m1", 2, axis(1, 0), "old words"), checkpoint=6)
    apply(idx, ([IndexSetState("default", "m1", MemoryState.ARCHIVED, 3)], {}), checkpoint=6)
    apply(idx, ([IndexSetState("default", "m2", MemoryState.ACTIVE, 4)], {}), checkpoint=6)
    kept = ids(idx.search(q(None, "new", mode="keyword"))) == ["m1"] and idx.count("default") == 1
    assert kept is guarded


def test_a_server_without_per_tenant_idf_is_refused() -> None:
    """Before 1.19 a server would not apply the IDF corpus: keyword scores would silently
    be shaped by every tenant, so such a server is refused at open, naming the fix."""
    for version in ("1.19.0", "1.20.3", "2.0.0", "dev"):
        qs.check_server_version(version)
    with pytest.raises(InvalidInput) as refused:
        qs.check_server_version("1.16.0")
    assert refused.value.code == "index_server_too_old" and "1.19" in str(refused.value)
