"""``CpuWindow`` counts a process's children: a gateway optimises its index in a child
process, and CPU it spends per memory there is the deployment's. A real parent spawns a
real child that burns CPU, live through the window and then waited for; the benchmark's
own process (``alone``) and a measured process's own time leave it out."""

from __future__ import annotations

import subprocess
import sys
import time

from loadtest.proc_cpu import CpuWindow, proc_cpu_s

# The parent starts a child that spins for ``BURN`` seconds of CPU, waits for it, then
# sleeps until killed: its own CPU stays near zero.
BURN = 1.0
PARENT = f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", '''
import time
end = time.process_time() + {BURN}
while time.process_time() < end:
    pass
'''])
print("started", flush=True)
child.wait()
print("waited", flush=True)
time.sleep(60)
"""


def test_a_child_is_counted_live_and_after_it_was_waited_for() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "started"
        time.sleep(0.2)  # the child is running, part of its CPU spent before the window
        window = CpuWindow({"parent": parent.pid, "bench": parent.pid}, alone=frozenset({"bench"}))
        time.sleep(0.3)
        mid = window.seconds()["parent"]  # live: counted through the process tree
        assert parent.stdout.readline().strip() == "waited"
        used, children = window.seconds_and_children()
        own = proc_cpu_s(parent.pid)
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
    assert 0 < mid <= used["parent"]
    # the child's CPU inside the window: BURN less what it spent before (≥ 0.2 s of it
    # at most on a busy box), counted once, not twice, when it moved to cutime
    assert BURN * 0.2 < used["parent"] <= BURN + 0.1
    assert children["parent"] > BURN * 0.2
    assert used["bench"] < 0.1 and children["bench"] == 0.0
    assert own < 0.5
