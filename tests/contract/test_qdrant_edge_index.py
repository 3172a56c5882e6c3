from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ai_memory.adapters.index_payload import point_id
from ai_memory.adapters.qdrant_edge_index import QdrantEdgeIndex
from ai_memory.core.errors import Unavailable
from ai_memory.core.projection import IndexRemove
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


class TestQdrantEdgeIndex(VectorIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Iterator[MakeIndex]:
        yield lambda: QdrantEdgeIndex(tmp_path / "index", DIM, "test-model")


def test_checkpoint_file_sits_next_to_the_shard(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    apply(idx, put("m1", 3, axis(1), "tea"))
    idx.close()
    data = json.loads((tmp_path / "checkpoint.json").read_text())
    assert data == {
        "checkpoints": {"0": 3},
        "checkpoint": 3,
        "model_name": "m",
        "dim": DIM,
        "shard": "shard",  # the live generation (a compaction names the next one)
        "vacuumed": True,  # nothing deleted or rewritten (``_idf_params``)
    }
    assert (tmp_path / "shard").is_dir()


def test_checkpoint_file_keeps_one_position_per_partition(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    idx.apply([], {}, checkpoint=4, partition=2)
    idx.close()
    data = json.loads((tmp_path / "checkpoint.json").read_text())
    assert data["checkpoints"] == {"2": 4} and data["checkpoint"] == 0


def test_a_checkpoint_file_from_before_partitions_opens_as_partition_0(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    apply(idx, put("m1", 3, axis(1), "tea"))
    idx.close()
    legacy = {"checkpoint": 3, "model_name": "m", "dim": DIM}
    (tmp_path / "checkpoint.json").write_text(json.dumps(legacy))
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    try:
        assert (idx.checkpoint(), idx.checkpoint(1), idx.count("default")) == (3, 0, 1)
    finally:
        idx.close()


@pytest.mark.parametrize("model, dim", [("other-model", DIM), ("m", DIM * 2)])
def test_another_model_or_dimension_starts_an_empty_index(
    tmp_path: Path, model: str, dim: int
) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    apply(idx, put("m1", 3, axis(1), "tea"))
    idx.close()
    idx = QdrantEdgeIndex(tmp_path, dim, model)
    try:
        assert idx.checkpoint() == 0 and idx.count("default") == 0
    finally:
        idx.close()


def test_closed_index_is_unavailable(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    idx.close()
    idx.close()  # idempotent
    with pytest.raises(Unavailable):
        idx.search(q(axis(1), "tea"))
    with pytest.raises(Unavailable):
        idx.count("default")


def test_optimize_keeps_results(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None)
    try:
        apply(idx, put("m1", 1, axis(1, 0), "tea"))
        apply(idx, put("m2", 2, axis(0, 1), "coffee"))
        idx.optimize()
        assert ids(idx.search(q(axis(0, 1), "coffee"))) == ["m2", "m1"]
    finally:
        idx.close()


def test_searches_run_while_the_projector_applies(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=50)
    rng = np.random.default_rng(7)
    errors: list[BaseException] = []
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            try:
                idx.search(q(axis(1), "memory", limit=5))
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)
                return

    readers = [threading.Thread(target=search) for _ in range(3)]
    for t in readers:
        t.start()
    try:
        for n in range(1, 121):
            v = rng.standard_normal(DIM).astype(np.float32)
            apply(idx, put(f"m{n}", n, v / np.linalg.norm(v), f"memory number {n}"))
    finally:
        done.set()
        for t in readers:
            t.join()
    assert errors == []
    assert idx.count("default") == 120 and idx.checkpoint() == 120
    idx.close()


def test_durable_checkpoint_never_runs_ahead_of_a_flush(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", flush_interval=3600)
    try:
        apply(idx, put("m1", 5, axis(1), "tea"))
        assert idx.checkpoint() == 5  # applied and searchable ...
        assert ids(idx.search(q(axis(1), "tea"))) == ["m1"]
        on_disk = json.loads((tmp_path / "checkpoint.json").read_text())["checkpoint"]
        assert on_disk == 0  # ... but a crash now would replay it from the log
        idx.flush()
        assert json.loads((tmp_path / "checkpoint.json").read_text())["checkpoint"] == 5
    finally:
        idx.close()


def test_flush_interval_zero_persists_every_batch(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", flush_interval=0)
    try:
        apply(idx, put("m1", 2, axis(1), "tea"))
        assert json.loads((tmp_path / "checkpoint.json").read_text())["checkpoint"] == 2
    finally:
        idx.close()


def _on_disk(root: Path) -> int:
    return int(json.loads((root / "checkpoint.json").read_text())["checkpoint"])


def test_an_index_filled_from_zero_flushes_rarely_until_it_catches_up(tmp_path: Path) -> None:
    """Filling from position 0 (an empty shard, a reset): a crash would replay from the
    log anyway, so the periodic flush waits a minute; the projection's ``idle`` flush
    (caught up) makes it durable and brings back ``flush_interval``."""
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, flush_interval=0.001)
    try:
        apply(idx, put("m1", 1, axis(1), "tea"))
        time.sleep(0.01)
        apply(idx, put("m2", 2, axis(2), "coffee"))
        assert idx.checkpoint() == 2 and _on_disk(tmp_path) == 0
        idx.flush()
        assert _on_disk(tmp_path) == 2
        time.sleep(0.01)
        apply(idx, put("m3", 3, axis(3), "milk"))
        assert _on_disk(tmp_path) == 3  # flush_interval again
        idx.reset()
        apply(idx, put("m1", 4, axis(1), "tea"))
        time.sleep(0.01)
        apply(idx, put("m2", 5, axis(2), "coffee"))
        assert _on_disk(tmp_path) == 0  # filling again after the reset
    finally:
        idx.close()
    assert _on_disk(tmp_path) == 5  # close makes it durable


class _CountingShard:
    """The live shard, counting the engine's flushes."""

    def __init__(self, shard: Any) -> None:
        self.shard = shard
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        self.shard.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shard, name)


def test_a_flush_with_nothing_new_leaves_the_engine_alone(tmp_path: Path) -> None:
    """An idle projection flushes after every quiet spell; with nothing written since the
    last flush the engine is not asked to sync its segments, and the checkpoint still
    moves. What was written is on disk before the checkpoint says so (a copy of the
    directory, as a crash would leave it, holds it)."""
    root = tmp_path / "index"
    idx = QdrantEdgeIndex(root, DIM, "m", optimize_after=None, flush_interval=3600)
    try:
        apply(idx, put("m1", 1, axis(1), "tea"))
        idx.flush()
        shard = _CountingShard(idx._shard)
        idx._shard = shard  # type: ignore[assignment]
        idx.flush()
        idx.apply([], {}, checkpoint=7)  # events that change no point (recalls)
        idx.flush()
        assert shard.flushes == 0
        assert _on_disk(root) == 7
        apply(idx, put("m2", 8, axis(2), "coffee"))
        idx.flush()
        assert shard.flushes == 1 and _on_disk(root) == 8
        idx.flush()
        assert shard.flushes == 1
        shutil.copytree(root, tmp_path / "crashed")
    finally:
        idx.close()
    copy = QdrantEdgeIndex(tmp_path / "crashed", DIM, "m", optimize_after=None)
    try:
        assert copy.checkpoint() == 8
        assert set(ids(copy.search(q(axis(2), "coffee")))) == {"m1", "m2"}
    finally:
        copy.close()


def test_an_index_reopened_with_checkpoints_keeps_its_flush_interval(tmp_path: Path) -> None:
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, flush_interval=0.001)
    apply(idx, put("m1", 1, axis(1), "tea"))
    idx.close()
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, flush_interval=0.001)
    try:
        time.sleep(0.01)
        apply(idx, put("m2", 2, axis(2), "coffee"))
        assert _on_disk(tmp_path) == 2
    finally:
        idx.close()


def test_optimize_rewrites_a_removed_points_vector_out_of_an_indexed_segment(
    tmp_path: Path,
) -> None:
    """Forgetting (docs/design/FORGETTING.md): a removed point's vector stays in its segment's
    files until ``optimize()`` vacuums the segment, also once the segment is indexed."""
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, indexing_threshold_kb=1)
    rng = np.random.default_rng(7)
    try:
        for n in range(1, 41):
            apply(idx, put(f"m{n}", n, rng.standard_normal(DIM).astype(np.float32)))
        idx.optimize()  # above 1 KB of vectors: an indexed, immutable segment
        assert idx._live().info().indexed_vectors_count >= 40
        (point,) = idx._live().retrieve([point_id("default", "m7")], None, True)
        vectors: Any = point.vector  # the dense vector as the engine stored it (normalised)
        gone = np.asarray(vectors["dense"], dtype="<f4").tobytes()
        apply(idx, ([IndexRemove("default", "m7", 41)], {}))
        idx.flush()
        assert holding(tmp_path, gone)
        assert idx.optimize()
        idx.flush()
        assert not holding(tmp_path, gone)
        assert idx.count("default") == 39
    finally:
        idx.close()


def holding(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def keyword_scores(idx: QdrantEdgeIndex, text: str) -> dict[str, float]:
    return {h.memory_id: h.score for h in idx.search(q(text=text, mode="keyword", limit=20))}


def filtered_keyword_scores(idx: QdrantEdgeIndex, text: str) -> dict[str, float]:
    """The same search with the IDF computed over the tenant's points by filter."""
    shortcut = idx._vacuumed
    idx._vacuumed = False
    try:
        return keyword_scores(idx, text)
    finally:
        idx._vacuumed = shortcut


def test_a_tenant_alone_in_the_shard_gets_the_same_keyword_scores(tmp_path: Path) -> None:
    """Alone in a vacuumed shard, a tenant's keyword IDF comes from the engine's own
    statistics (no filtered count per term); with deletes or rewrites not vacuumed yet, or
    another tenant in the shard, from a count over its own points. Scores never move."""
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None)
    text = "green tea biscuits"
    try:
        texts = ["green tea in the morning", "black tea and biscuits", "coffee at noon"]
        for n, content in enumerate(texts * 3, start=1):
            apply(idx, put(f"m{n}", n, axis(1, n), content))
        assert idx._idf_params("default") is None  # appended only: exact already
        apply(idx, ([IndexRemove("default", "m2", 20)], {}))  # a forget
        apply(idx, put("m3", 21, axis(1, 3), "biscuits biscuits tea"))  # a rewrite
        # The engine's statistics still count m2 and m3's old copy: filtered until vacuumed.
        assert idx._idf_params("default") is not None
        before = keyword_scores(idx, text)
        idx.optimize()
        assert idx._idf_params("default") is None
        alone = keyword_scores(idx, text)
        assert alone == pytest.approx(before, rel=1e-6) and "m2" not in alone
        assert alone == pytest.approx(filtered_keyword_scores(idx, text), rel=1e-6)
        apply(idx, put("o1", 30, axis(1), "tea tea tea", tenant="other"))
        assert idx._idf_params("default") is not None  # shared: filtered to the tenant
        assert keyword_scores(idx, text) == pytest.approx(alone, rel=1e-6)
    finally:
        idx.close()
    reopened = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None)
    try:  # the other tenant is still there after a restart: filtered
        assert reopened._idf_params("default") is not None
        assert reopened._tenants == {"default", "other"}
    finally:
        reopened.close()


