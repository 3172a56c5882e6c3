"""``StaticEmbedder``: the default embedder — a distilled static token table.

A text's vector is the L2-normalised mean of the table rows of its WordPiece tokens
(no special tokens; ``[UNK]`` ignored; at most ``max_tokens`` tokens). No encoder runs
at query time, so it embeds thousands of texts per second on one CPU core while keeping
most of MiniLM's retrieval quality (see ``distill``).

Zero-safe by contract: a text with no known token (empty, whitespace, only unknown
symbols) gets the normalised ``[UNK]`` row — a fixed unit vector, never zeros or NaN.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ai_memory.core.errors import InvalidInput, PermanentError
from ai_memory.core.ports import Vector

from .artefact import STATIC_NAME, ensure_static_model, read_static_artefact
from .bert import l2_normalise
from .minilm import check_texts
from .weights import F32, load_tokenizer

MAX_TOKENS = 512


def pool(table: F32, token_ids: Sequence[Sequence[int]], unk_id: int) -> Vector:
    """Normalised sum of ``table`` rows per id list; rows with no usable id (or a zero
    sum) get the normalised ``unk_id`` row."""
    n = len(token_ids)
    lengths = np.fromiter((len(ids) for ids in token_ids), dtype=np.int64, count=n)
    flat = np.fromiter(
        itertools.chain.from_iterable(token_ids), dtype=np.int64, count=int(lengths.sum())
    )
    owner = np.repeat(np.arange(n), lengths)
    keep = flat != unk_id
    flat, owner = flat[keep], owner[keep]
    sums = np.zeros((n, table.shape[1]), dtype=np.float32)
    present = np.unique(owner)
    if present.size:
        starts = np.searchsorted(owner, present)
        sums[present] = np.add.reduceat(table[flat], starts, axis=0)
    out = l2_normalise(sums)
    fallback = l2_normalise(table[unk_id : unk_id + 1])[0]
    out[np.linalg.norm(out, axis=1) < 0.5] = fallback
    return out


class StaticEmbedder:
    """Static 256-d embedder distilled from all-MiniLM-L6-v2 (``minilm-l6-static-256-v1``).

    ``model_dir`` is an artefact directory; by default the cached artefact is used and
    distilled on first use (~20 s) — run ``python -m ai_memory.adapters.embedders.build``
    at install time to avoid that pause."""

    def __init__(self, model_dir: Path | None = None, *, max_tokens: int = MAX_TOKENS) -> None:
        if max_tokens < 1:
            raise InvalidInput("max_tokens", "range", "max_tokens must be positive")
        directory = model_dir if model_dir is not None else ensure_static_model()
        artefact = read_static_artefact(directory)
        if model_dir is None and artefact.name != STATIC_NAME:
            raise PermanentError(
                f"cached artefact {directory} is {artefact.name!r}, expected {STATIC_NAME!r}",
                code="embedder_artefact_bad",
            )
        self._table = artefact.table
        self._unk_id = artefact.unk_id
        self._tokenizer = load_tokenizer(artefact.tokenizer_path)
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._name = artefact.name if max_tokens == MAX_TOKENS else f"{artefact.name}-t{max_tokens}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return int(self._table.shape[1])

    def embed(self, texts: Sequence[str]) -> Vector:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(items, add_special_tokens=False)
        return pool(self._table, [e.ids for e in encodings], self._unk_id)
