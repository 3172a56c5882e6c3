"""The README's tour, pasted as written into a shell, against a real ``ai-memory serve``.

The tour's shell block is taken from the README itself; only its two ports are swapped
for free ones. It runs in an empty directory whose ``.venv`` is this interpreter's
environment, as ``make run`` leaves a fresh clone, so a command that stops working, a
renamed option or a changed answer fails here, not in a newcomer's terminal."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from loadtest.cluster import free_port

from .test_server_and_cli import Server

ROOT = Path(__file__).resolve().parents[2]


def tour() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "ai-memory write" in b]
    return block


@pytest.mark.skipif(shutil.which("curl") is None, reason="the tour uses curl")
def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / ".venv").symlink_to(sys.prefix)
    other = free_port()
    script = tour().replace("8080", str(server.port)).replace("8081", str(other))
    # The tour kills its second server at the end; if it stops half way, this does.
    script = "trap 'kill $OTHER 2>/dev/null || true' EXIT\n" + script
    # A client command's default URL is 8080; the tour's server is elsewhere here.
    env = {**os.environ, "AIMEM_URL": server.url}
    try:
        result = subprocess.run(
            ["bash", "-e", "-c", script],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        server.stop()
    out = result.stdout
    assert result.returncode == 0, result.stderr[-3000:] + out[-3000:]
    assert "Alice prefers answers as short bullet lists" in out  # the search found it
    assert "max.poll.records" in out
    assert re.search(r"^410$", out, re.M)  # forgotten
    assert re.search(r'"written": 1,.*?"tombstones_applied": 1', out, re.S)
    assert re.search(r'"written": 0,\s*"unchanged": 2', out)  # the second import: nothing
    assert (clone / "alice.ndjson").is_file()
