"""What a Cassandra node was asked, by table: partition writes and reads of one keyspace.

Cassandra counts every partition update and every partition read per table in its
virtual tables (``system_views.local_write_latency`` / ``local_read_latency``, 4.0+), and
the requests each client connection sent (``system_views.clients``). Read before and
after a phase, the difference is what the phase asked of the node, in Cassandra's own
units: a batch's rows of one partition count once (one mutation), which is what the node
pays for, and a request costs the node its own overhead whatever it carries.
``bench_cost`` prints it per memory (per request for reads). Requests are counted per
connection open at the phase's end (a connection closed meanwhile takes its count away);
the census's own few queries are in them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VIEWS = {"write": "local_write_latency", "read": "local_read_latency"}


def counts(session: Any, keyspace: str) -> dict[str, int]:
    """``"write:<table>"`` / ``"read:<table>"`` → partitions so far, this node's."""
    out: dict[str, int] = {}
    for kind, view in VIEWS.items():
        rows = session.execute(
            f"SELECT table_name, count FROM system_views.{view} WHERE keyspace_name = %s",
            (keyspace,),
        )
        for row in rows:
            if row.count:
                out[f"{kind}:{row.table_name}"] = int(row.count)
    for row in session.execute("SELECT address, port, request_count FROM system_views.clients"):
        out[f"client:{row.address}:{row.port}"] = int(row.request_count or 0)
    return out


def per_unit(before: Mapping[str, int], after: Mapping[str, int], units: int) -> dict[str, float]:
    """What changed between two ``counts``, per unit, largest first; the connections'
    requests summed as ``requests``."""
    changed = {
        k: (v - before.get(k, 0)) / units
        for k, v in after.items()
        if v > before.get(k, 0) and not k.startswith("client:")
    }
    out = dict(sorted(changed.items(), key=lambda kv: -kv[1]))
    sent = sum(v - before.get(k, 0) for k, v in after.items() if k.startswith("client:"))
    if sent > 0:
        out["requests"] = sent / units
    return out


def line(census: Mapping[str, float], unit: str) -> str:
    """``writes records 1.04, lineage 1.01 … (3.95); reads …`` for a log line."""
    parts = []
    for kind in VIEWS:
        mine = {k.split(":", 1)[1]: v for k, v in census.items() if k.startswith(kind + ":")}
        if mine:
            listed = ", ".join(f"{t} {v:.2f}" for t, v in mine.items() if v >= 0.005)
            parts.append(f"{kind}s {listed} ({sum(mine.values()):.2f})")
    if "requests" in census:
        parts.append(f"requests {census['requests']:.2f}")
    return f"partitions per {unit}: " + "; ".join(parts) if parts else ""
