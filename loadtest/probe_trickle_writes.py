"""What a single write costs when writes trickle in: CPU per write of an embedded
container, by thread, for each projection linger.

    python -m loadtest.probe_trickle_writes [--seconds 15] [--rate 100] 0 0.05 0 0.05

For each linger given (seconds, ``AIMEM_PROJECTOR_LINGER``) a fresh container is built
in this process (no HTTP) and four threads write ``--rate`` memories a second in all
through ``MemoryService.write``, each at its own steady pace — agents writing now and
then, not in step and not a bulk load, so the single writes' group commit has little
to share. After a few seconds of warm-up, the process's CPU over the measured window (the
projections given a second to finish) is divided by the writes; the projections'
threads are shown apart. One JSON line per linger; give them interleaved to compare on a noisy box.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

from ai_memory.bootstrap import build
from ai_memory.settings import Settings

WRITERS = 4
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_by_thread() -> dict[str, float]:
    """CPU seconds of this process's threads, by Python name (digits dropped)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = Path(f"/proc/self/task/{tid}/stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        fields = stat.rsplit(")", 1)[1].split()
        name = names.get(int(tid), "other").rstrip("0123456789-_")
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


def one(linger: float, seconds: float, rate: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="aimem-trickle-") as work:
        container = build(Settings(data_dir=Path(work), projector_linger=linger))
        container.start()
        service = container.service
        stop = threading.Event()
        done = [0] * WRITERS

        def writer(k: int, began: float) -> None:
            # Evenly interleaved, as agents that do not write in step: one write every
            # 1/rate s in all.
            n, due = k, began + k / rate
            time.sleep(max(0.0, due - time.perf_counter()))
            while not stop.is_set():
                body = {
                    "type": "fact",
                    "content": f"note {n}: the build of service {n % 97} passed on runner {n % 13}",
                    "scope": "user:trickle",
                    "source_agent": f"agent-{k}",
                }
                service.write("default", body, memory_id=f"t-{n}")
                done[k] += 1
                n += WRITERS
                due += WRITERS / rate
                time.sleep(max(0.0, due - time.perf_counter()))

        def phase(length: float) -> int:
            stop.clear()
            for k in range(WRITERS):
                done[k] = 0
            began = time.perf_counter()
            threads = [
                threading.Thread(target=writer, args=(k, began), name=f"writer-{k}")
                for k in range(WRITERS)
            ]
            for t in threads:
                t.start()
            time.sleep(length)
            stop.set()
            for t in threads:
                t.join()
            return sum(done)

        try:
            phase(3.0)
            time.sleep(1.0)
            before, cpu = cpu_by_thread(), time.process_time()
            writes = phase(seconds)
            time.sleep(1.0)  # the projections finish what the writes left
            after, cpu = cpu_by_thread(), time.process_time() - cpu
        finally:
            container.close()
    per_write = {k: (after[k] - before.get(k, 0.0)) * 1e3 / writes for k in after}
    return {
        "linger_s": linger,
        "writes": writes,
        "cpu_ms_per_write": round(cpu * 1e3 / writes, 3),
        "projections_ms_per_write": {
            k: round(v, 3) for k, v in sorted(per_write.items()) if k.startswith("projector")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=float, default=100.0, help="writes a second, in all")
    parser.add_argument("lingers", type=float, nargs="+", help="seconds, e.g. 0 0.05 0 0.05")
    args = parser.parse_args()
    for linger in args.lingers:
        print(json.dumps(one(linger, args.seconds, args.rate)), flush=True)


if __name__ == "__main__":
    main()
