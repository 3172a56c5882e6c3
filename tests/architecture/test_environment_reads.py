"""Settings are the only reader of the environment.

Every ``AIMEM_*`` variable is a field of ``ai_memory.settings.Settings`` with a
description (``docs/CONFIGURATION.md`` is generated from them), so a variable read
anywhere else would be undocumented and unvalidated. This walks the syntax tree of every
module under ``services/`` and fails on ``os.environ``, ``os.getenv``/``putenv`` or their
imports outside ``settings/environment.py``; the command line's options may fall back on a
variable (Typer's ``envvar``) only if it is one of the settings' variables.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ai_memory.settings import variable_names

ROOT = Path(__file__).resolve().parents[2] / "services"
THE_READER = ROOT / "ai_memory" / "settings" / "environment.py"
ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
# path relative to services/ → why it may touch the environment.
ALLOWED: dict[str, str] = {
    "ai_memory/benchmarks/server.py": "hands the environment to the server a benchmark "
    "starts, minus the variables that would point it at the user's stores or close it",
}


def environment_reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    settings_vars = set(variable_names())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ENV_NAMES:
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            names = [a.name for a in node.names if a.name in ENV_NAMES]
            found += [f"{path.name}:{node.lineno} from os import {n}" for n in names]
        elif isinstance(node, ast.keyword) and node.arg == "envvar":
            value = node.value
            name = value.value if isinstance(value, ast.Constant) else ast.unparse(value)
            if name not in settings_vars:
                found.append(f"{path.name}:{node.lineno} envvar={name!r} is not a setting")
    return found


def violations(root: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if path == THE_READER or relative in ALLOWED:
            continue
        found += [f"{relative}: {f}" for f in environment_reads(path)]
    return found


def test_only_settings_read_the_environment() -> None:
    assert violations(ROOT) == []


def test_the_check_finds_planted_reads(tmp_path: Path) -> None:
    """Each way of reading the environment is caught (a check that found nothing would
    pass any tree)."""
    planted = {
        "a.py": "import os\nx = os.environ.get('AIMEM_X')\n",
        "b.py": "import os\nx = os.getenv('AIMEM_X')\n",
        "c.py": "from os import environ\n",
        "d.py": "import typer\no = typer.Option(envvar='AIMEM_NOT_A_SETTING')\n",
        "e.py": "import os\nx = os.environ['HOME']\n",
        "fine.py": "import os\nfrom os import path\no = dict(envvar='AIMEM_PORT')\n",
    }
    for name, text in planted.items():
        (tmp_path / name).write_text(text)
    found = violations(tmp_path)
    assert {f.split(":")[0] for f in found} == {"a.py", "b.py", "c.py", "d.py", "e.py"}, found
    assert all(n in variable_names() for n in ("AIMEM_PORT", "AIMEM_API_KEY", "AIMEM_MODEL_DIR"))