def on_disk_vacuumed(root: Path) -> Any:
    return json.loads((root / "checkpoint.json").read_text())["vacuumed"]


def test_the_idf_shortcut_survives_a_restart_and_a_rewrite_is_on_disk_first(
    tmp_path: Path,
) -> None:
    """Reopened after a vacuum, a tenant alone keeps the engine's own IDF; the first
    delete or rewrite after it clears the flag on disk before the engine sees the
    update — the engine may persist a rewrite before the next checkpoint, so a kill
    before that checkpoint must not reopen with the shortcut on (scores would move)."""
    text = "green tea biscuits"
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, flush_interval=3600)
    try:
        for n, content in enumerate(["green tea", "black tea and biscuits", "noon"] * 3, 1):
            apply(idx, put(f"m{n}", n, axis(1, n), content))
        apply(idx, put("m3", 10, axis(1, 3), "tea biscuits"))  # a rewrite
        idx.optimize()
        idx.flush()
        assert on_disk_vacuumed(tmp_path) is True
    finally:
        idx.close()
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None, flush_interval=3600)
    try:
        assert idx._idf_params("default") is None
        assert keyword_scores(idx, text) == pytest.approx(
            filtered_keyword_scores(idx, text), rel=1e-6
        )
        apply(idx, put("m10", 11, axis(1, 10), "more green tea"))  # new: still vacuumed
        assert on_disk_vacuumed(tmp_path) is True
        apply(idx, put("m1", 12, axis(1, 1), "green tea, again"))  # rewrite, no flush due
        # What a kill -9 here leaves: the old checkpoint, and the flag already cleared.
        assert on_disk_vacuumed(tmp_path) is False
        assert json.loads((tmp_path / "checkpoint.json").read_text())["checkpoint"] == 10
        assert idx._idf_params("default") is not None
    finally:
        idx.close()
    idx = QdrantEdgeIndex(tmp_path, DIM, "m", optimize_after=None)
    try:
        assert idx._idf_params("default") is not None
        assert keyword_scores(idx, text) == pytest.approx(
            filtered_keyword_scores(idx, text), rel=1e-6
        )
    finally:
        idx.close()


