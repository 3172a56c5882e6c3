from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai_memory.core.fusion import (
    DEFAULT_FUSION,
    RRF_K,
    Fusion,
    FusionMethod,
    fuse,
    rrf_fuse,
    score_fuse,
)
from ai_memory.core.ports import IndexHit

DENSE = [("a", 0.9), ("b", 0.8), ("c", 0.5)]
KEYWORD = [("c", 7.0), ("d", 3.0), ("a", 1.0)]


def ids(hits: list[IndexHit]) -> list[str]:
    return [h.memory_id for h in hits]


def test_rrf_sums_reciprocal_ranks_and_keeps_components() -> None:
    hits = rrf_fuse({"dense": DENSE, "keyword": KEYWORD}, 10)
    by_id = {h.memory_id: h for h in hits}
    assert by_id["a"].score == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 3))
    assert by_id["c"].score == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert by_id["a"].components == {
        "rrf": by_id["a"].score,
        "dense_rank": 1.0,
        "dense_score": 0.9,
        "keyword_rank": 3.0,
        "keyword_score": 1.0,
    }
    # a and c tie on score and best rank: the id decides.
    assert ids(hits) == ["a", "c", "b", "d"]


def test_weighted_rrf_favours_the_heavier_retriever() -> None:
    lists = {"dense": [("x", 1.0), ("y", 0.5)], "keyword": [("y", 2.0), ("x", 1.0)]}
    assert ids(rrf_fuse(lists, 2, weights={"dense": 2.0}))[0] == "x"
    assert ids(rrf_fuse(lists, 2, weights={"keyword": 2.0}))[0] == "y"


def test_minmax_is_a_convex_combination_of_normalised_scores() -> None:
    hits = score_fuse({"dense": DENSE, "keyword": KEYWORD}, 10, {"dense": 0.4, "keyword": 0.6})
    by_id = {h.memory_id: h for h in hits}
    # dense: a 1, b 0.75, c 0; keyword: c 1, d 1/3, a 0
    assert by_id["a"].score == pytest.approx(0.4)
    assert by_id["b"].score == pytest.approx(0.4 * 0.75)
    assert by_id["c"].score == pytest.approx(0.6)
    assert by_id["d"].score == pytest.approx(0.6 / 3)
    assert ids(hits) == ["c", "a", "b", "d"]
    assert by_id["b"].components == {
        "fused": by_id["b"].score,
        "dense_rank": 2.0,
        "dense_score": 0.8,
        "dense_norm": pytest.approx(0.75),
    }


def test_scores_outweigh_ranks_when_one_retriever_is_confident() -> None:
    # keyword has one clear winner far above the rest; dense scores are nearly flat.
    lists = {
        "dense": [("p", 0.51), ("q", 0.50), ("r", 0.49)],
        "keyword": [("r", 9.0), ("p", 1.0), ("q", 0.9)],
    }
    weights = {"dense": 0.4, "keyword": 0.6}
    assert ids(rrf_fuse(lists, 3, weights=weights))[0] == "p"
    assert ids(score_fuse(lists, 3, weights))[0] == "r"


def test_equal_scores_normalise_to_one_and_empty_lists_are_ignored() -> None:
    hits = score_fuse({"dense": [("a", 0.3), ("b", 0.3)], "keyword": []}, 5)
    assert [h.score for h in hits] == [1.0, 1.0]
    assert ids(hits) == ["a", "b"]


def test_dbsf_clips_to_three_sigma() -> None:
    ranked = [("a", 10.0)] + [(f"n{i}", 1.0) for i in range(20)]
    hits = score_fuse({"keyword": ranked}, 3, method="dbsf")
    assert hits[0].memory_id == "a" and hits[0].score == 1.0
    assert 0.0 < hits[1].score < 0.5


def test_fuse_dispatches_on_the_method() -> None:
    lists = {"dense": DENSE, "keyword": KEYWORD}
    assert fuse(lists, 3, Fusion("rrf")) == rrf_fuse(lists, 3)
    weights = (("dense", 0.3), ("keyword", 0.7))
    assert fuse(lists, 3, Fusion("minmax", weights)) == score_fuse(
        lists, 3, {"dense": 0.3, "keyword": 0.7}
    )
    assert fuse(lists, 3, Fusion("dbsf")) == score_fuse(lists, 3, method="dbsf")
    assert fuse(lists, 3) == fuse(lists, 3, DEFAULT_FUSION)
    assert Fusion("rrf").key == "rrf" and Fusion("minmax").key == "fused"


ranked_lists = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.floats(-10, 10)), unique_by=lambda t: t[0]
).map(lambda hits: sorted(hits, key=lambda h: -h[1]))


METHODS: list[FusionMethod] = ["rrf", "minmax", "dbsf"]


@given(ranked_lists, ranked_lists, st.sampled_from(METHODS))
def test_fusion_is_deterministic_sorted_and_bounded(
    dense: list[tuple[str, float]], keyword: list[tuple[str, float]], method: FusionMethod
) -> None:
    fusion = Fusion(method, (("dense", 0.3), ("keyword", 0.7)))
    lists = {"dense": dense, "keyword": keyword}
    hits = fuse(lists, 5, fusion)
    assert hits == fuse(dict(reversed(lists.items())), 5, fusion)
    assert len(hits) == min(5, len({m for m, _ in dense + keyword}))
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    for h in hits:
        assert h.score == h.components[fusion.key]
        if method != "rrf":
            assert 0.0 <= h.score <= 1.0 + 1e-9


def reference_score_fuse(
    lists: dict[str, list[tuple[str, float]]],
    limit: int,
    weights: dict[str, float],
    method: FusionMethod,
) -> list[IndexHit]:
    """The rule written plainly (every candidate's components built, then ordered): the
    production code builds components for the kept hits only and must agree exactly."""
    from ai_memory.core.fusion import _normaliser

    fused: dict[str, dict[str, float]] = {}
    best: dict[str, int] = {}
    for name, ranked in lists.items():
        if not ranked:
            continue
        low, span = _normaliser([score for _, score in ranked], method)
        for rank, (mid, score) in enumerate(ranked, start=1):
            norm = min(1.0, max(0.0, (score - low) / span))
            parts = fused.setdefault(mid, {"fused": 0.0})
            parts["fused"] += weights.get(name, 1.0) * norm
            parts[f"{name}_rank"] = float(rank)
            parts[f"{name}_score"] = score
            parts[f"{name}_norm"] = norm
            best[mid] = min(rank, best.get(mid, rank))
    order = sorted(fused.items(), key=lambda kv: (-kv[1]["fused"], best[kv[0]], kv[0]))
    return [IndexHit(mid, parts["fused"], parts) for mid, parts in order[:limit]]


@given(ranked_lists, ranked_lists, st.sampled_from(["minmax", "dbsf"]), st.integers(1, 30))
def test_score_fusion_matches_the_plain_rule(
    dense: list[tuple[str, float]],
    keyword: list[tuple[str, float]],
    method: FusionMethod,
    limit: int,
) -> None:
    lists = {"dense": dense, "keyword": keyword}
    weights = {"dense": 0.3, "keyword": 0.7}
    got = score_fuse(lists, limit, weights, method)
    want = reference_score_fuse(lists, limit, weights, method)
    assert got == want
    assert [list(h.components) for h in got] == [list(h.components) for h in want]
