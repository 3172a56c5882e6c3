"""Where the loadtest benchmarks find LoCoMo: ``--data``, ``$AIMEM_LOCOMO_DATA`` or the
shared benchmark data; the parsing and the metric are the product's
(``ai_memory.benchmarks.locomo_qa``)."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DATA = Path("/work/shared/bench-data/locomo10.json")
DATA_ENV = "AIMEM_LOCOMO_DATA"


def data_path(explicit: str | None = None) -> Path:
    return Path(explicit or os.environ.get(DATA_ENV) or DEFAULT_DATA)
