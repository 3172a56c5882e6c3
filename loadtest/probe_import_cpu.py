"""What an embedded import costs the server: CPU per memory until fully projected.

    python -m loadtest.probe_import_cpu --memories 20000

Starts a real ``ai-memory serve`` on a fresh data dir (``ai_memory.benchmarks.server``),
imports the scale profile's memories over HTTP as the profile does
(``ai_memory.benchmarks.load.import_records``: NDJSON ``/v1/import``), waits until every
projection caught up, and prints acknowledged and fully projected memories/s with the
server's user + system CPU per memory from ``/proc`` (all its threads: the import, both
projections, the HTTP loop; and its child processes: the index's compactions optimise
segments in one, ``adapters/edge_compaction.py``), then the children's part of it alone.
The import runs until fully projected, not until the compaction a 10,000-point
threshold started has ended: a compaction running then counts only up to there. Run it
with ``PYTHONPATH`` pointing at each source tree to compare two of them.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import httpx

from ai_memory.benchmarks.corpus import scale_records
from ai_memory.benchmarks.load import import_records
from ai_memory.benchmarks.probes import wait_projected
from ai_memory.benchmarks.server import ServerProcess
from loadtest.proc_cpu import CpuWindow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=20_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="aimem-import-cpu-"))
    server = ServerProcess(work / "data", work / "server.log")
    try:
        server.start()
        with httpx.Client(base_url=server.url, timeout=600) as http:
            cpu, began = CpuWindow({"server": server.pid}), time.perf_counter()
            import_records(http, scale_records(0, args.memories))
            acked_cpu, acked = cpu.seconds()["server"], time.perf_counter()
            wait_projected(http, server.check_alive)
            (used, children), done = cpu.seconds_and_children(), time.perf_counter()
        n = args.memories
        print(
            f"{n} memories: acknowledged {n / (acked - began):,.0f}/s, fully projected "
            f"{n / (done - began):,.0f}/s; server CPU per memory "
            f"{1000 * acked_cpu / n:.3f} ms until acknowledged, "
            f"{1000 * used['server'] / n:.3f} ms until fully projected, "
            f"of which its child processes {1000 * children['server'] / n:.3f} ms"
        )
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
