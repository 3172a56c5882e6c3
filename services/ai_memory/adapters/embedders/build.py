"""``python -m ai_memory.adapters.embedders.build``: distil and cache the static embedder.

Run at install time so the first request never pays for distillation. Idempotent: an
existing artefact is left alone. Prints where the artefact is and how long it took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ai_memory.core.errors import AiMemoryError

from .artefact import STATIC_NAME, ensure_static_model
from .cache import ENV_VAR, model_cache_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ai_memory.adapters.embedders.build",
        description=f"Distil the static embedder {STATIC_NAME} into the model cache.",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help=f"model cache directory (default: ${ENV_VAR} or ~/.cache/ai-memory/models)",
    )
    args = parser.parse_args(argv)
    cache_dir: Path = args.cache_dir or model_cache_dir()
    existed = (cache_dir / STATIC_NAME).is_dir()
    if not existed:
        # The first build takes about a minute with no output of its own: say why.
        print(
            f"{STATIC_NAME}: distilling the embedding model into {cache_dir} "
            "(once, about a minute)…",
            flush=True,
        )
    started = time.perf_counter()
    try:
        path = ensure_static_model(cache_dir)
    except AiMemoryError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    state = "already present" if existed else "built"
    print(f"{STATIC_NAME}: {state} at {path} in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
