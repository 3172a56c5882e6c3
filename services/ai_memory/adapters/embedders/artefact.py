"""The static embedder's artefact: building it once, finding it, reading it.

An artefact directory holds ``embeddings.npy`` (vocab × 256, float16), the
``tokenizer.json`` it was built for, and ``meta.json`` (name, provenance, parameters).
Its directory name is ``STATIC_NAME``, which is also the embedder's ``name``: bump
``ARTEFACT_VERSION`` whenever anything that changes the vectors changes, so an index
built with one artefact is never queried with another.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ai_memory.core.errors import PermanentError

from .cache import materialise, model_cache_dir
from .distill import PCA_DIMS, SIF_COEFFICIENT, distill
from .weights import F32, load_bert, load_tokenizer, model_dir

ARTEFACT_VERSION = 1
STATIC_NAME = f"minilm-l6-static-{PCA_DIMS}-v{ARTEFACT_VERSION}"
SOURCE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

EMBEDDINGS_FILE = "embeddings.npy"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "meta.json"


@dataclass(frozen=True)
class StaticArtefact:
    name: str
    table: F32  # (vocab, dim)
    tokenizer_path: Path
    unk_id: int


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_static_artefact(target: Path) -> None:
    """Distil the table from the installed MiniLM weights into the empty dir ``target``."""
    started = time.perf_counter()
    source = model_dir()
    tokenizer = load_tokenizer(source / TOKENIZER_FILE)
    ids: dict[str, int] = {}
    for token in ("[CLS]", "[SEP]", "[UNK]"):
        token_id = tokenizer.token_to_id(token)
        if token_id is None:
            raise PermanentError(f"tokenizer lacks {token}", code="embedder_weights_bad")
        ids[token] = int(token_id)
    weights = load_bert(source)
    table, kept = distill(weights, ids["[CLS]"], ids["[SEP]"])
    np.save(target / EMBEDDINGS_FILE, table.astype(np.float16))
    shutil.copyfile(source / TOKENIZER_FILE, target / TOKENIZER_FILE)
    meta: dict[str, Any] = {
        "name": STATIC_NAME,
        "artefact_version": ARTEFACT_VERSION,
        "source_model": SOURCE_MODEL,
        "source_sha256": _sha256(source / "model.safetensors"),
        "dim": int(table.shape[1]),
        "vocab_size": int(table.shape[0]),
        "unk_id": ids["[UNK]"],
        "pca_dims": PCA_DIMS,
        "pca_variance_kept": round(kept, 6),
        "sif_coefficient": SIF_COEFFICIENT,
        "dtype": "float16",
        "numpy_version": np.__version__,
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    (target / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def ensure_static_model(cache_dir: Path | None = None) -> Path:
    """The directory of the current static artefact, distilling it first if needed
    (once per cache; concurrent callers wait for one build). ``cache_dir`` defaults to
    ``$AIMEM_MODEL_DIR`` or ``~/.cache/ai-memory/models``."""
    return materialise(cache_dir or model_cache_dir(), STATIC_NAME, write_static_artefact)


def read_static_artefact(directory: Path) -> StaticArtefact:
    """Load an artefact directory written by ``write_static_artefact``."""
    try:
        meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
        table = np.load(directory / EMBEDDINGS_FILE, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise PermanentError(
            f"unreadable static embedder artefact at {directory}: {e}", code="embedder_artefact_bad"
        ) from e
    if table.ndim != 2 or table.shape != (meta.get("vocab_size"), meta.get("dim")):
        raise PermanentError(
            f"artefact {directory} has table shape {table.shape}, meta says "
            f"({meta.get('vocab_size')}, {meta.get('dim')})",
            code="embedder_artefact_bad",
        )
    return StaticArtefact(
        name=str(meta["name"]),
        table=np.ascontiguousarray(table, dtype=np.float32),
        tokenizer_path=directory / TOKENIZER_FILE,
        unk_id=int(meta["unk_id"]),
    )
