"""The scale profile from the source tree: the same as ``ai-memory bench scale``.

    python -m loadtest.bench_scale --memories 1000000
    python -m loadtest.bench_scale --steps 10k,100k --queries 300

The profile ships with the package (``ai_memory.benchmarks.scale``) so that users run it
on their own machines; this entry point keeps it beside the other loadtest benchmarks.
"""

from __future__ import annotations

import sys

from ai_memory.entrypoints.cli.bench_cmd import app


def main() -> None:
    app(["scale", *sys.argv[1:]], prog_name="python -m loadtest.bench_scale")


if __name__ == "__main__":
    main()
