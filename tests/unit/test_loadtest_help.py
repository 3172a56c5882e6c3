"""Every benchmark and probe under ``loadtest/`` answers ``--help``: argparse formats
each help string with ``%``, so a literal percent sign in one crashes the page a
user opens first (``bench_cost --help`` did, over its JIT threshold)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LOADTEST = Path(__file__).resolve().parents[2] / "loadtest"
SCRIPTS = sorted(p.stem for p in LOADTEST.glob("*.py") if "argparse" in p.read_text("utf-8"))

# One interpreter for all of them (their imports are shared; a process each took 40 s):
# each runs as ``python -m loadtest.<script> --help`` would, its page and exit code kept.
_RUN_ALL = """
import contextlib, io, json, runpy, sys
pages = {}
for script in sys.argv[1:]:
    sys.argv = [script, "--help"]
    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_module(f"loadtest.{script}", run_name="__main__")
        except SystemExit as e:
            code = e.code
        except Exception as e:
            code = repr(e)
    pages[script] = [code, out.getvalue(), err.getvalue()[-2000:]]
print(json.dumps(pages))
"""


def test_the_benchmarks_are_found() -> None:
    assert {"bench_cost", "bench_embedded", "faults"} <= set(SCRIPTS)


def test_every_help_page_renders() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _RUN_ALL, *SCRIPTS],
        cwd=LOADTEST.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pages = json.loads(done.stdout.splitlines()[-1])
    broken = {
        s: (code, err) for s, (code, out, err) in pages.items() if code != 0 or "usage:" not in out
    }
    assert not broken, broken
    assert set(pages) == set(SCRIPTS)
