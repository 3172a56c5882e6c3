"""What the plaintext hunts share (docs/design/FORGETTING.md): canaries, the byte scan of a
directory, a memory body and a waited write. The embedded, Kafka and Cassandra hunts
import them from here so the scan every one of them trusts is one piece of code."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from ai_memory.adapters import index_payload as ip
from ai_memory.bootstrap import Container
from tests.servers import LOCAL_RUN

# Where deploy/local/servers.sh keeps the single broker's log.dirs.
KAFKA_DATA = LOCAL_RUN / "kafka"


def canary() -> str:
    return f"CANARY-{uuid.uuid4().hex}"


def files_holding(root: Path, needles: list[str], pattern: str = "**/*") -> dict[str, list[str]]:
    """Every file under ``root`` (matching ``pattern``) and which needles its bytes hold."""
    return files_holding_bytes(root, {n: n.encode() for n in needles}, pattern)


def files_holding_bytes(
    root: Path, needles: dict[str, bytes], pattern: str = "**/*"
) -> dict[str, list[str]]:
    """Like ``files_holding`` for binary needles (wrapped keys, vectors), by name."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.glob(pattern)):
        if path.is_file():
            try:
                data = path.read_bytes()
            except FileNotFoundError:  # a server deleted it mid-scan (a compacted SSTable)
                continue
            hits = [name for name, needle in needles.items() if needle in data]
            if hits:
                found[str(path.relative_to(root))] = hits
    return found


def memory(content: str, tag: str, note: str, **kw: Any) -> dict[str, Any]:
    return {
        "type": "fact",
        "content": content,
        "scope": "user:alice",
        "source_agent": "agent-a",
        "tags": [tag],
        "meta": {"note": note},
        **kw,
    }


def put(client: TestClient, memory_id: str, body: dict[str, Any]) -> None:
    r = client.put(f"/v1/memories/{memory_id}?wait=true", json=body)
    assert r.status_code in (200, 201), r.text


def stored_dense(c: Container, memory_id: str) -> bytes:
    """The float32 bytes a Qdrant Edge index holds for a memory's dense vector (as the
    engine normalised it for cosine, so they are the bytes its files hold)."""
    edge: Any = getattr(c.index, "inner", c.index)  # under the tag-digest wrapper
    (point,) = edge._live().retrieve([ip.point_id("default", memory_id)], None, True)
    return np.asarray(point.vector[ip.DENSE], dtype="<f4").tobytes()