def test_mpnet_vectors_weigh_more_in_hybrid_fusion(tmp_path: Path) -> None:
    """The fusion follows the index's model (``core.fusion.fusion_for``): all-mpnet-base-v2
    vectors weigh 0.4 against the keywords' 0.6, the static default's 0.3 / 0.7."""
    for model, dense_weight in (("all-mpnet-base-v2", 0.4), ("minilm-l6-static-256-v1", 0.3)):
        idx = QdrantEdgeIndex(tmp_path / model, DIM, model, optimize_after=None)
        try:
            apply(idx, put("m1", 1, axis(1, 0), "green tea"))
            apply(idx, put("m2", 2, axis(0, 1), "black coffee"))
            apply(idx, put("m3", 3, axis(1, 1), "green coffee beans"))
            hits = idx.search(q(axis(0, 1), "green tea", limit=3))
            m1 = next(h for h in hits if h.memory_id == "m1")
            assert m1.components["fused"] == pytest.approx(
                dense_weight * m1.components.get("dense_norm", 0.0)
                + (1 - dense_weight) * m1.components["keyword_norm"]
            )
        finally:
            idx.close()


def test_a_new_tenants_first_batch_waits_for_the_searches_in_flight(tmp_path: Path) -> None:
    """A search decides under the shared lock whether the shard holds only its tenant and
    leaves the tenant condition out of its engine calls; a batch that brings a second
    tenant must therefore wait for every search in flight (the exclusive lock), while a
    known tenant's batch runs beside them."""
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    try:
        apply(idx, put("a1", 1, axis(1), "tea", tenant="a"))
        applied: dict[str, threading.Event] = {}

        def write(memory_id: str, position: int, tenant: str) -> None:
            apply(idx, put(memory_id, position, axis(1), "tea", tenant=tenant))
            applied[memory_id].set()

        with idx._rw.shared():  # a search in flight
            for memory_id, position, tenant in (("a2", 2, "a"), ("b1", 3, "b")):
                applied[memory_id] = threading.Event()
                threading.Thread(target=write, args=(memory_id, position, tenant)).start()
                applied[memory_id].wait(1.0 if tenant == "a" else 0.3)
            assert applied["a2"].is_set()
            assert not applied["b1"].is_set()
        assert applied["b1"].wait(5.0)
        assert ids(idx.search(q(axis(1), "tea", tenant="a"))) in (["a1", "a2"], ["a2", "a1"])
        assert ids(idx.search(q(axis(1), "tea", tenant="b"))) == ["b1"]
    finally:
        idx.close()


