"""Which package may import which, checked on the source — every package has a rule.

* Entry points (``ai_memory.entrypoints``) see the services facade and the service layer's
  public types, the core's types, the wire models, settings and each other — never an
  adapter, the composition root, a projector or the serialization.
* The command line (``ai_memory.entrypoints.cli``) is the process's ``main``: it may also
  call the composition root's face (``ai_memory.bootstrap`` itself: never one of its
  modules, never its container type), the SDK, the migration tools and the load
  profiles — still no adapter, projector or serialization.
* The core imports nothing of the package outside the core (and only the standard
  library and numpy besides).
* The service layer imports only the core and settings (it is given adapters through
  the ports).
* Adapters implement the core's ports: they import the core (and the settings, the one
  reader of the environment) only — no service, projector, serialization or composition
  root.
* The serialization (the event serializer adapter) imports the core and settings only.
* Projectors drive the pure projections: core, the service layer's types, adapters (the
  Kafka worker consumes the topic itself) and the metrics catalog — never the
  composition root, an entry point, the serialization, the SDK or the migration tools.
* The migration tools are clients: core, service types, settings, the SDK and the
  composition root's face — no adapter, projector, serialization or entry point.
* The load profiles (``ai_memory.benchmarks``) measure a server they start as a child
  process, over HTTP: they import nothing else of the package (what they measured would
  otherwise include what they loaded in-process).
* The SDK imports no server module (the in-process client, which embeds a server on
  purpose, is imported by no other SDK module, and builds through the composition
  root's face).
* Traces and log context (``ai_memory.telemetry``) may be imported by every layer, as
  logging is; it imports nothing else of the package.
* The composition root (``ai_memory.bootstrap``) wires everything below it and is called
  by what is above it: it never imports an entry point, the SDK or the migration tools.
* Outside the composition root, only its face is imported, never one of its modules.

The rules are checked on the real tree and, to show they can fail, on a copy with planted
violations.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from .import_graph import Edge, edges, is_stdlib, within

ROOT = Path(__file__).resolve().parents[2] / "services"

# Traces and log context (``ai_memory.telemetry``) cross every layer, as logging does; the
# package itself imports nothing else of ai_memory.
TELEMETRY = "ai_memory.telemetry"
ENTRYPOINTS_MAY_IMPORT = (
    TELEMETRY,
    "ai_memory.entrypoints",
    "ai_memory.service",
    "ai_memory.core",
    "ai_memory.wire",
    "ai_memory.settings",
    "ai_memory.metrics_catalog",
)
CLI = "ai_memory.entrypoints.cli"
CLI_MAY_IMPORT = (
    *ENTRYPOINTS_MAY_IMPORT,
    "ai_memory.bootstrap",
    "ai_memory.sdk",
    "ai_memory.migration",
    "ai_memory.benchmarks",
)
SERVICE_MAY_IMPORT = ("ai_memory.service", "ai_memory.core", "ai_memory.settings", TELEMETRY)
# Settings are the one reader of the environment (and import only the core): an adapter
# that needs a variable no caller hands it (the model folder of ``python -m
# ai_memory.adapters.embedders.build``, the schema folder, Qdrant's key) asks them.
ADAPTERS_MAY_IMPORT = ("ai_memory.adapters", "ai_memory.core", "ai_memory.settings", TELEMETRY)
SERIALIZATION_MAY_IMPORT = ("ai_memory.serialization", "ai_memory.core", "ai_memory.settings")
PROJECTOR_MAY_IMPORT = (
    TELEMETRY,
    "ai_memory.projector",
    "ai_memory.core",
    "ai_memory.service",
    "ai_memory.adapters",
    "ai_memory.metrics_catalog",
)
MIGRATION_MAY_IMPORT = (
    "ai_memory.migration",
    "ai_memory.core",
    "ai_memory.service",
    "ai_memory.settings",
    "ai_memory.sdk",
    "ai_memory.wire",
    "ai_memory.bootstrap",
)
BOOTSTRAP = "ai_memory.bootstrap"
BOOTSTRAP_MAY_NOT_IMPORT = ("ai_memory.entrypoints", "ai_memory.sdk", "ai_memory.migration")
SDK_MAY_IMPORT = ("ai_memory.sdk", "ai_memory.core", "ai_memory.wire")
IN_PROCESS_CLIENT = "ai_memory.sdk.in_process"
CORE_THIRD_PARTY = ("numpy",)

# Package → (what it may import of the package, the rule it breaks otherwise).
ONLY: dict[str, tuple[Sequence[str], str]] = {
    "ai_memory.service": (
        SERVICE_MAY_IMPORT,
        "the service layer depends on the core's ports, not on adapters or drivers",
    ),
    "ai_memory.adapters": (ADAPTERS_MAY_IMPORT, "adapters implement the core's ports only"),
    "ai_memory.serialization": (
        SERIALIZATION_MAY_IMPORT,
        "the serialization implements the core's serializer port only",
    ),
    "ai_memory.projector": (
        PROJECTOR_MAY_IMPORT,
        "projectors drive projections; they are wired, they do not wire",
    ),
    "ai_memory.migration": (
        MIGRATION_MAY_IMPORT,
        "the migration tools are clients: no adapter, projector or serialization",
    ),
    "ai_memory.benchmarks": (
        ("ai_memory.benchmarks",),
        "load profiles measure a server process they start, over HTTP",
    ),
    TELEMETRY: ((TELEMETRY,), "traces and log context depend on nothing of the package"),
}


def violations(root: Path) -> list[str]:
    found: list[str] = []
    for e in edges(root):
        rule = _broken_rule(e)
        if rule:
            found.append(f"{e.source}:{e.line} imports {e.target} — {rule}")
    return found


def _broken_rule(e: Edge) -> str | None:
    own = within(e.target, ("ai_memory",))
    package_root = e.target == "ai_memory"  # ``from ai_memory import __version__``
    outside = not within(e.source, (BOOTSTRAP,))
    if outside and within(e.target, (BOOTSTRAP,)) and e.target != BOOTSTRAP:
        return "only the composition root's face is imported, never its modules"
    if within(e.source, ("ai_memory.entrypoints",)):
        if "Container" in e.names:
            return "entry points are given the services facade, never the container"
        if within(e.source, (CLI,)):
            if own and not package_root and not within(e.target, CLI_MAY_IMPORT):
                return "the command line builds through the composition root, never around it"
        elif own and not package_root and not within(e.target, ENTRYPOINTS_MAY_IMPORT):
            return "entry points see only the facade, core types and wire models"
    if within(e.source, ("ai_memory.core",)):
        if own and not within(e.target, ("ai_memory.core",)):
            return "the core imports nothing outside the core"
        if not own and not is_stdlib(e.target) and not within(e.target, CORE_THIRD_PARTY):
            return "the core does no I/O: standard library and numpy only"
    for package, (allowed, rule) in ONLY.items():
        mine = within(e.source, (package,)) and own and not package_root
        if mine and not within(e.target, allowed):
            return rule
    if within(e.source, (BOOTSTRAP,)) and within(e.target, BOOTSTRAP_MAY_NOT_IMPORT):
        return "the composition root is called by entry points, it never calls them"
    # The in-process client (``sdk.in_process``) runs the HTTP app: it may embed a server.
    if within(e.source, ("ai_memory.sdk",)) and not within(e.source, (IN_PROCESS_CLIENT,)):
        if within(e.target, (IN_PROCESS_CLIENT,)):
            return "only an explicit import reaches the in-process client"
        if own and not package_root and not within(e.target, SDK_MAY_IMPORT):
            return "the SDK installs without the server: it imports no server module"
    return None


def test_the_layers_import_only_what_they_may() -> None:
    assert violations(ROOT) == []


def test_the_graph_is_read_from_the_source() -> None:
    """The edges the rules judge are really there (a parser that found nothing would
    pass every rule)."""
    found = {(e.source, e.target) for e in edges(ROOT)}
    for edge in [
        ("ai_memory.entrypoints.http.app", "ai_memory.service.facade"),
        ("ai_memory.entrypoints.http.app", "ai_memory.entrypoints.mcp.server"),
        ("ai_memory.entrypoints.mcp.server", "ai_memory.entrypoints.agent_tools"),
        ("ai_memory.entrypoints.a2a.server", "ai_memory.entrypoints.agent_tools"),
        ("ai_memory.bootstrap.facade", "ai_memory.service.facade"),
        ("ai_memory.sdk.models", "ai_memory.wire.models"),
        ("ai_memory.entrypoints.cli.replay_cmd", "ai_memory.bootstrap"),
        ("ai_memory.entrypoints.cli.dead_letters_cmd", "ai_memory.service.dead_letters"),
        ("ai_memory.entrypoints.cli.main", "ai_memory.sdk"),
        ("ai_memory.entrypoints.cli.bench_cmd", "ai_memory.benchmarks.scale"),
    ]:
        assert edge in found, edge
    # MCP and A2A share the agent tools; neither imports the other.
    assert ("ai_memory.entrypoints.a2a.server", "ai_memory.entrypoints.mcp.server") not in found


PLANTED: Sequence[tuple[str, str, str]] = [
    (
        "ai_memory/entrypoints/http/app.py",
        "from ai_memory.adapters.sqlite_event_log import SqliteEventLog\n",
        "entry points see only",
    ),
    (
        "ai_memory/entrypoints/mcp/server.py",
        "def later() -> None:\n    from ai_memory.bootstrap import Container\n",
        "never the container",
    ),
    ("ai_memory/entrypoints/a2a/server.py", "from ...projector import tailer\n", "entry points"),
    # The command line's allowance is its own: a transport still may not build.
    ("ai_memory/entrypoints/http/app.py", "from ai_memory.bootstrap import build\n", "see only"),
    (
        "ai_memory/entrypoints/cli/replay_cmd.py",
        "from ai_memory.projector.sinks import RecordsSink\n",
        "never around it",
    ),
    (
        "ai_memory/entrypoints/cli/dead_letters_cmd.py",
        "def later() -> None:\n    from ai_memory.serialization import AvroEventSerializer\n",
        "never around it",
    ),
    ("ai_memory/entrypoints/cli/main.py", "import ai_memory.adapters.memory\n", "never around"),
    (
        "ai_memory/entrypoints/cli/project_cmd.py",
        "from ai_memory.bootstrap import Container\n",
        "never the container",
    ),
    ("ai_memory/core/record.py", "from ai_memory.service import facade\n", "outside the core"),
    ("ai_memory/core/keywords.py", "import sqlite3\nimport fastapi\n", "no I/O"),
    ("ai_memory/service/notes.py", "from ..adapters import memory\n", "service layer"),
    ("ai_memory/sdk/client.py", "import ai_memory.serialization\n", "no server module"),
    ("ai_memory/sdk/__init__.py", "from . import in_process\n", "explicit import"),
    ("ai_memory/sdk/client.py", "from .in_process import asgi_app\n", "explicit"),
    (
        "ai_memory/entrypoints/cli/keys_cmd.py",
        "from ai_memory.bootstrap.security import build_key_service\n",
        "composition root's face",
    ),
    ("ai_memory/sdk/in_process.py", "from ai_memory.bootstrap import urls\n", "face"),
    ("ai_memory/adapters/memory/event_log.py", "from ai_memory.service import acting\n", "ports"),
    (
        "ai_memory/adapters/sqlite_event_log.py",
        "from ai_memory.serialization import AvroEventSerializer\n",
        "ports only",
    ),
    ("ai_memory/serialization/mapper.py", "from ai_memory.adapters import memory\n", "port"),
    ("ai_memory/projector/tailer.py", "from ai_memory.bootstrap import build\n", "wired"),
    ("ai_memory/projector/replay.py", "import ai_memory.serialization\n", "they do not wire"),
    ("ai_memory/migration/verify.py", "from ai_memory.adapters import memory\n", "clients"),
    ("ai_memory/benchmarks/scale.py", "from ai_memory.bootstrap import build\n", "over HTTP"),
    ("ai_memory/bootstrap/urls.py", "from ai_memory.entrypoints.http import app\n", "never"),
    ("ai_memory/bootstrap/policy.py", "import ai_memory.sdk\n", "never calls them"),
]


@pytest.mark.parametrize(("path", "code", "rule"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_violation_is_caught(tmp_path: Path, path: str, code: str, rule: str) -> None:
    copy = tmp_path / "services"
    shutil.copytree(ROOT / "ai_memory", copy / "ai_memory", ignore=_no_cache)
    target = copy / path
    target.write_text(target.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")
    found = violations(copy)
    assert found, f"{path}: the planted import went unnoticed"
    module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    assert all(v.startswith(f"{module}:") for v in found), found
    assert any(rule in v for v in found), found


def _no_cache(_dir: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]
