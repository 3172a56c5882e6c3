"""The pure numerics behind the embedders: GELU/erf, the masked encoder, PCA with its
sign convention, Zipf/SIF weights, and static pooling — on tiny synthetic weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ai_memory.adapters.embedders.bert import encode, gelu, layer_norm
from ai_memory.adapters.embedders.distill import pca, token_vectors, zipf_sif_weights
from ai_memory.adapters.embedders.static import ignoring, pool
from ai_memory.adapters.embedders.weights import BertWeights, LayerWeights


def tiny_bert(seed: int = 0, hidden: int = 8, vocab: int = 20, layers: int = 2) -> BertWeights:
    rng = np.random.default_rng(seed)

    def m(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    return BertWeights(
        word=m(vocab, hidden),
        position=m(16, hidden),
        token_type0=m(hidden),
        emb_ln_g=1 + m(hidden),
        emb_ln_b=m(hidden),
        layers=tuple(
            LayerWeights(
                qkv_w=m(hidden, 3 * hidden),
                qkv_b=m(3 * hidden),
                out_w=m(hidden, hidden),
                out_b=m(hidden),
                ln1_g=1 + m(hidden),
                ln1_b=m(hidden),
                ffn_in_w=m(hidden, 4 * hidden),
                ffn_in_b=m(4 * hidden),
                ffn_out_w=m(4 * hidden, hidden),
                ffn_out_b=m(hidden),
                ln2_g=1 + m(hidden),
                ln2_b=m(hidden),
            )
            for _ in range(layers)
        ),
        num_heads=2,
        layer_norm_eps=1e-12,
    )


def erf_gelu(x: float) -> float:
    return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))


def test_gelu_matches_exact_erf_form() -> None:
    xs = np.linspace(-10, 10, 20001).reshape(-1, 1)
    expected = np.array([[erf_gelu(float(v))] for v in xs[:, 0]])
    assert np.abs(gelu(xs.astype(np.float32)) - expected).max() < 2e-6


def test_layer_norm_zero_mean_unit_variance() -> None:
    x = np.random.default_rng(1).normal(3, 2, (5, 16)).astype(np.float32)
    y = layer_norm(x, np.ones(16, np.float32), np.zeros(16, np.float32), 1e-12)
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(axis=1), 1, atol=1e-4)


def test_padding_does_not_change_the_pooled_output() -> None:
    weights = tiny_bert()
    short = np.array([[1, 5, 7, 2]], dtype=np.int64)
    padded = np.array([[1, 5, 7, 2, 0, 0, 0], [1, 3, 4, 6, 8, 9, 2]], dtype=np.int64)
    mask = np.array([[1, 1, 1, 1, 0, 0, 0], [1] * 7], dtype=np.bool_)
    alone = encode(weights, short)
    batched = encode(weights, padded, mask)
    np.testing.assert_allclose(batched[0], alone[0], atol=1e-5)
    np.testing.assert_allclose(batched[1], encode(weights, padded[1:])[0], atol=1e-5)


def test_token_vectors_are_the_encoding_of_cls_token_sep() -> None:
    weights = tiny_bert()
    table = token_vectors(weights, cls_id=1, sep_id=2, batch=7)
    assert table.shape == (20, 8)
    for t in (0, 6, 19):
        ids = np.array([[1, t, 2]], dtype=np.int64)
        np.testing.assert_allclose(table[t], encode(weights, ids)[0], atol=1e-6)


def test_pca_is_an_orthonormal_variance_ordered_projection() -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(300, 6)) @ rng.normal(size=(6, 6)) + 5
    projected, kept = pca(x, 3)
    assert projected.shape == (300, 3) and projected.dtype == np.float32
    np.testing.assert_allclose(projected.mean(axis=0), 0, atol=1e-4)
    variances = projected.var(axis=0)
    assert np.all(np.diff(variances) <= 0)
    cov = np.cov(projected.T)
    np.testing.assert_allclose(cov - np.diag(np.diag(cov)), 0, atol=1e-3)
    assert 0 < kept < 1
    full, kept_all = pca(x, 6)
    assert kept_all == pytest.approx(1.0)
    # A full-rank PCA is a rotation: distances are preserved.
    d0 = np.linalg.norm(x[0] - x[1])
    assert float(np.linalg.norm(full[0] - full[1])) == pytest.approx(d0, rel=1e-5)


def test_pca_sign_convention_makes_it_reproducible() -> None:
    x = np.random.default_rng(3).normal(size=(200, 5))
    a, _ = pca(x, 4)
    b, _ = pca(x.copy(), 4)
    assert np.array_equal(a, b)
    # Each axis's largest loading is positive, so the projection of the axis is too.
    centred = x - x.mean(axis=0)
    axes = np.linalg.lstsq(centred, a.astype(np.float64), rcond=None)[0]
    pivots = np.argmax(np.abs(axes), axis=0)
    assert np.all(axes[pivots, np.arange(4)] > 0)


def test_pca_rejects_impossible_dims() -> None:
    with pytest.raises(ValueError):
        pca(np.zeros((10, 3)), 4)


def test_zipf_sif_weights() -> None:
    w = zipf_sif_weights(1000, 1e-4)
    assert w.shape == (1000,) and w.dtype == np.float32
    assert np.all((w > 0) & (w < 1)) and np.all(np.diff(w) > 0)
    inv = 1 / np.arange(2, 1002)
    assert float(w[0]) == pytest.approx(1e-4 / (1e-4 + inv[0] / inv.sum()), rel=1e-5)


def test_pool_is_normalised_mean_and_zero_safe() -> None:
    table = np.array([[1, 0], [0, 1], [3, 4], [1, 1], [-1, 0]], dtype=np.float32)
    summing, fallback_row = ignoring(table, 3)
    assert table[3].tolist() == [1, 1] and summing[3].tolist() == [0, 0]
    out = pool(summing, [[0, 1], [2], [], [3, 3], [0, 4], [2, 3, 0]], fallback_row)
    np.testing.assert_allclose(out[0], [2**-0.5, 2**-0.5], atol=1e-6)
    np.testing.assert_allclose(out[1], [0.6, 0.8], atol=1e-6)
    fallback = np.array([2**-0.5, 2**-0.5], dtype=np.float32)
    np.testing.assert_allclose(out[2], fallback, atol=1e-6)  # empty
    np.testing.assert_allclose(out[3], fallback, atol=1e-6)  # only unknown tokens
    np.testing.assert_allclose(out[4], fallback, atol=1e-6)  # rows cancel out
    np.testing.assert_allclose(out[5], np.array([4, 4]) / np.hypot(4, 4), atol=1e-6)
    assert pool(summing, [], fallback_row).shape == (0, 2)
