"""``deploy/local/servers.sh``'s JIT mode (``AIMEM_JVM_JIT``): a value it does not know
stops it before it formats or starts anything, and every variable the script reads is in
the local README's table (the servers the tests start run with the default, ``c1``)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "deploy" / "local" / "servers.sh"
README = ROOT / "deploy" / "local" / "README.md"


def test_an_unknown_jit_mode_is_refused_before_anything_starts(tmp_path: Path) -> None:
    run = tmp_path / "run"
    env = {
        **os.environ,
        "AIMEM_JVM_JIT": "c2-only",
        "AIMEM_LOCAL_RUN": str(run),
        # Ports nothing here listens on, so a port check cannot be what refuses it.
        "AIMEM_KAFKA_PORT": "1",
        "AIMEM_CASSANDRA_PORT": "3",
    }
    for server in ("kafka", "cassandra"):
        done = subprocess.run(
            ["bash", str(SERVERS), "start", server],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode != 0, done.stdout
        assert "AIMEM_JVM_JIT must be c1 or tiered" in done.stderr
        assert not (run / server / "data").exists(), "it formatted storage first"


def test_every_variable_the_script_reads_is_documented() -> None:
    read = set(re.findall(r"\$\{(AIMEM_[A-Z0-9_]+)", SERVERS.read_text()))
    table = set(re.findall(r"^\| `(AIMEM_[A-Z0-9_]+)`", README.read_text(), re.M))
    assert "AIMEM_JVM_JIT" in read
    assert read <= table, sorted(read - table)
