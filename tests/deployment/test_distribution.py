"""The distribution: `pip install ai-memory` is the client only; the server, the
distributed adapters and LangGraph are extras. The wheel's metadata is checked, and the
SDK and the console script are run with nothing importable beyond what the base (or
the ``cli`` extra) installs."""

from __future__ import annotations

import email.parser
import re
import subprocess
import sys
import zipfile
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What must never come with the client: Kafka, Cassandra, Faust, Qdrant, MCP, A2A, and
# the server's own stack.
SERVER_ONLY = {
    "aiokafka",
    "cassandra-driver",
    "faust-streaming",
    "qdrant-client",
    "qdrant-edge-py",
    "mcp",
    "a2a-sdk",
    "fastapi",
    "uvicorn",
    "numpy",
    "fastavro",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


@pytest.fixture(scope="module")
def wheel_metadata(tmp_path_factory: pytest.TempPathFactory) -> email.message.Message:
    out = tmp_path_factory.mktemp("wheel")
    base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
    built = subprocess.run([*base, str(ROOT)], capture_output=True, text=True, timeout=300)
    if built.returncode != 0:  # offline: build with the backend installed here
        built = subprocess.run(
            [*base, "--no-build-isolation", str(ROOT)], capture_output=True, text=True, timeout=300
        )
    assert built.returncode == 0, built.stderr
    (wheel,) = out.glob("ai_memory-*.whl")
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        text = z.read(name).decode("utf-8")
        entry_points = z.read(name.replace("METADATA", "entry_points.txt")).decode()
    message = email.parser.Parser().parsestr(text)
    message["X-Entry-Points"] = entry_points
    return message


def requirements(meta: email.message.Message, extra: str | None) -> set[str]:
    out = set()
    for req in meta.get_all("Requires-Dist") or []:
        marker = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", req)
        if (marker.group(1) if marker else None) == extra:
            out.add(_name(req))
    return out


def test_the_base_install_is_the_client_only(wheel_metadata: email.message.Message) -> None:
    base = requirements(wheel_metadata, None)
    assert base == {"pydantic", "httpx"}
    assert not base & SERVER_ONLY


def test_the_extras_carry_the_server_and_the_distributed_adapters(
    wheel_metadata: email.message.Message,
) -> None:
    extras = set(wheel_metadata.get_all("Provides-Extra") or [])
    assert {"cli", "server", "distributed", "langgraph", "all", "dev"} <= extras
    server = requirements(wheel_metadata, "server")
    distributed = requirements(wheel_metadata, "distributed")
    assert {"fastapi", "uvicorn", "qdrant-edge-py", "mcp", "a2a-sdk", "ai-memory"} <= server
    assert {"aiokafka", "cassandra-driver", "qdrant-client"} <= distributed
    assert "ai-memory" in distributed  # the server extra, by reference


def test_the_console_script_is_the_stdlib_launcher(wheel_metadata: email.message.Message) -> None:
    assert "ai-memory = ai_memory.entrypoints.cli.launcher:main" in wheel_metadata["X-Entry-Points"]


# --- running with only what an extra installs -----------------------------------------
@cache
def _closure(*dists: str) -> frozenset[str]:
    """Top-level modules of ``dists`` and everything they require (no extras)."""
    seen: set[str] = set()
    todo = [d.lower() for d in dists]
    while todo:
        dist = todo.pop()
        if dist in seen:
            continue
        try:
            requires = metadata.requires(dist) or []
        except metadata.PackageNotFoundError:
            continue  # a requirement for other Pythons (its marker excludes this one)
        seen.add(dist)
        for req in requires:
            if "extra ==" not in req:
                todo.append(_name(req))
    modules = {"ai_memory"}
    for module, owners in metadata.packages_distributions().items():
        if any(o.lower().replace("_", "-") in seen for o in owners):
            modules.add(module)
    return frozenset(modules)


_BLOCKER = """
import sys, importlib.abc
allowed = set({allowed!r}) | set(sys.stdlib_module_names)
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in allowed and not top.startswith("_"):
            raise ModuleNotFoundError(f"No module named {{top!r}}", name=top)
        return None
sys.meta_path.insert(0, Block())
"""


def run_with(dists: tuple[str, ...], code: str) -> subprocess.CompletedProcess[str]:
    blocker = _BLOCKER.format(allowed=sorted(_closure(*dists)))
    return subprocess.run(
        [sys.executable, "-c", blocker + code], capture_output=True, text=True, timeout=120
    )


def test_the_sdk_works_with_the_base_install_only() -> None:
    result = run_with(
        ("pydantic", "httpx"),
        "import httpx\n"
        "from ai_memory.sdk import MemoryClient, MemoryIn, GoneError\n"
        "def answer(request):\n"
        "    return httpx.Response(410, json={'code': 'memory_forgotten', 'detail': 'gone'})\n"
        "c = MemoryClient(transport=httpx.MockTransport(answer), retries=0)\n"
        "try:\n"
        "    c.get('m1')\n"
        "except GoneError as e:\n"
        "    print('typed', e.code)\n"
        "import fastapi\n",
    )
    assert "typed memory_forgotten" in result.stdout, result.stderr
    # the check itself works: a server module is not importable in that interpreter
    assert "No module named 'fastapi'" in result.stderr


def test_a_webhook_receiver_verifies_with_the_base_install_only() -> None:
    result = run_with(
        ("pydantic", "httpx"),
        "import time\n"
        "from ai_memory.sdk.webhooks import signature_header, verify_webhook\n"
        "body = b'{\"events\": []}'\n"
        "headers = {'X-AIMemory-Signature': signature_header('whsec_x', int(time.time()), body)}\n"
        "print('verified', verify_webhook('whsec_x', headers, body))\n",
    )
    assert "verified {'events': []}" in result.stdout, result.stderr


def test_the_console_script_names_the_missing_extra() -> None:
    launch = (
        "import sys\nfrom ai_memory.entrypoints.cli.launcher import main\n"
        "sys.argv = {argv!r}\nmain()\n"
    )
    bare = run_with(("pydantic", "httpx"), launch.format(argv=["ai-memory", "get", "m1"]))
    assert bare.returncode == 2 and "pip install 'ai-memory[cli]'" in bare.stderr, bare.stderr
    cli = ("pydantic", "httpx", "typer", "rich", "pydantic-settings")
    listed = run_with(cli, launch.format(argv=["ai-memory", "--help"]))
    assert listed.returncode == 0 and "serve" in listed.stdout, listed.stderr
    serve = run_with(cli, launch.format(argv=["ai-memory", "serve"]))
    assert serve.returncode == 2 and "pip install 'ai-memory[server]'" in serve.stderr
    replay = run_with(cli, launch.format(argv=["ai-memory", "replay", "--projection", "all"]))
    assert replay.returncode == 2 and "pip install 'ai-memory[server]'" in replay.stderr
