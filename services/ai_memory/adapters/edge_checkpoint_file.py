"""``checkpoint.json`` of a Qdrant Edge index: what its shard holds and which one it is.

One file beside the shard generations, replaced atomically: the checkpoint of every log
partition, the model and dimension the vectors were made with, the shard generation a
restart opens, and whether the engine's keyword statistics count no deleted copy
(``vacuumed``). Anything it cannot vouch for — missing, unreadable, another model or
dimension, no valid generation — reads as empty: the index is rebuilt from the log.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from .edge_compaction import FIRST_GENERATION, is_generation
from .edge_engine import write_json_atomic

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckpointFile:
    checkpoints: dict[int, int] = field(default_factory=dict)  # partition -> position
    generation: str = FIRST_GENERATION
    vacuumed: bool = False


def read_checkpoint_file(path: Path, model_name: str, dim: int) -> CheckpointFile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return CheckpointFile()
    except (ValueError, OSError) as e:
        log.warning("unreadable index checkpoint %s (%s); rebuilding", path, e)
        return CheckpointFile()
    if data.get("model_name") != model_name or data.get("dim") != dim:
        log.warning(
            "index was built for %s/%s, now %s/%s; rebuilding from the log",
            data.get("model_name"),
            data.get("dim"),
            model_name,
            dim,
        )
        return CheckpointFile()
    generation = str(data.get("shard") or FIRST_GENERATION)
    if not is_generation(generation):
        log.warning("index checkpoint names no shard generation (%r); rebuilding", generation)
        return CheckpointFile()
    # Files from before partitioning hold only "checkpoint" (partition 0).
    raw = data.get("checkpoints") or {"0": data.get("checkpoint", 0)}
    checkpoints = {int(p): int(c) for p, c in raw.items() if int(c) > 0}
    return CheckpointFile(checkpoints, generation, data.get("vacuumed") is True)


def write_checkpoint_file(path: Path, model_name: str, dim: int, file: CheckpointFile) -> None:
    write_json_atomic(
        path,
        {
            "checkpoints": {str(p): c for p, c in sorted(file.checkpoints.items())},
            "checkpoint": file.checkpoints.get(0, 0),
            "model_name": model_name,
            "dim": dim,
            "shard": file.generation,
            "vacuumed": file.vacuumed,
        },
    )
