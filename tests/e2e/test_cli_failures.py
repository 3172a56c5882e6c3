"""End to end: the real ``ai-memory`` process against a real server (or none, or one that
only fails), as a user meets each failure. Every expected failure is one line on stderr
naming the problem, the exit code of ``docs/CLI.md``'s table, and never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from loadtest.cluster import free_port

from ai_memory.core.access import generate_token
from ai_memory.entrypoints.cli.exit_codes import ExitCode
from tests.e2e.test_server_and_cli import CLI, Server


def run(
    *args: str, url: str, key: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("AIMEM_API_KEY", "AIMEM_DEBUG")}
    env["AIMEM_URL"] = url
    if key is not None:
        env["AIMEM_API_KEY"] = key
    return subprocess.run(
        [*CLI, *args], env=env, capture_output=True, text=True, timeout=120, cwd=cwd
    )


def one_line(result: subprocess.CompletedProcess[str], code: ExitCode) -> str:
    """The single stderr line of a failure, after checking its code and that no
    traceback was printed."""
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ai-memory: ")
    return lines[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("open") / "data")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path, str]]:
    """A server whose deployment has keys (an admin key adopted at start)."""
    data = tmp_path_factory.mktemp("closed") / "data"
    admin = generate_token()
    s = Server(data, AIMEM_ADMIN_KEY=admin, AIMEM_ADMIN_TENANT="default")
    yield s, data, admin
    s.stop()


class _Failing(BaseHTTPRequestHandler):
    """Answers every request with the status in the path's first segment, as
    problem+json (``/500/...`` → 500)."""

    def do_GET(self) -> None:
        status = int(self.path.strip("/").split("/")[0])
        body = json.dumps(
            {
                "type": "about:blank",
                "title": "failed",
                "status": status,
                "code": "boom",
                "detail": "the store is on fire",
            }
        ).encode()
        self.send_response(status)
        self.send_header("content-type", "application/problem+json")
        self.send_header("retry-after", "0")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture(scope="module")
def failing() -> Iterator[str]:
    http = ThreadingHTTPServer(("127.0.0.1", free_port()), _Failing)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_address[1]}"
    http.shutdown()
    http.server_close()


def test_server_down() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    line = one_line(run("search", "anything", url=url), ExitCode.UNREACHABLE)
    assert line == (
        f"ai-memory: cannot reach {url} (connection refused) — is the server running? "
        "(ai-memory serve, or set AIMEM_URL)"
    )


def test_export_to_a_server_that_is_down_leaves_no_file(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    fresh, kept = tmp_path / "new.ndjson", tmp_path / "old.ndjson.gz"
    kept.write_bytes(b"the previous export")
    one_line(run("export", "-o", str(fresh), url=url), ExitCode.UNREACHABLE)
    one_line(run("export", "-o", str(kept), url=url), ExitCode.UNREACHABLE)
    assert not fresh.exists()
    assert kept.read_bytes() == b"the previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.ndjson.gz"]  # no partials


def test_missing_file_and_a_directory_instead_of_a_file(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # never reached: the file is checked first
    missing = one_line(run("import", str(tmp_path / "nope.ndjson"), url=url), ExitCode.BAD_INPUT)
    assert missing == f"ai-memory: no such file or directory: {tmp_path / 'nope.ndjson'}"
    folder = one_line(run("import", str(tmp_path), url=url), ExitCode.BAD_INPUT)
    assert folder == f"ai-memory: {tmp_path} is a directory, not a file"
    key = tmp_path / "key.pem"
    receipt = one_line(
        run("verify-receipt", str(tmp_path / "r.json"), "--public-key", str(key), url=url),
        ExitCode.BAD_INPUT,
    )
    assert str(key) in receipt


def test_a_bad_setting_stops_serve_with_nothing_on_disk(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "AIMEM_DATA_DIR": str(data), "AIMEM_INDEX": "bogus://x"}
    env["AIMEM_PORT"] = str(free_port())
    result = subprocess.run([*CLI, "serve"], env=env, capture_output=True, text=True, timeout=120)
    line = one_line(result, ExitCode.BAD_SETTING)
    assert line.startswith("ai-memory: bad setting AIMEM_INDEX: unknown scheme 'bogus'")
    assert not data.exists()


def test_rejected_import_lines_exit_6_with_the_count(server: Server, tmp_path: Path) -> None:
    written = json.loads(
        server.cli("write", "Alice likes tea.", "--scope", "user:a", "--type", "fact").stdout
    )
    bundle = tmp_path / "b.ndjson"
    server.cli("export", "--scope", "user:a", "-o", str(bundle))
    header, record = bundle.read_text().splitlines()[:2]
    bad = record.replace('"scope":"user:a"', '"scope":"not a scope"').replace(
        written["record"]["id"], "00000000-0000-4000-8000-000000000001"
    )
    partly, every = tmp_path / "partly.ndjson", tmp_path / "every.ndjson"
    partly.write_text(f"{header}\n{bad}\n{record}\n")
    every.write_text(f"{header}\n{bad}\n")

    result = run("import", str(partly), url=server.url)
    assert result.returncode == ExitCode.REJECTED and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["rejected"] == 1  # the report is still on stdout
    assert "waiting for the server" in result.stderr  # said after the upload
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ai-memory: 1 of 2 lines rejected; first: line 2 invalid_input")

    result = run("import", str(every), url=server.url)
    assert result.returncode == ExitCode.REJECTED
    assert "1 of 1 lines rejected (every line)" in result.stderr.strip().splitlines()[-1]


def test_422(server: Server) -> None:
    line = one_line(run("audit", "--limit", "5000", url=server.url), ExitCode.REFUSED)
    assert line.startswith("ai-memory: the server refused the request (422 invalid_input [limit])")


def test_json_everywhere_data_is_printed(server: Server) -> None:
    server.cli("write", "Bob drinks coffee.", "--scope", "user:b", "--type", "fact")
    found = json.loads(server.cli("search", "coffee", "--scope", "user:b", "--json").stdout)
    assert found["results"][0]["record"]["content"] == "Bob drinks coffee."
    memory_id = found["results"][0]["record"]["id"]
    assert json.loads(server.cli("get", memory_id, "--json").stdout)["id"] == memory_id
    assert "entries" in json.loads(server.cli("audit", "--json").stdout)


def test_401_without_a_key_and_with_a_wrong_one(closed: tuple[Server, Path, str]) -> None:
    server, _, admin = closed
    none = one_line(run("get", "x", url=server.url), ExitCode.REFUSED)
    assert "(401 " in none and "AIMEM_API_KEY" in none
    wrong = admin[:-4] + ("AAAA" if not admin.endswith("AAAA") else "BBBB")
    bad = one_line(run("get", "x", url=server.url, key=wrong), ExitCode.REFUSED)
    assert "(401 " in bad and "AIMEM_API_KEY" in bad


def test_403_a_reader_key_cannot_forget(closed: tuple[Server, Path, str]) -> None:
    server, data, admin = closed
    created = json.loads(
        run(
            "keys",
            "create",
            "--tenant",
            "default",
            "--role",
            "reader",
            "--name",
            "r",
            "--json",
            "--data-dir",
            str(data),
            url=server.url,
        ).stdout
    )
    written = run(
        "write",
        "Carol likes jazz.",
        "--scope",
        "user:c",
        "--type",
        "fact",
        url=server.url,
        key=admin,
    )
    assert written.returncode == 0, written.stderr
    memory_id = json.loads(written.stdout)["record"]["id"]
    line = one_line(run("delete", memory_id, url=server.url, key=created["key"]), ExitCode.REFUSED)
    assert "(403 " in line and "this key's role" in line


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_problems(failing: str, status: int) -> None:
    line = one_line(run("get", "x", url=f"{failing}/{status}"), ExitCode.UNREACHABLE)
    assert f"({status} boom): the store is on fire" in line


def test_version() -> None:
    result = run("--version", url="http://127.0.0.1:9")
    assert result.returncode == 0 and result.stdout.startswith("ai-memory ")


def test_a_bundle_that_is_not_gzip_is_bad_input(server: Server, tmp_path: Path) -> None:
    fake = tmp_path / "fake.ndjson.gz"
    fake.write_bytes(b'{"kind":"header"}\n')  # named .gz, not compressed
    result = run("import", str(fake), url=server.url)
    assert result.returncode == ExitCode.BAD_INPUT and "Traceback" not in result.stderr
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith("ai-memory: cannot read the bundle: Not a gzipped file")
    )
