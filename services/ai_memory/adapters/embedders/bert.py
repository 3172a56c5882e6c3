"""The BERT encoder forward pass in numpy (float32), for all-MiniLM-L6-v2 and MPNet.

Pure functions over ``BertWeights``: embeddings → N × (self-attention, GELU feed-forward,
post-layernorm) → masked mean pooling. MPNet (all-mpnet-base-v2) is the same encoder
with positions counted from 2 and a relative position bias added to the attention
logits of every layer (``relative_position_buckets``, as Hugging Face's ``MPNetModel``).
This is what lets the embedders run offline on CPU without torch; it reproduces the
sentence-transformers output to float32 rounding. GELU is the exact (erf) form BERT was
trained with; numpy has no ``erf``, so it is computed with Abramowitz & Stegun 7.1.26
(|error| < 1.5e-7, below float32 noise).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .weights import F32, BertWeights, LayerWeights

# Abramowitz & Stegun 7.1.26 coefficients.
_P = np.float32(0.3275911)
_A = tuple(
    np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)
_INV_SQRT2 = np.float32(1.0 / np.sqrt(2.0))
_MASKED = np.float32(-1e30)  # added to attention logits of padding; exp() underflows to 0


_GELU_BLOCK = 1 << 15  # elements per block: keeps the temporaries in L2 cache


def _gelu_block(x: F32, out: F32) -> None:
    """``out[:] = gelu(x)`` with in-place temporaries (the hot loop of the encoder)."""
    z = x * _INV_SQRT2
    ax = np.abs(z)
    t = ax * _P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _A[4]
    for a in (_A[3], _A[2], _A[1], _A[0]):
        poly += a
        poly *= t
    np.square(ax, out=ax)
    np.negative(ax, out=ax)
    np.exp(ax, out=ax)
    poly *= ax  # 1 - erf(|z|)
    np.subtract(np.float32(1.0), poly, out=poly)
    np.copysign(poly, z, out=poly)  # erf(z)
    poly += 1.0
    poly *= x
    poly *= np.float32(0.5)
    out[...] = poly


def gelu(x: F32) -> F32:
    """Exact GELU, x · Φ(x) = x/2 · (1 + erf(x/√2)), on a 2-D float32 array."""
    out = np.empty_like(x)
    rows = max(1, _GELU_BLOCK // max(1, x.shape[-1]))
    for i in range(0, x.shape[0], rows):
        _gelu_block(x[i : i + rows], out[i : i + rows])
    return out


def layer_norm(x: F32, gamma: F32, beta: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=-1, keepdims=True)
    return np.asarray(centered / np.sqrt(var + np.float32(eps)) * gamma + beta, dtype=np.float32)


def _softmax_last(x: F32) -> F32:
    x = x - x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


def _layer(x: F32, bias: F32 | None, w: LayerWeights, heads: int, eps: float) -> F32:
    """One encoder layer on ``x`` (batch, seq, hidden); ``bias`` masks padding keys."""
    b, s, h = x.shape
    d = h // heads
    qkv = (x.reshape(b * s, h) @ w.qkv_w + w.qkv_b).reshape(b, s, 3, heads, d)
    q = qkv[:, :, 0].transpose(0, 2, 1, 3)  # (b, heads, s, d)
    k = qkv[:, :, 1].transpose(0, 2, 3, 1)  # (b, heads, d, s)
    v = qkv[:, :, 2].transpose(0, 2, 1, 3)
    scores = (q @ k) * np.float32(1.0 / np.sqrt(d))
    if bias is not None:
        scores += bias
    ctx = (_softmax_last(scores) @ v).transpose(0, 2, 1, 3).reshape(b * s, h)
    flat = x.reshape(b * s, h)
    x1 = layer_norm(ctx @ w.out_w + w.out_b + flat, w.ln1_g, w.ln1_b, eps)
    inner = gelu(x1 @ w.ffn_in_w + w.ffn_in_b)
    x2 = layer_norm(inner @ w.ffn_out_w + w.ffn_out_b + x1, w.ln2_g, w.ln2_b, eps)
    return x2.reshape(b, s, h)


def relative_position_buckets(
    length: int, buckets: int = 32, max_distance: int = 128
) -> npt.NDArray[np.int64]:
    """(query, key) → bucket of ``key − query``: half the buckets per direction, exact up
    to a quarter of them, logarithmic up to ``max_distance`` (MPNet's
    ``relative_position_bucket``)."""
    positions = np.arange(length, dtype=np.int64)
    n = -(positions[None, :] - positions[:, None])  # query − key
    half = buckets // 2
    out = np.where(n < 0, half, 0).astype(np.int64)
    n = np.abs(n)
    exact = half // 2
    # float32 throughout, as the reference computes it: a bucket edge must fall the same way
    scaled = np.log(np.maximum(n, 1).astype(np.float32) / exact) / math.log(max_distance / exact)
    large = np.minimum(exact + (scaled * (half - exact)).astype(np.int64), half - 1)
    buckets_of: npt.NDArray[np.int64] = out + np.where(n < exact, n, large)
    return buckets_of


def encode(
    weights: BertWeights, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_] | None = None
) -> F32:
    """Mean-pooled last hidden states, shape (batch, hidden), not normalised.

    ``ids`` is (batch, seq) including [CLS]/[SEP]; ``mask`` marks real tokens (None: all
    real, the fast path for equal-length inputs)."""
    _, s = ids.shape
    offset = weights.position_offset
    x = weights.word[ids] + weights.position[offset : offset + s] + weights.token_type0
    x = layer_norm(x, weights.emb_ln_g, weights.emb_ln_b, weights.layer_norm_eps)
    bias: F32 | None = None
    if mask is not None:
        bias = np.where(mask, np.float32(0.0), _MASKED).astype(np.float32)[:, None, None, :]
    if weights.relative_attention_bias is not None:
        table = weights.relative_attention_bias  # (buckets, heads)
        relative = table[relative_position_buckets(s, table.shape[0])].transpose(2, 0, 1)
        relative = np.ascontiguousarray(relative[None], dtype=np.float32)  # (1, heads, s, s)
        bias = relative if bias is None else bias + relative
    for layer in weights.layers:
        x = _layer(x, bias, layer, weights.num_heads, weights.layer_norm_eps)
    if mask is None:
        return np.asarray(x.mean(axis=1), dtype=np.float32)
    m = mask.astype(np.float32)[:, :, None]
    summed = (x * m).sum(axis=1)
    return np.asarray(summed / np.maximum(m.sum(axis=1), np.float32(1.0)), dtype=np.float32)


def l2_normalise(x: F32) -> F32:
    """Rows scaled to unit length; all-zero rows are left as they are."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.asarray(x / np.where(norms > 0, norms, np.float32(1.0)), dtype=np.float32)