@pytest.mark.parametrize("threads", [1, 3, 0])
def test_the_threads_per_search_reach_the_engine(tmp_path: Path, threads: int) -> None:
    """``AIMEM_INDEX_SEARCH_THREADS`` as the engine persists it with the shard (0: its own
    pool), for the live index, through ``build_index`` and as a server opens it — and
    again when a shard opened with another value is reopened (the engine keeps the value
    it persisted when it is given none)."""
    from ai_memory.bootstrap import build, build_index
    from ai_memory.settings import Settings
    from tests.contract.test_production_stacks import ContractEmbedder

    direct = QdrantEdgeIndex(tmp_path / "direct", DIM, "m", search_threads=threads)
    built = build_index(
        f"qdrant-edge:///{tmp_path / 'built'}", ContractEmbedder(), search_threads=threads
    )
    build(Settings(data_dir=tmp_path / "server", index_search_threads=threads)).close()
    try:
        for root in (tmp_path / "direct", tmp_path / "built", tmp_path / "server"):
            (config,) = root.rglob("edge_config.json")
            assert json.loads(config.read_text()).get("max_search_threads") == threads
        apply(direct, put("m1", 1, axis(1), "tea"))
        assert ids(direct.search(q(axis(1), "tea"))) == ["m1"]
    finally:
        direct.close()
        built.close()
    other = 2 if threads != 2 else 1
    QdrantEdgeIndex(tmp_path / "direct", DIM, "m", search_threads=other).close()
    reopened = QdrantEdgeIndex(tmp_path / "direct", DIM, "m", search_threads=threads)
    try:
        (config,) = (tmp_path / "direct").rglob("edge_config.json")
        assert json.loads(config.read_text())["max_search_threads"] == threads
        assert ids(reopened.search(q(axis(1), "tea"))) == ["m1"]
    finally:
        reopened.close()


def test_a_reopened_shard_knows_its_tenants(tmp_path: Path) -> None:
    """The tenants a shard holds are read back from it at open (it is never written down):
    a shard that held two tenants before a restart keeps the tenant condition in every
    search, with conversation context's reads too."""
    idx = QdrantEdgeIndex(tmp_path, DIM, "m")
    apply(idx, put("a1", 1, axis(1), "tea", tenant="a"))
    apply(idx, put("b1", 2, axis(1), "tea", tenant="b"))
    idx.close()
    reopened = QdrantEdgeIndex(tmp_path, DIM, "m")
    try:
        for mode in ("semantic", "keyword", "hybrid"):
            for context in (False, True):
                query = q(axis(1), "tea", mode=mode, tenant="a", context=context)
                assert ids(reopened.search(query)) == ["a1"], (mode, context)
        assert (reopened.count("a"), reopened.count("b")) == (1, 1)
    finally:
        reopened.close()
