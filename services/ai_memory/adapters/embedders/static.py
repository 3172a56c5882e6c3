"""``StaticEmbedder``: the default embedder — a distilled static token table.

A text's vector is the L2-normalised mean of the table rows of its WordPiece tokens
(no special tokens; ``[UNK]`` ignored; at most ``max_tokens`` tokens). No encoder runs
at query time, so it embeds thousands of texts per second on one CPU core while keeping
most of MiniLM's retrieval quality (see ``distill``).

Zero-safe by contract: a text with no known token (empty, whitespace, only unknown
symbols) gets the normalised ``[UNK]`` row — a fixed unit vector, never zeros or NaN.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ai_memory.core.errors import InvalidInput, PermanentError
from ai_memory.core.ports import Vector

from .artefact import STATIC_NAME, TOKENIZER_FILE, ensure_static_model, read_static_artefact
from .bert import l2_normalise
from .minilm import check_texts
from .plain_wordpiece import PlainWordPiece
from .weights import F32, load_tokenizer

MAX_TOKENS = 512


def ignoring(table: F32, ignored_id: int) -> tuple[F32, F32]:
    """A copy of ``table`` whose ``ignored_id`` row is zero (so it adds nothing to a
    sum), and that row's unit vector (the fallback for texts with nothing to sum)."""
    summing = table.copy()
    summing[ignored_id] = 0.0
    return summing, l2_normalise(table[ignored_id : ignored_id + 1])[0]


def pool(table: F32, token_ids: Sequence[Sequence[int]], fallback: F32) -> Vector:
    """Normalised sum of ``table`` rows per id list; a zero sum (no ids, only ignored
    ids, or rows that cancel) gets ``fallback``. A plain loop of row gathers beats
    ``np.add.reduceat`` here: texts are short and the rows are contiguous."""
    out = np.zeros((len(token_ids), table.shape[1]), dtype=np.float32)
    for row, ids in enumerate(token_ids):
        if ids:
            out[row] = table[ids].sum(axis=0)
    out = l2_normalise(out)
    out[np.linalg.norm(out, axis=1) < 0.5] = fallback
    return out


@functools.lru_cache(maxsize=4)
def _shared_table(directory: Path) -> tuple[str, F32, F32]:
    """(name, summing table, fallback) of an artefact, read once per process: the
    arrays are never written after loading, so instances share them."""
    artefact = read_static_artefact(directory)
    table, fallback = ignoring(artefact.table, artefact.unk_id)
    table.setflags(write=False)
    fallback.setflags(write=False)
    return artefact.name, table, fallback


class StaticEmbedder:
    """Static 256-d embedder distilled from all-MiniLM-L6-v2 (``minilm-l6-static-256-v1``).

    ``model_dir`` is an artefact directory; by default the cached artefact is used and
    distilled on first use (~20 s) — run ``python -m ai_memory.adapters.embedders.build``
    at install time to avoid that pause."""

    def __init__(self, model_dir: Path | None = None, *, max_tokens: int = MAX_TOKENS) -> None:
        if max_tokens < 1:
            raise InvalidInput("max_tokens", "range", "max_tokens must be positive")
        directory = model_dir if model_dir is not None else ensure_static_model()
        name, self._table, self._fallback = _shared_table(directory.resolve())
        if model_dir is None and name != STATIC_NAME:
            raise PermanentError(
                f"cached artefact {directory} is {name!r}, expected {STATIC_NAME!r}",
                code="embedder_artefact_bad",
            )
        self._tokenizer = load_tokenizer(directory / TOKENIZER_FILE)
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._ids = PlainWordPiece(self._tokenizer, max_tokens)
        self._name = name if max_tokens == MAX_TOKENS else f"{name}-t{max_tokens}"

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
        # Plain texts skip the tokenizer's pipeline, the others take its ``fast`` batch
        # (no character offsets): the same ids either way (``plain_wordpiece``).
        return pool(self._table, self._ids.ids(items), self._fallback)
