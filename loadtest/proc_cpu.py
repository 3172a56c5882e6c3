"""CPU accounting of the benchmarks, read from ``/proc``.

A process's CPU is the user + system time of all its threads (``/proc/<pid>/stat``, the
threads that exited included). ``CpuWindow`` adds its children's: those it waited for
(``cutime`` + ``cstime``) and those still running, at any depth — a gateway or an index
worker optimises its index in a child process (``adapters/edge_compaction.py``), work the
deployment does per memory that the process's own time leaves out. Kafka's and Cassandra's
pids come from the pid files ``deploy/local/servers.sh`` writes into its run directory
(``AIMEM_LOCAL_RUN``). ``CpuWindow`` reads every process of a deployment at the start and
the end of a window: CPU seconds per process (``seconds``) or cores (``cores``), with
what the rest of the box used meanwhile, so a shared box shows in the numbers.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")

#: Every server ``servers.sh`` starts: the single-node pair and the cluster's nodes.
SERVERS = ("kafka", "cassandra", *(f"{k}{n}" for k in ("kafka", "cassandra") for n in (1, 2, 3)))


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (which may hold spaces
    and parentheses): ``[0]`` is the state, ``[1]`` the parent, ``[11:15]`` utime, stime,
    cutime, cstime. None once the process is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads), 0 once it is gone."""
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / CLK_TCK


def _children_by_parent() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(entry)) is not None:
            out.setdefault(int(fields[1]), []).append(int(entry))
    return out


def tree_cpu_s(pid: int, children: dict[int, list[int]], stop: set[int]) -> float:
    """CPU seconds of ``pid`` and of its children: the ones it waited for (in its
    ``cutime``/``cstime``) and the live ones, at any depth, except those in ``stop`` (and
    theirs): processes measured on their own. A child counted live at one reading and
    waited for by the next moves from one term to the other, so a window's difference
    counts it once."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    total = sum(int(v) for v in fields[11:15]) / CLK_TCK
    for child in children.get(pid, ()):
        if child not in stop:
            total += tree_cpu_s(child, children, stop)
    return total


def box_cpu_s() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # guest time is already counted in user
    return (total - idle) / CLK_TCK, total / CLK_TCK


def run_dir() -> Path:
    """``servers.sh``'s run directory: ``AIMEM_LOCAL_RUN``, else its default."""
    return Path(os.environ.get("AIMEM_LOCAL_RUN", ROOT / "deploy" / "local" / "run"))


def server_pids(run: Path | None = None) -> dict[str, int]:
    """Kafka's and Cassandra's pids from ``servers.sh``'s pid files in ``run`` (default
    ``run_dir()``), by server name (``kafka``, ``cassandra``, ``kafka1``…). A pid file
    whose process is gone or is not a server of that run directory (a stale file, the
    pid reused) is left out: its CPU would be someone else's."""
    run = run or run_dir()
    out = {}
    for name in SERVERS:
        try:
            pid = int((run / f"{name}.pid").read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        # servers.sh puts the run directory (as it was given) in every server's options
        if str(run) in cmdline or str(run.resolve()) in cmdline:
            out[name] = pid
    return out


@dataclass
class CpuWindow:
    """CPU used per process over a window of wall time, opened when it is made."""

    pids: dict[str, int]
    #: Processes counted without their children (a benchmark's own process, whose
    #: children are the deployment it measures).
    alone: frozenset[str] = frozenset()
    wall: float = field(default_factory=time.perf_counter)
    #: Per process, (own CPU, its children's) seconds when the window opened.
    start: dict[str, tuple[float, float]] = field(default_factory=dict)
    box: tuple[float, float] = field(default_factory=box_cpu_s)

    def __post_init__(self) -> None:
        self.start = self._read()

    def _read(self) -> dict[str, tuple[float, float]]:
        """(own, children's) CPU seconds per process, from one look at ``/proc``."""
        children = _children_by_parent()
        stop = set(self.pids.values())
        out: dict[str, tuple[float, float]] = {}
        for name, pid in self.pids.items():
            fields = _stat(pid)
            if fields is None:
                out[name] = (0.0, 0.0)
                continue
            own = (int(fields[11]) + int(fields[12])) / CLK_TCK
            tree = own if name in self.alone else tree_cpu_s(pid, children, stop)
            out[name] = (own, tree - own)
        return out

    def seconds_and_children(self) -> tuple[dict[str, float], dict[str, float]]:
        """``seconds()``, and of it what each process's children used (0 for ``alone``),
        from the same reading."""
        now = self._read()
        children = {n: now[n][1] - self.start[n][1] for n in self.pids}
        used = {n: now[n][0] - self.start[n][0] + children[n] for n in self.pids}
        busy, _ = box_cpu_s()
        box_busy = busy - self.box[0]
        used["rest of the box"] = box_busy - sum(used.values())
        used["box busy"] = box_busy
        return used, children

    def seconds(self) -> dict[str, float]:
        """CPU seconds per process since the window opened, its children's included, then
        ``rest of the box`` (every other process of the machine) and ``box busy`` (the
        whole machine)."""
        return self.seconds_and_children()[0]

    def cores(self) -> dict[str, float]:
        """The same in cores (1.0 = one core busy), with ``box cores`` (how many the
        machine has, as seen over the window)."""
        wall = time.perf_counter() - self.wall
        used = {n: v / wall for n, v in self.seconds().items()}
        used["box cores"] = (box_cpu_s()[1] - self.box[1]) / wall
        return {n: round(v, 2) for n, v in used.items()}


def thread_cpu(pid: int) -> dict[tuple[str, str], float]:
    """CPU seconds of each live thread of ``pid``: (tid, name) → user + system. The main
    thread is named "event loop" (a server's asyncio loop runs there); the others carry
    their OS names, which are their Python names when the process was started with
    ``cluster.named_cli``."""
    out: dict[tuple[str, str], float] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[(tid, "event loop" if tid == str(pid) else name)] = (
            int(fields[11]) + int(fields[12])
        ) / CLK_TCK
    return out
